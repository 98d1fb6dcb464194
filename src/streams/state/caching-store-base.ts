import { type CacheId, RecordCache } from './record-cache';
import type { CachedUpdate, ChangelogRecords, StateStore, StoreContext, StoreStats, StoreType } from './store';
import { ThreadCache } from './thread-cache';

/** A cached write: the new value (null deletes) and the record that made it. */
export interface CacheEntry<K, V> {
  key: K;
  value: V | null;
  timestamp: number;
  headers: unknown;
}

/**
 * What the caching key-value, window and session stores share: the cache in front of the store below, its flush
 * at commit (`flushCache`, then the store's own flush), and the flush listener. Closing drops what the cache still
 * holds: what was not written was not committed either, so its records are processed again after the restart.
 */
export abstract class CachingStoreBase<S extends StateStore, K, V> implements StateStore {
  protected cache: RecordCache<CacheEntry<K, V>> = this.newCache(new ThreadCache(0));
  private storeContext: StoreContext | undefined;
  private listener: ((update: CachedUpdate<K, V>) => void) | undefined;
  private sendOldValues = false;

  constructor(protected readonly inner: S) {}

  get name(): string {
    return this.inner.name;
  }

  get type(): StoreType {
    return this.inner.type;
  }

  get persistent(): boolean {
    return this.inner.persistent;
  }

  init(context: StoreContext): void {
    this.inner.init(context);
    this.storeContext = context;
    const read = context.cacheRead;
    this.cache = this.newCache(context.cache ?? new ThreadCache(0), read && ((hit) => read(this.name, hit)));
  }

  setFlushListener(listener: (update: CachedUpdate<K, V>) => void, sendOldValues: boolean): void {
    this.listener = listener;
    this.sendOldValues = sendOldValues;
  }

  flushCache(): void {
    this.cache.flush();
  }

  async flush(): Promise<void> {
    this.cache.flush();
    await this.inner.flush();
  }

  async close(): Promise<void> {
    this.cache.close();
    await this.inner.close();
  }

  isOpen(): boolean {
    return this.inner.isOpen();
  }

  restore(records: ChangelogRecords): void {
    this.inner.restore(records);
  }

  clear(): void {
    this.cache.clear();
    this.inner.clear();
  }

  stats(): StoreStats | undefined {
    return this.inner.stats?.();
  }

  /** Caches a write, stamped with the record being processed (stream time outside processing). */
  protected cacheWrite(id: CacheId, key: K, value: V | null): void {
    const context = this.storeContext;
    this.cache.put(id, {
      key,
      value,
      timestamp: context?.recordTimestamp?.() ?? context?.streamTime() ?? -1,
      headers: context?.recordHeaders?.(),
    });
  }

  /** Where a cached entry sorts in range reads: its key in the store below, as latin1. */
  protected abstract orderOf(id: CacheId, entry: CacheEntry<K, V>): string;

  /** The store's value of a cached key: what a write through replaces. */
  protected abstract storedValue(entry: CacheEntry<K, V>): V | null;

  /** Writes one entry (null deletes) to the store below. */
  protected abstract writeToStore(entry: CacheEntry<K, V>): void;

  private newCache(thread: ThreadCache, onRead?: (hit: boolean) => void): RecordCache<CacheEntry<K, V>> {
    return new RecordCache(
      thread,
      (entry) => this.writeThrough(entry),
      (id, entry) => this.orderOf(id, entry),
      onRead,
    );
  }

  private writeThrough(entry: CacheEntry<K, V>): void {
    const listener = this.listener;
    if (listener === undefined) {
      this.writeToStore(entry);
      return;
    }
    const oldValue = entry.value === null || this.sendOldValues ? this.storedValue(entry) : null;
    if (entry.value === null && oldValue === null) return;
    this.writeToStore(entry);
    listener({
      key: entry.key,
      newValue: entry.value,
      oldValue: this.sendOldValues ? oldValue : null,
      timestamp: entry.timestamp,
      headers: entry.headers,
    });
  }
}
