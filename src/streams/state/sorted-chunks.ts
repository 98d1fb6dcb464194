/** Most keys a chunk holds: one that grows past it splits in two, one that shrinks below a quarter of it is joined to a neighbour. */
const CHUNK_SIZE = 512;

interface Chunk<T> {
  keys: string[];
  values: T[];
}

/** Index of the first key in `keys` that is >= `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle] < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Values by string key, in key order (latin1 store keys: byte order), for range reads of a structure whose keys come
 * and go at every write, as a record cache's. The keys are held in sorted chunks, none empty, so that setting or
 * deleting a key moves at most a chunk's keys, where one sorted array would move up to all of them.
 */
export class SortedChunks<T> {
  private readonly chunks: Chunk<T>[] = [];

  set(key: string, value: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], values: [value] });
      return;
    }
    const index = Math.min(this.chunkOf(key), this.chunks.length - 1);
    const chunk = this.chunks[index];
    const at = lowerBound(chunk.keys, key);
    if (chunk.keys[at] === key) {
      chunk.values[at] = value;
      return;
    }
    chunk.keys.splice(at, 0, key);
    chunk.values.splice(at, 0, value);
    if (chunk.keys.length > CHUNK_SIZE) this.split(index);
  }

  delete(key: string): void {
    const index = this.chunkOf(key);
    const chunk = this.chunks[index];
    if (chunk === undefined) return;
    const at = lowerBound(chunk.keys, key);
    if (chunk.keys[at] !== key) return;
    chunk.keys.splice(at, 1);
    chunk.values.splice(at, 1);
    if (chunk.keys.length === 0) this.chunks.splice(index, 1);
    else if (chunk.keys.length < CHUNK_SIZE / 4 && this.chunks.length > 1) this.join(Math.min(index, this.chunks.length - 2));
  }

  /** The values of the keys within [from, to] (undefined: open), in key order. */
  range(from: string | undefined, to: string | undefined): T[] {
    const within: T[] = [];
    for (let index = from === undefined ? 0 : this.chunkOf(from); index < this.chunks.length; index++) {
      const { keys, values } = this.chunks[index];
      for (let at = from === undefined ? 0 : lowerBound(keys, from); at < keys.length; at++) {
        if (to !== undefined && keys[at] > to) return within;
        within.push(values[at]);
      }
    }
    return within;
  }

  /** Index of the first chunk whose last key is >= `key` (the number of chunks when there is none). */
  private chunkOf(key: string): number {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const keys = this.chunks[middle].keys;
      if (keys[keys.length - 1] < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private split(index: number): void {
    const chunk = this.chunks[index];
    const half = chunk.keys.length >>> 1;
    this.chunks.splice(index + 1, 0, { keys: chunk.keys.splice(half), values: chunk.values.splice(half) });
  }

  /** Joins chunks `index` and `index + 1`, split again if that is too many keys for one. */
  private join(index: number): void {
    const [first, second] = [this.chunks[index], this.chunks[index + 1]];
    this.chunks.splice(index, 2, { keys: first.keys.concat(second.keys), values: first.values.concat(second.values) });
    if (this.chunks[index].keys.length > CHUNK_SIZE) this.split(index);
  }
}
