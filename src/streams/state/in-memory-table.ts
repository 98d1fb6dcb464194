import { bytesToLatin1, latin1ToBytes } from './byte-order';
import type { BytesEntry, BytesRange, BytesTable } from './bytes-table';

/** Index of the first key in `sorted` that is >= `bound` (or > `bound` when `after`). */
function searchSorted(sorted: readonly string[], bound: string, after: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const key = sorted[middle];
    if (key < bound || (after && key === bound)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A byte-ordered table in memory. Point operations go to a Map (O(1)); the byte order is kept in a sorted key
 * array that is rebuilt lazily, when a range is read after keys were added (new keys are sorted and merged in:
 * O(n + a log a)). A put of a new key therefore costs no ordered insert, which matters for stores that mostly
 * take writes and point reads, as aggregations do. Keys deleted since the last rebuild stay in the array and are
 * skipped on reads until enough of them accumulate.
 */
export class InMemoryTable implements BytesTable {
  private readonly values = new Map<string, Buffer>();
  /** All keys in byte order, possibly with keys deleted since; replaced, never mutated, so iterators can hold it. */
  private sorted: readonly string[] = [];
  /** Keys added since `sorted` was built. */
  private added: string[] = [];
  private deletedSinceSort = 0;

  get(key: Buffer): Buffer | undefined {
    return this.values.get(bytesToLatin1(key));
  }

  put(key: Buffer, value: Buffer | null): void {
    const text = bytesToLatin1(key);
    if (value === null) {
      if (this.values.delete(text)) this.deletedSinceSort++;
      return;
    }
    if (!this.values.has(text)) this.added.push(text);
    this.values.set(text, value);
  }

  restore(key: Buffer, value: Buffer | null): void {
    // Copied: a restored value may be a view into a whole fetched response, which it would keep alive.
    this.put(key, value === null ? null : Buffer.from(value));
  }

  *range(range: BytesRange): Generator<BytesEntry, void, undefined> {
    const keys = this.sortedKeys();
    const low = range.from === undefined ? 0 : searchSorted(keys, bytesToLatin1(range.from), false);
    const high = range.to === undefined ? keys.length : searchSorted(keys, bytesToLatin1(range.to), range.toInclusive);
    // Values are read as the iteration reaches them: entries deleted meanwhile are skipped, as Kafka's in-memory
    // store does.
    if (range.reverse) {
      for (let i = high - 1; i >= low; i--) {
        const value = this.values.get(keys[i]);
        if (value !== undefined) yield { key: latin1ToBytes(keys[i]), value };
      }
    } else {
      for (let i = low; i < high; i++) {
        const value = this.values.get(keys[i]);
        if (value !== undefined) yield { key: latin1ToBytes(keys[i]), value };
      }
    }
  }

  approximateNumEntries(): number {
    return this.values.size;
  }

  clear(): void {
    this.values.clear();
    this.sorted = [];
    this.added = [];
    this.deletedSinceSort = 0;
  }

  private sortedKeys(): readonly string[] {
    if (this.added.length === 0 && this.deletedSinceSort <= this.sorted.length / 2) return this.sorted;
    const added = this.added.sort();
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    while (i < this.sorted.length || j < added.length) {
      const key = j >= added.length || (i < this.sorted.length && this.sorted[i] < added[j]) ? this.sorted[i++] : added[j++];
      // A key deleted then written again is in both arrays; keys deleted for good are left out.
      if (this.values.has(key) && merged[merged.length - 1] !== key) merged.push(key);
    }
    this.sorted = merged;
    this.added = [];
    this.deletedSinceSort = 0;
    return merged;
  }
}
