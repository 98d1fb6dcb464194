import type { Serde } from '../serdes/serde';

/** Entries are not serialized in the cache, so its size is bounded by count, at this estimate per entry. */
const ESTIMATED_ENTRY_BYTES = 128;

/** A key as a cache indexes it: primitives as themselves, other keys by their serialized bytes. */
export function cacheKeyId<K>(key: K, serde: Serde<K>): string {
  return typeof key === 'object' && key !== null ? serde.serialize(key).toString('latin1') : `${typeof key}:${String(key)}`;
}

/** How many entries a cache of `maxBytes` holds; 0 when caching is off (every write goes through at once). */
export function cacheCapacity(maxBytes: number | undefined): number {
  return maxBytes !== undefined && maxBytes > 0 ? Math.max(1, Math.floor(maxBytes / ESTIMATED_ENTRY_BYTES)) : 0;
}

/**
 * The record cache of one store (Kafka Streams' `NamedCache`): the latest write of each key not yet written to the
 * store, in the order of their last update. They reach the store when flushed: at commit, or when the cache is full
 * (as Kafka Streams evicting a dirty entry, every entry is written then). Written entries leave the cache, so that
 * the store's own rules (a window's retention) apply to every read of them.
 */
export class RecordCache<E> {
  private readonly entries = new Map<string, E>();

  constructor(
    private readonly capacity: number,
    private readonly writeThrough: (entry: E) => void,
  ) {}

  get(id: string): E | undefined {
    return this.entries.get(id);
  }

  put(id: string, entry: E): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > this.capacity) this.flush();
  }

  /** The entries not yet written to the store, oldest update first. */
  values(): IterableIterator<E> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Writes every entry through; each stays readable here until it is written (what it forwards may read it). */
  flush(): void {
    if (this.entries.size === 0) return;
    for (const [id, entry] of [...this.entries]) {
      this.writeThrough(entry);
      if (this.entries.get(id) === entry) this.entries.delete(id);
    }
  }

  /** Forgets every entry without writing it. */
  clear(): void {
    this.entries.clear();
  }
}
