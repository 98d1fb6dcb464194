import type { StoreIterator } from './store';

/** A cached entry as a range read sees it: where it sorts, and the entry (null: the key was deleted). */
export interface CachedItem<T> {
  sortKey: Buffer;
  item: T | null;
}

/**
 * A store's range read with the cache's entries laid over it (Kafka Streams' merged-sorted cache iterators): both
 * sides are in the store's order (`sortKey` ascending, descending when `reverse`); a cached item replaces the stored
 * one of the same sort key, a cached deletion hides it. `cached` is sorted here.
 */
export function mergeWithCache<T>(
  stored: StoreIterator<T>,
  cached: CachedItem<T>[],
  sortKeyOf: (item: T) => Buffer,
  reverse: boolean,
): StoreIterator<T> {
  if (cached.length === 0) return stored;
  const direction = reverse ? -1 : 1;
  cached.sort((a, b) => direction * Buffer.compare(a.sortKey, b.sortKey));
  return new MergedIterator(stored, cached, sortKeyOf, direction);
}

class MergedIterator<T> implements StoreIterator<T> {
  private pending: IteratorResult<T> | undefined;
  private storedKey: Buffer | undefined;
  private index = 0;

  constructor(
    private readonly stored: StoreIterator<T>,
    private readonly cached: CachedItem<T>[],
    private readonly sortKeyOf: (item: T) => Buffer,
    private readonly direction: number,
  ) {}

  next(): IteratorResult<T> {
    for (;;) {
      const fromStore = this.peekStored();
      const fromCache = this.cached[this.index];
      if (fromStore.done && fromCache === undefined) return { done: true, value: undefined };
      const order = fromStore.done ? 1 : fromCache === undefined ? -1 : this.direction * Buffer.compare(this.storedKey!, fromCache.sortKey);
      if (order < 0) {
        this.pending = undefined;
        return fromStore;
      }
      this.index++;
      if (order === 0) this.pending = undefined;
      if (fromCache!.item !== null) return { done: false, value: fromCache!.item };
    }
  }

  return(): IteratorResult<T> {
    this.close();
    return { done: true, value: undefined };
  }

  close(): void {
    this.index = this.cached.length;
    this.pending = { done: true, value: undefined };
    this.stored.close();
  }

  [Symbol.iterator](): this {
    return this;
  }

  private peekStored(): IteratorResult<T> {
    if (this.pending === undefined) {
      this.pending = this.stored.next();
      this.storedKey = this.pending.done ? undefined : this.sortKeyOf(this.pending.value);
    }
    return this.pending;
  }
}
