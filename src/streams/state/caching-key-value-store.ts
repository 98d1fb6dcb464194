import type { Serde } from '../serdes/serde';
import { bytesToLatin1, prefixUpperBound } from './byte-order';
import { type CachedItem, mergeWithCache } from './cache-merge';
import { type CacheEntry, CachingStoreBase } from './caching-store-base';
import { type CacheId, cacheKeyId } from './record-cache';
import type { KeyValue, KeyValueStore, StoreIterator } from './store';

type KeyBounds = { from?: Buffer; to?: Buffer } | { prefix: Buffer };

/** Kafka Streams' `CachingKeyValueStore`: a key-value store behind a record cache (see CachingStore). */
export class CachingKeyValueStore<K, V, VS = V> extends CachingStoreBase<KeyValueStore<K, V, VS>, K, V> implements KeyValueStore<K, V, VS> {
  get keySerde(): Serde<K> {
    return this.inner.keySerde;
  }

  get valueSerde(): Serde<VS> {
    return this.inner.valueSerde;
  }

  get(key: K): V | undefined {
    const cached = this.cache.get(cacheKeyId(key, this.keySerde));
    if (cached !== undefined) return cached.value ?? undefined;
    return this.inner.get(key);
  }

  put(key: K, value: V | null): void {
    this.cacheWrite(cacheKeyId(key, this.keySerde), key, value);
  }

  putIfAbsent(key: K, value: V): V | undefined {
    const current = this.get(key);
    if (current === undefined) this.put(key, value);
    return current;
  }

  putAll(entries: KeyValue<K, V | null>[]): void {
    for (const entry of entries) this.put(entry.key, entry.value);
  }

  delete(key: K): V | undefined {
    const current = this.get(key);
    this.put(key, null);
    return current;
  }

  range(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>> {
    return this.merged(this.inner.range(from, to), this.bounds(from, to), false);
  }

  reverseRange(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>> {
    return this.merged(this.inner.reverseRange(from, to), this.bounds(from, to), true);
  }

  all(): StoreIterator<KeyValue<K, V>> {
    return this.merged(this.inner.all(), {}, false);
  }

  reverseAll(): StoreIterator<KeyValue<K, V>> {
    return this.merged(this.inner.reverseAll(), {}, true);
  }

  prefixScan<P>(prefix: P, prefixSerializer: { serialize(p: P): Buffer }): StoreIterator<KeyValue<K, V>> {
    return this.merged(this.inner.prefixScan(prefix, prefixSerializer), { prefix: prefixSerializer.serialize(prefix) }, false);
  }

  /**
   * The store's entries with the cache's unwritten writes applied: a cached key the store lacks counts, a cached
   * deletion of a stored key does not. Kafka Streams counts the store alone, so its count of a cached table lags by
   * up to a commit interval; the query API's `count` must agree with its `get` and `all`, which read through the cache.
   */
  approximateNumEntries(): number {
    let entries = this.inner.approximateNumEntries();
    for (const entry of this.cache.unwritten()) {
      const stored = this.inner.get(entry.key) !== undefined;
      if (entry.value !== null && !stored) entries++;
      else if (entry.value === null && stored) entries--;
    }
    return entries;
  }

  protected orderOf(_id: CacheId, entry: CacheEntry<K, V>): string {
    return bytesToLatin1(this.keySerde.serialize(entry.key));
  }

  protected storedValue(entry: CacheEntry<K, V>): V | null {
    return this.inner.get(entry.key) ?? null;
  }

  protected writeToStore(entry: CacheEntry<K, V>): void {
    this.inner.put(entry.key, entry.value);
  }

  private bounds(from: K | undefined, to: K | undefined): KeyBounds {
    return {
      ...(from === undefined ? {} : { from: this.keySerde.serialize(from) }),
      ...(to === undefined ? {} : { to: this.keySerde.serialize(to) }),
    };
  }

  private merged(stored: StoreIterator<KeyValue<K, V>>, bounds: KeyBounds, reverse: boolean): StoreIterator<KeyValue<K, V>> {
    if (this.cache.size === 0) return stored;
    const cached: CachedItem<KeyValue<K, V>>[] = [];
    for (const entry of this.cache.range(...cacheRange(bounds))) {
      const keyBytes = this.keySerde.serialize(entry.key);
      if (!within(keyBytes, bounds)) continue;
      cached.push({ sortKey: keyBytes, item: entry.value === null ? null : { key: entry.key, value: entry.value } });
    }
    return mergeWithCache(stored, cached, (kv) => this.keySerde.serialize(kv.key), reverse);
  }
}

/** Where the keys within `bounds` sort in the cache, as latin1: a range that `within` narrows to the bounds. */
function cacheRange(bounds: KeyBounds): [string | undefined, string | undefined] {
  const [from, to] = 'prefix' in bounds ? [bounds.prefix, prefixUpperBound(bounds.prefix)] : [bounds.from, bounds.to];
  return [from === undefined ? undefined : bytesToLatin1(from), to === undefined ? undefined : bytesToLatin1(to)];
}

function within(keyBytes: Buffer, bounds: KeyBounds): boolean {
  if ('prefix' in bounds) return keyBytes.subarray(0, bounds.prefix.length).equals(bounds.prefix);
  if (bounds.from !== undefined && Buffer.compare(keyBytes, bounds.from) < 0) return false;
  return bounds.to === undefined || Buffer.compare(keyBytes, bounds.to) <= 0;
}
