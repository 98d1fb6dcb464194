import type { Serde } from '../serdes/serde';
import { int64Bytes } from '../serdes/int64';
import { bytesToLatin1 } from './byte-order';
import { type CachedItem, mergeWithCache } from './cache-merge';
import { type CacheEntry, CachingStoreBase } from './caching-store-base';
import type { CacheId } from './record-cache';
import type { KeyValue, PositionedEntry, StoreIterator, Windowed, WindowScan, WindowStore } from './store';
import { MAX_SEQNUM, windowKeyUpperBound, windowStoreKey } from './window-key-schema';

interface WindowBounds {
  keyFrom?: Buffer;
  keyTo?: Buffer;
  timeFrom: number;
  timeTo: number;
}

/**
 * Kafka Streams' `CachingWindowStore`: a window store (not one that retains duplicates) behind a record cache (see
 * CachingStore). Cached windows are keyed as the store keys them (ids: the store keys as latin1); range reads merge
 * them in the store's order: by time segment, then store key.
 */
export class CachingWindowStore<K, V, VS = V> extends CachingStoreBase<WindowStore<K, V, VS>, Windowed<K>, V> implements WindowStore<K, V, VS> {
  constructor(
    inner: WindowStore<K, V, VS>,
    private readonly segmentInterval: number,
  ) {
    super(inner);
  }

  get keySerde(): Serde<K> {
    return this.inner.keySerde;
  }

  get valueSerde(): Serde<VS> {
    return this.inner.valueSerde;
  }

  get windowSize(): number {
    return this.inner.windowSize;
  }

  get retentionPeriod(): number {
    return this.inner.retentionPeriod;
  }

  put(key: K, value: V | null, windowStart: number): void {
    const id = windowStoreKey(this.keySerde.serialize(key), windowStart, 0).toString('latin1');
    this.cacheWrite(id, { key, window: { start: windowStart, end: windowStart + this.windowSize } }, value);
  }

  fetch(key: K, windowStart: number): V | undefined {
    const cached = this.cache.get(windowStoreKey(this.keySerde.serialize(key), windowStart, 0).toString('latin1'));
    if (cached !== undefined) return cached.value ?? undefined;
    return this.inner.fetch(key, windowStart);
  }

  fetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>> {
    return this.mergedStarts(this.inner.fetchRange(key, timeFrom, timeTo), key, timeFrom, timeTo, false);
  }

  backwardFetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>> {
    return this.mergedStarts(this.inner.backwardFetchRange(key, timeFrom, timeTo), key, timeFrom, timeTo, true);
  }

  fetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined, timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    const stored = this.inner.fetchKeyRange(keyFrom, keyTo, timeFrom, timeTo);
    return this.mergedWindows(stored, { ...this.keyBounds(keyFrom, keyTo), timeFrom, timeTo }, false);
  }

  backwardFetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined, timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    const stored = this.inner.backwardFetchKeyRange(keyFrom, keyTo, timeFrom, timeTo);
    return this.mergedWindows(stored, { ...this.keyBounds(keyFrom, keyTo), timeFrom, timeTo }, true);
  }

  fetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.mergedWindows(this.inner.fetchAll(timeFrom, timeTo), { timeFrom, timeTo }, false);
  }

  backwardFetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.mergedWindows(this.inner.backwardFetchAll(timeFrom, timeTo), { timeFrom, timeTo }, true);
  }

  all(): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.mergedWindows(this.inner.all(), { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER }, false);
  }

  backwardAll(): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.mergedWindows(this.inner.backwardAll(), { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER }, true);
  }

  /** The sort keys of cached windows are their positions in the store's scans (PositionedEntry), duplicates aside. */
  resumableScan(scan: WindowScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>> {
    const stored = this.inner.resumableScan(scan, after);
    if (this.cache.size === 0) return stored;
    const keys = scan.key === undefined ? this.keyBounds(scan.keyFrom, scan.keyTo) : this.keyBounds(scan.key, scan.key);
    const cached = this.cachedWithin({ ...keys, timeFrom: scan.timeFrom, timeTo: scan.timeTo }, after).map(({ sortKey, entry }) => ({
      sortKey,
      item: entry.value === null ? null : { key: entry.key, value: entry.value, position: sortKey },
    }));
    return mergeWithCache(stored, cached, (kv) => kv.position, false);
  }

  protected orderOf(id: CacheId): string {
    return String(id);
  }

  protected storedValue(entry: CacheEntry<Windowed<K>, V>): V | null {
    return this.inner.fetch(entry.key.key, entry.key.window.start) ?? null;
  }

  protected writeToStore(entry: CacheEntry<Windowed<K>, V>): void {
    this.inner.put(entry.key.key, entry.value, entry.key.window.start);
  }

  private keyBounds(keyFrom: K | undefined, keyTo: K | undefined): { keyFrom?: Buffer; keyTo?: Buffer } {
    return {
      ...(keyFrom === undefined ? {} : { keyFrom: this.keySerde.serialize(keyFrom) }),
      ...(keyTo === undefined ? {} : { keyTo: this.keySerde.serialize(keyTo) }),
    };
  }

  /** One key's windows: ordered by start alone. */
  private mergedStarts(stored: StoreIterator<KeyValue<number, V>>, key: K, timeFrom: number, timeTo: number, reverse: boolean): StoreIterator<KeyValue<number, V>> {
    if (this.cache.size === 0) return stored;
    const keyBytes = this.keySerde.serialize(key);
    const cached: CachedItem<KeyValue<number, V>>[] = [];
    // The key's store keys from timeFrom to timeTo, and longer keys' that sort between them, left out below.
    const from = bytesToLatin1(windowStoreKey(keyBytes, Math.max(timeFrom, 0), 0));
    const to = bytesToLatin1(windowStoreKey(keyBytes, Math.max(timeTo, 0), MAX_SEQNUM));
    for (const entry of this.cache.range(from, to)) {
      const start = entry.key.window.start;
      if (start < timeFrom || start > timeTo || !this.keySerde.serialize(entry.key.key).equals(keyBytes)) continue;
      cached.push({ sortKey: int64Bytes(start), item: entry.value === null ? null : { key: start, value: entry.value } });
    }
    return mergeWithCache(stored, cached, (kv) => int64Bytes(kv.key), reverse);
  }

  private mergedWindows(stored: StoreIterator<KeyValue<Windowed<K>, V>>, bounds: WindowBounds, reverse: boolean): StoreIterator<KeyValue<Windowed<K>, V>> {
    if (this.cache.size === 0) return stored;
    const cached: CachedItem<KeyValue<Windowed<K>, V>>[] = this.cachedWithin(bounds, undefined).map(({ sortKey, entry }) => ({
      sortKey,
      item: entry.value === null ? null : { key: entry.key, value: entry.value },
    }));
    return mergeWithCache(stored, cached, (kv) => this.sortKey(this.keySerde.serialize(kv.key.key), kv.key.window.start), reverse);
  }

  /** The cached windows within `bounds` (and sorting after `after`), with their sort keys. */
  private cachedWithin(bounds: WindowBounds, after: Buffer | undefined): { sortKey: Buffer; entry: CacheEntry<Windowed<K>, V> }[] {
    const within: { sortKey: Buffer; entry: CacheEntry<Windowed<K>, V> }[] = [];
    const from = bounds.keyFrom === undefined ? undefined : bytesToLatin1(bounds.keyFrom);
    const to = bounds.keyTo === undefined ? undefined : bytesToLatin1(windowKeyUpperBound(bounds.keyTo));
    for (const entry of this.cache.range(from, to)) {
      const keyBytes = this.keySerde.serialize(entry.key.key);
      const start = entry.key.window.start;
      if (start < bounds.timeFrom || start > bounds.timeTo) continue;
      if (bounds.keyFrom !== undefined && Buffer.compare(keyBytes, bounds.keyFrom) < 0) continue;
      if (bounds.keyTo !== undefined && Buffer.compare(keyBytes, bounds.keyTo) > 0) continue;
      const sortKey = this.sortKey(keyBytes, start);
      if (after === undefined || Buffer.compare(sortKey, after) > 0) within.push({ sortKey, entry });
    }
    return within;
  }

  private sortKey(keyBytes: Buffer, windowStart: number): Buffer {
    return Buffer.concat([int64Bytes(Math.floor(windowStart / this.segmentInterval)), windowStoreKey(keyBytes, windowStart, 0)]);
  }
}
