/**
 * The contracts of state stores, shared by the stores themselves, the processors that use them and the
 * runtime that flushes, logs and restores them. Mirrors Kafka Streams' `StateStore` family.
 */

import type { Serde } from '../serdes/serde';
import type { ThreadCache } from './thread-cache';

/** A key and value as stores and iterators hand them out. */
export interface KeyValue<K, V> {
  key: K;
  value: V;
}

/** A value with the timestamp of the record that last wrote it (timestamped stores). */
export interface ValueAndTimestamp<V> {
  value: V;
  timestamp: number;
}

/** A time window [start, end) in epoch ms. Session windows are [start, end] (both inclusive). */
export interface Window {
  start: number;
  end: number;
}

/** A key with the window it belongs to: the key type of window and session stores. */
export interface Windowed<K> {
  key: K;
  window: Window;
}

/**
 * An iterator over store entries. It is an Iterable, so `for ... of` closes it even when the caller breaks out
 * early; `close()` does the same explicitly.
 */
export interface StoreIterator<T> extends IterableIterator<T> {
  close(): void;
}

/** What a store reports to the runtime: one changelog record per write. */
export interface ChangelogRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
}

/**
 * Changelog records to restore, in offset order: an array, or a list read once, in order (restoration reads
 * fetched records without making an object of each beforehand). A record's buffers may be views into larger
 * buffers: a store keeps copies, never the buffers themselves.
 */
export interface ChangelogRecords extends Iterable<ChangelogRecord> {
  readonly length: number;
}

/**
 * What the runtime gives a store when it is initialised in a task: where its files live, and how its writes
 * reach the changelog. Restoration calls `restore` on the store itself.
 */
export interface StoreContext {
  readonly applicationId: string;
  /** Task id `<subtopology>_<partition>`, or a synthetic id for a store used outside a task. */
  readonly taskId: string;
  /** Directory of the task: `<state.dir>/<application.id>/<taskId>/`. Persistent stores live below it. */
  readonly taskDir: string;
  /** Whether writes are sent to the changelog (logging enabled for the store and a changelog exists). */
  readonly loggingEnabled: boolean;
  /** Sends one write to the store's changelog; a no-op when logging is disabled. */
  logChange(storeName: string, record: ChangelogRecord): void;
  /** Stream time of the task: the largest record timestamp seen so far (used by retention). */
  streamTime(): number;
  /** Options adjuster from `embeddedstore.config.setter`, applied to each persistent store's LMDB options. */
  readonly configureStore?: (storeName: string, options: Record<string, unknown>) => void;
  /**
   * Timestamp of the record being processed (Kafka Streams' `context.timestamp()`): the timestamp of the changelog
   * records of non-timestamped stores. When absent, or undefined outside processing (a cache flushed at
   * commit), stores use `streamTime()`.
   */
  readonly recordTimestamp?: () => number | undefined;
  /** Headers of the record being processed: opaque to stores, kept by caching stores for the updates they forward. */
  readonly recordHeaders?: () => unknown;
  /**
   * The record cache of the stream thread the store's task runs on, whose budget (its share of
   * `statestore.cache.max.bytes`) a caching store's cache shares with the thread's others. Absent: writes go through at once.
   */
  readonly cache?: ThreadCache;
  /** `state.dir.min.free.bytes`: persistent stores refuse writes while their disk has less free (0 or absent: no check). */
  readonly minFreeDiskBytes?: number;
  /**
   * Told of each read of a caching store's cache, found or not (its `hit-ratio`, which Kafka Streams records at
   * `metrics.recording.level` DEBUG); absent at INFO, when reads are not counted.
   */
  readonly cacheRead?: (storeName: string, hit: boolean) => void;
}

/** What a store reports for the periodic statistics dump (`stats.enable`). */
export interface StoreStats {
  /** Entries held (LMDB: committed entries plus the writes not yet committed, so approximate). */
  entries: number;
  /** Bytes used on disk (persistent stores only). */
  sizeBytes?: number;
  /** Writes (puts and deletes) since the store was opened. */
  puts: number;
  /** Point reads since the store was opened. */
  gets: number;
  /** Iterators handed out and not closed yet (Kafka Streams' num-open-iterators). */
  openIterators: number;
}

export type StoreType =
  | 'key_value'
  | 'timestamped_key_value'
  | 'window'
  | 'timestamped_window'
  | 'session'
  | 'versioned_key_value';

/** Every store, whatever its type. */
export interface StateStore {
  readonly name: string;
  readonly type: StoreType;
  readonly persistent: boolean;
  init(context: StoreContext): void;
  /** Makes every write durable (LMDB: waits for the pending transaction to be committed). */
  flush(): Promise<void>;
  close(): Promise<void>;
  isOpen(): boolean;
  /** Applies a batch of changelog records during restoration, without logging them again. */
  restore(records: ChangelogRecords): void;
  /** Removes every entry (used before a full restoration of a store whose local state was wiped). */
  clear(): void;
  /** Counters for the statistics dump; every store Sluice builds has them. */
  stats?(): StoreStats | undefined;
}

/** One update a caching store writes through to the store below it when its cache is flushed. */
export interface CachedUpdate<K, V> {
  key: K;
  newValue: V | null;
  /** What the store held before: null when the key was absent, or when old values were not asked for. */
  oldValue: V | null;
  /** Timestamp of the record that made the update. */
  timestamp: number;
  /** Headers of that record. */
  headers: unknown;
}

/**
 * A store with a caching layer (Kafka Streams' `CachingKeyValueStore` and its window and session kin): reads see
 * the cached writes; writes reach the store below (and its changelog) when the cache is flushed at commit or is
 * full, one per key. The processor that owns the store forwards the written updates from its flush listener.
 */
export interface CachingStore<K, V> {
  /**
   * Called for every update written through, except a deletion of a key the store never held (Kafka Streams
   * forwards neither). `sendOldValues`: read the old value of every update, not only of deletions.
   */
  setFlushListener(listener: (update: CachedUpdate<K, V>) => void, sendOldValues: boolean): void;
  /** Writes the cached updates through to the store below, in the order of their last update. */
  flushCache(): void;
}

export function isCachingStore(store: StateStore): store is StateStore & CachingStore<unknown, unknown> {
  return typeof (store as Partial<CachingStore<unknown, unknown>>).flushCache === 'function';
}

/** Read-only view of a key-value store: what interactive queries use. */
export interface ReadOnlyKeyValueStore<K, V> {
  get(key: K): V | undefined;
  /** Inclusive bounds, in the byte order of the serialized keys; undefined bound = open. */
  range(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>>;
  reverseRange(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>>;
  all(): StoreIterator<KeyValue<K, V>>;
  reverseAll(): StoreIterator<KeyValue<K, V>>;
  /** Entries whose serialized key starts with the serialized prefix. */
  prefixScan<P>(prefix: P, prefixSerializer: { serialize(p: P): Buffer }): StoreIterator<KeyValue<K, V>>;
  approximateNumEntries(): number;
}

/**
 * A key-value store. `VS` is the type of `valueSerde`: the value type itself, except for timestamped stores whose
 * values are `ValueAndTimestamp<VS>`. The serdes let the query layer decode JSON keys and encode results.
 */
export interface KeyValueStore<K, V, VS = V> extends StateStore, ReadOnlyKeyValueStore<K, V> {
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<VS>;
  put(key: K, value: V | null): void;
  putIfAbsent(key: K, value: V): V | undefined;
  putAll(entries: KeyValue<K, V | null>[]): void;
  delete(key: K): V | undefined;
}

/**
 * An entry of a resumable scan of a window or session store, with its position in the scan's order: the 8-byte
 * big-endian id of its time segment, then its store key. Scans read segment by segment, oldest first, and each
 * segment in store-key order, so positions in unsigned byte order are the scan's order: a scan resumed after a
 * position starts at its segment and key, without reading what comes before.
 */
export interface PositionedEntry<K, V> extends KeyValue<K, V> {
  position: Buffer;
}

/** What a resumable window scan reads: the windows of `key`, or of keys in [keyFrom, keyTo] (undefined: open), starting within [timeFrom, timeTo]. */
export interface WindowScan<K> {
  key?: K;
  keyFrom?: K;
  keyTo?: K;
  timeFrom: number;
  timeTo: number;
}

/** What a resumable session scan reads: every session of `key`, or of keys in [keyFrom, keyTo] (undefined: open). */
export interface SessionScan<K> {
  key?: K;
  keyFrom?: K;
  keyTo?: K;
}

/** Read-only view of a window store. Times in epoch ms, inclusive bounds, as in Kafka Streams. */
export interface ReadOnlyWindowStore<K, V> {
  /** The value of the window of `key` that starts exactly at `windowStart`. */
  fetch(key: K, windowStart: number): V | undefined;
  /** Windows of `key` starting within [timeFrom, timeTo], as (windowStart, value), oldest first. */
  fetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>>;
  backwardFetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>>;
  /** Windows of keys in [keyFrom, keyTo] starting within [timeFrom, timeTo]. */
  fetchKeyRange(
    keyFrom: K | undefined,
    keyTo: K | undefined,
    timeFrom: number,
    timeTo: number,
  ): StoreIterator<KeyValue<Windowed<K>, V>>;
  backwardFetchKeyRange(
    keyFrom: K | undefined,
    keyTo: K | undefined,
    timeFrom: number,
    timeTo: number,
  ): StoreIterator<KeyValue<Windowed<K>, V>>;
  fetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>>;
  backwardFetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>>;
  all(): StoreIterator<KeyValue<Windowed<K>, V>>;
  backwardAll(): StoreIterator<KeyValue<Windowed<K>, V>>;
  /** The scan's windows, oldest segment first, each with its position; `after`: only those after that position. */
  resumableScan(scan: WindowScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>>;
}

/** Values with the timestamp of their record; stored as `[8-byte BE timestamp][value bytes]`. */
export type TimestampedKeyValueStore<K, V> = KeyValueStore<K, ValueAndTimestamp<V>, V>;

/** A window store; `VS` as for KeyValueStore. */
export interface WindowStore<K, V, VS = V> extends StateStore, ReadOnlyWindowStore<K, V> {
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<VS>;
  /** Writes (or with null deletes) the window of `key` starting at `windowStart`. */
  put(key: K, value: V | null, windowStart: number): void;
  readonly windowSize: number;
  readonly retentionPeriod: number;
}

/** Read-only view of a session store. */
export interface ReadOnlySessionStore<K, V> {
  /** Every session of `key`, oldest first. */
  fetch(key: K): StoreIterator<KeyValue<Windowed<K>, V>>;
  fetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined): StoreIterator<KeyValue<Windowed<K>, V>>;
  /** Sessions of `key` that end at or after `earliestSessionEndTime` and start at or before `latestSessionStartTime`. */
  findSessions(key: K, earliestSessionEndTime: number, latestSessionStartTime: number): StoreIterator<KeyValue<Windowed<K>, V>>;
  fetchSession(key: K, sessionStart: number, sessionEnd: number): V | undefined;
  /** The scan's sessions, oldest segment (of their ends) first, each with its position; `after`: only those after that position. */
  resumableScan(scan: SessionScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>>;
}

export type TimestampedWindowStore<K, V> = WindowStore<K, ValueAndTimestamp<V>, V>;

export interface SessionStore<K, V> extends StateStore, ReadOnlySessionStore<K, V> {
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<V>;
  put(session: Windowed<K>, value: V): void;
  remove(session: Windowed<K>): void;
  readonly retentionPeriod: number;
}

/** One version of a key in a versioned store: valid from `timestamp` (inclusive) until `validTo` (exclusive; absent for the latest). */
export interface VersionedRecord<V> {
  value: V;
  timestamp: number;
  validTo?: number;
}

/** Read-only view of a versioned key-value store. */
export interface ReadOnlyVersionedKeyValueStore<K, V> {
  /** The latest version of `key`; with `asOfTimestamp`, the version valid at that time (undefined past the history retention). */
  get(key: K, asOfTimestamp?: number): VersionedRecord<V> | undefined;
}

/**
 * A versioned key-value store (Kafka Streams' `VersionedKeyValueStore`, KIP-889): each key keeps its past versions
 * for `historyRetention` ms of stream time.
 */
export interface VersionedKeyValueStore<K, V> extends StateStore, ReadOnlyVersionedKeyValueStore<K, V> {
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<V>;
  readonly historyRetention: number;
  /**
   * Adds a version (null: a deletion) valid from `timestamp`. Returns the version's validTo: -1 when it is the latest
   * (`PUT_RETURN_CODE_VALID_TO_UNDEFINED`), `PUT_RETURN_CODE_NOT_PUT` when it was older than the history retention.
   */
  put(key: K, value: V | null, timestamp: number): number;
  /** A deletion at `timestamp`; returns the version that was valid then. */
  delete(key: K, timestamp: number): VersionedRecord<V> | undefined;
  approximateNumEntries(): number;
}
