import type { Serde } from '../serdes/serde';
import { int64Bytes } from '../serdes/int64';
import { bytesToLatin1 } from './byte-order';
import { type CachedItem, mergeWithCache } from './cache-merge';
import { type CacheEntry, CachingStoreBase } from './caching-store-base';
import type { CacheId } from './record-cache';
import { sessionKeyUpperBound, sessionStoreKey } from './session-key-schema';
import type { KeyValue, PositionedEntry, SessionScan, SessionStore, StoreIterator, Window, Windowed } from './store';

interface SessionBounds {
  keyFrom?: Buffer;
  keyTo?: Buffer;
  earliestEnd: number;
  latestStart: number;
}

const ALL_SESSIONS = { earliestEnd: 0, latestStart: Number.MAX_SAFE_INTEGER };

/**
 * Kafka Streams' `CachingSessionStore`: a session store behind a record cache (see CachingStore). Cached sessions
 * are keyed as the store keys them (ids: the store keys as latin1); reads merge them in the store's order: by time
 * segment of the session's end, then store key.
 */
export class CachingSessionStore<K, V> extends CachingStoreBase<SessionStore<K, V>, Windowed<K>, V> implements SessionStore<K, V> {
  constructor(
    inner: SessionStore<K, V>,
    private readonly segmentInterval: number,
  ) {
    super(inner);
  }

  get keySerde(): Serde<K> {
    return this.inner.keySerde;
  }

  get valueSerde(): Serde<V> {
    return this.inner.valueSerde;
  }

  get retentionPeriod(): number {
    return this.inner.retentionPeriod;
  }

  put(session: Windowed<K>, value: V): void {
    this.cacheWrite(this.id(session.key, session.window), session, value);
  }

  remove(session: Windowed<K>): void {
    this.cacheWrite(this.id(session.key, session.window), session, null);
  }

  fetchSession(key: K, sessionStart: number, sessionEnd: number): V | undefined {
    const cached = this.cache.get(this.id(key, { start: sessionStart, end: sessionEnd }));
    if (cached !== undefined) return cached.value ?? undefined;
    return this.inner.fetchSession(key, sessionStart, sessionEnd);
  }

  fetch(key: K): StoreIterator<KeyValue<Windowed<K>, V>> {
    const keyBytes = this.keySerde.serialize(key);
    return this.merged(this.inner.fetch(key), { keyFrom: keyBytes, keyTo: keyBytes, ...ALL_SESSIONS });
  }

  findSessions(key: K, earliestSessionEndTime: number, latestSessionStartTime: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    const keyBytes = this.keySerde.serialize(key);
    const stored = this.inner.findSessions(key, earliestSessionEndTime, latestSessionStartTime);
    return this.merged(stored, { keyFrom: keyBytes, keyTo: keyBytes, earliestEnd: earliestSessionEndTime, latestStart: latestSessionStartTime });
  }

  fetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.merged(this.inner.fetchKeyRange(keyFrom, keyTo), {
      ...(keyFrom === undefined ? {} : { keyFrom: this.keySerde.serialize(keyFrom) }),
      ...(keyTo === undefined ? {} : { keyTo: this.keySerde.serialize(keyTo) }),
      ...ALL_SESSIONS,
    });
  }

  /** The sort keys of cached sessions are their positions in the store's scans (PositionedEntry). */
  resumableScan(scan: SessionScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>> {
    const stored = this.inner.resumableScan(scan, after);
    if (this.cache.size === 0) return stored;
    const [keyFrom, keyTo] = scan.key === undefined ? [scan.keyFrom, scan.keyTo] : [scan.key, scan.key];
    const bounds = {
      ...(keyFrom === undefined ? {} : { keyFrom: this.keySerde.serialize(keyFrom) }),
      ...(keyTo === undefined ? {} : { keyTo: this.keySerde.serialize(keyTo) }),
      ...ALL_SESSIONS,
    };
    const cached = this.cachedWithin(bounds, after).map(({ sortKey, entry }) => ({
      sortKey,
      item: entry.value === null ? null : { key: entry.key, value: entry.value, position: sortKey },
    }));
    return mergeWithCache(stored, cached, (kv) => kv.position, false);
  }

  protected orderOf(id: CacheId): string {
    return String(id);
  }

  protected storedValue(entry: CacheEntry<Windowed<K>, V>): V | null {
    return this.inner.fetchSession(entry.key.key, entry.key.window.start, entry.key.window.end) ?? null;
  }

  protected writeToStore(entry: CacheEntry<Windowed<K>, V>): void {
    if (entry.value === null) this.inner.remove(entry.key);
    else this.inner.put(entry.key, entry.value);
  }

  private id(key: K, window: Window): string {
    return sessionStoreKey(this.keySerde.serialize(key), window).toString('latin1');
  }

  private merged(stored: StoreIterator<KeyValue<Windowed<K>, V>>, bounds: SessionBounds): StoreIterator<KeyValue<Windowed<K>, V>> {
    if (this.cache.size === 0) return stored;
    const cached: CachedItem<KeyValue<Windowed<K>, V>>[] = this.cachedWithin(bounds, undefined).map(({ sortKey, entry }) => ({
      sortKey,
      item: entry.value === null ? null : { key: entry.key, value: entry.value },
    }));
    return mergeWithCache(stored, cached, (kv) => this.sortKey(this.keySerde.serialize(kv.key.key), kv.key.window), false);
  }

  /** The cached sessions within `bounds` (and sorting after `after`), with their sort keys. */
  private cachedWithin(bounds: SessionBounds, after: Buffer | undefined): { sortKey: Buffer; entry: CacheEntry<Windowed<K>, V> }[] {
    const within: { sortKey: Buffer; entry: CacheEntry<Windowed<K>, V> }[] = [];
    for (const entry of this.cache.range(...this.cacheRange(bounds))) {
      const { window } = entry.key;
      if (window.end < bounds.earliestEnd || window.start > bounds.latestStart) continue;
      const keyBytes = this.keySerde.serialize(entry.key.key);
      if (bounds.keyFrom !== undefined && Buffer.compare(keyBytes, bounds.keyFrom) < 0) continue;
      if (bounds.keyTo !== undefined && Buffer.compare(keyBytes, bounds.keyTo) > 0) continue;
      const sortKey = this.sortKey(keyBytes, window);
      if (after === undefined || Buffer.compare(sortKey, after) > 0) within.push({ sortKey, entry });
    }
    return within;
  }

  /**
   * Where the sessions within `bounds` sort in the cache, as latin1, as the store's scans bound them: one key's from
   * the earliest end to the latest start, a key range's from its first key to past its last. Longer keys' sessions
   * may sort within a key's; cachedWithin leaves them out.
   */
  private cacheRange(bounds: SessionBounds): [string | undefined, string | undefined] {
    const { keyFrom, keyTo } = bounds;
    if (keyFrom !== undefined && keyTo !== undefined && keyFrom.equals(keyTo)) {
      const from = sessionStoreKey(keyFrom, { start: 0, end: Math.max(bounds.earliestEnd, 0) });
      const to = sessionStoreKey(keyFrom, { start: Math.max(bounds.latestStart, 0), end: Number.MAX_SAFE_INTEGER });
      return [bytesToLatin1(from), bytesToLatin1(to)];
    }
    return [keyFrom === undefined ? undefined : bytesToLatin1(keyFrom), keyTo === undefined ? undefined : bytesToLatin1(sessionKeyUpperBound(keyTo))];
  }

  private sortKey(keyBytes: Buffer, window: Window): Buffer {
    return Buffer.concat([int64Bytes(Math.floor(window.end / this.segmentInterval)), sessionStoreKey(keyBytes, window)]);
  }
}
