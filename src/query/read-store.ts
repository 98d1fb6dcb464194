import { IllegalState, InvalidStateStore } from '../errors';
import type { Serde } from '../streams/serdes/serde';
import type {
  KeyValue,
  PositionedEntry,
  ReadOnlyKeyValueStore,
  ReadOnlySessionStore,
  ReadOnlyWindowStore,
  SessionScan,
  StateStore,
  ReadOnlyVersionedKeyValueStore,
  ValueAndTimestamp,
  Windowed,
  WindowScan,
} from '../streams/state/store';
import type { BoundQuery } from './bind';
import { familyOf, isTimestamped, pages } from './clauses';
import type { PartitionPosition } from './parts';

interface Serdes {
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
}
type KeyValueView = StateStore & Serdes & ReadOnlyKeyValueStore<unknown, unknown>;
type WindowView = StateStore & Serdes & ReadOnlyWindowStore<unknown, unknown> & { windowSize: number };
type SessionView = StateStore & Serdes & ReadOnlySessionStore<unknown, unknown>;
type VersionedView = StateStore & Serdes & ReadOnlyVersionedKeyValueStore<unknown, unknown>;

/**
 * A record of the answer from its key's JSON and its stored value: a timestamped store's value carries its
 * timestamp, shown only to a timestamped query. Built in one object literal: `all` makes one per stored entry.
 */
function recordJson(store: StateStore & Serdes, bound: BoundQuery): (key: unknown, stored: unknown) => object {
  const serde = store.valueSerde;
  if (!isTimestamped(store.type)) return (key, stored) => ({ key, value: serde.toJson(stored) });
  if (!isTimestamped(bound.request.type)) return (key, stored) => ({ key, value: serde.toJson((stored as ValueAndTimestamp<unknown>).value) });
  return (key, stored) => {
    const { value, timestamp } = stored as ValueAndTimestamp<unknown>;
    return { key, value: serde.toJson(value), timestamp };
  };
}

function windowedJson(serde: Serde<unknown>, key: unknown, start: number, end: number): unknown {
  return { key: serde.toJson(key), window_start: start, window_end: end };
}

function need<T>(value: T | undefined, what: string): T {
  // The parser requires every parameter of the clause, so a missing one is a bug here, not a bad request.
  if (value === undefined) throw new IllegalState(`query parameter ${what} is missing after validation`);
  return value;
}

/** What `recordsOf`'s map answers for an entry that is not a record of the answer. */
const SKIP = Symbol('skip');

/**
 * The records of one store partition, each entry mapped as it is read (SKIP: no record), then a check that the store
 * is still open: a store closed under a read (its task moved or closed in a rebalance) ends its iterators early,
 * which must not pass for the end of its records. One generator for all of it: `all` runs it once per entry.
 */
function* recordsOf<T>(store: StateStore, open: () => Iterable<T>, map: (entry: T) => unknown): Generator<unknown, void, undefined> {
  for (const entry of open()) {
    const record = map(entry);
    if (record !== SKIP) yield record;
  }
  if (!store.isOpen()) throw new InvalidStateStore(`store partition ${store.name} was closed while it was read (rebalance); records are missing`);
}

/**
 * Where a paged read stands in each partition: those it finished, and the last record it answered in the one it is
 * reading (its key, or its entry's position), made a position only once the read stops. Records are handed out one
 * at a time, so the last one mapped is the last one answered.
 */
class Paging {
  private readonly positions: Map<number, PartitionPosition>;
  private current: { partition: number; resumeAfter: (last: unknown) => PartitionPosition; last: unknown; answered: boolean } | undefined;

  constructor(
    given: readonly PartitionPosition[],
    private readonly partitions: readonly number[],
  ) {
    this.positions = new Map(given.map((position) => [position.partition, position]));
  }

  startOf(partition: number): PartitionPosition | undefined {
    return this.positions.get(partition);
  }

  /** `resumeAfter`: the position that resumes the partition after a record answered, from what `answered` was given. */
  enter<T>(partition: number, resumeAfter: (last: T) => PartitionPosition): void {
    this.current = { partition, resumeAfter: resumeAfter as (last: unknown) => PartitionPosition, last: undefined, answered: false };
  }

  answered(last: unknown): void {
    this.current!.last = last;
    this.current!.answered = true;
  }

  finish(partition: number): void {
    this.positions.set(partition, { partition, done: true });
    this.current = undefined;
  }

  /** The positions of this server's partitions once the read stopped, and whether all of them are done. */
  result(): { positions: PartitionPosition[]; complete: boolean } {
    const current = this.current;
    if (current?.answered) this.positions.set(current.partition, current.resumeAfter(current.last));
    const positions = this.partitions.map((p) => this.positions.get(p)).filter((p): p is PartitionPosition => p !== undefined);
    return { positions, complete: this.partitions.every((p) => this.positions.get(p)?.done === true) };
  }
}

function* readKeyValue(stores: readonly (readonly [number, KeyValueView])[], bound: BoundQuery, paging: Paging | undefined): Generator<unknown, void, undefined> {
  const { clause } = bound.request;
  if (clause === 'count') {
    yield { key: 'count', value: stores.reduce((sum, [, store]) => sum + store.approximateNumEntries(), 0) };
    return;
  }
  for (const [partition, store] of stores) {
    const record = recordJson(store, bound);
    const keys = store.keySerde;
    const start = paging?.startOf(partition);
    if (start?.done) continue;
    const resume = start?.afterKey === undefined ? undefined : keys.deserialize(start.afterKey);
    paging?.enter(partition, (key: unknown) => ({ partition, done: false, afterKey: keys.serialize(key) }));
    // A page resumes at the key it stopped after (ranges include their bounds): that first entry is skipped.
    let resumed = start?.afterKey;
    const entries = (open: () => Iterable<KeyValue<unknown, unknown>>) =>
      recordsOf(store, open, (kv) => {
        if (resumed !== undefined) {
          const skip = keys.serialize(kv.key).equals(resumed);
          resumed = undefined;
          if (skip) return SKIP;
        }
        paging?.answered(kv.key);
        return record(keys.toJson(kv.key), kv.value);
      });
    switch (clause) {
      case 'get': {
        const stored = store.get(bound.keys.key);
        if (stored !== undefined) yield record(keys.toJson(bound.keys.key), stored);
        break;
      }
      case 'range':
        yield* entries(() => store.range(resume ?? bound.keys.key_from, bound.keys.key_to));
        break;
      case 'reverse_range':
        yield* entries(() => store.reverseRange(bound.keys.key_from, resume ?? bound.keys.key_to));
        break;
      case 'all':
        yield* entries(() => (start === undefined ? store.all() : store.range(resume, undefined)));
        break;
      case 'reverse_all':
        yield* entries(() => (start === undefined ? store.reverseAll() : store.reverseRange(undefined, resume)));
        break;
      case 'prefix_scan': {
        const prefix = need(bound.prefixBytes, 'prefix');
        yield* entries(() => store.prefixScan(prefix, { serialize: (bytes: Buffer) => bytes }));
        break;
      }
      default:
        throw new IllegalState(`clause ${clause} reached a key-value store`);
    }
    paging?.finish(partition);
  }
}

/** The resumable scan of a window clause (every one but `fetch`). */
function windowScan(bound: BoundQuery): WindowScan<unknown> {
  const { clause } = bound.request;
  const { time_from: from, time_to: to } = bound.request.times;
  switch (clause) {
    case 'fetch_time_range':
      return { key: bound.keys.key, timeFrom: need(from, 'time_from'), timeTo: need(to, 'time_to') };
    case 'fetch_key_range':
      return { keyFrom: bound.keys.key_from, keyTo: bound.keys.key_to, timeFrom: need(from, 'time_from'), timeTo: need(to, 'time_to') };
    case 'fetch_all':
      return { timeFrom: need(from, 'time_from'), timeTo: need(to, 'time_to') };
    case 'all':
      return { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER };
    default:
      throw new IllegalState(`clause ${clause} reached a window store`);
  }
}

function sessionScan(bound: BoundQuery): SessionScan<unknown> {
  const { clause } = bound.request;
  if (clause === 'fetch') return { key: bound.keys.key };
  if (clause === 'fetch_key_range') return { keyFrom: bound.keys.key_from, keyTo: bound.keys.key_to };
  throw new IllegalState(`clause ${clause} reached a session store`);
}

/**
 * The scan of each partition as the API shows its records, resumed where the paging says: a window or session
 * scan reads each partition segment by segment, and a partition resumes right after the position of the last
 * entry it answered, without reading what comes before it.
 */
function* readScans<S extends StateStore & Serdes>(
  stores: readonly (readonly [number, S])[],
  paging: Paging | undefined,
  scan: (store: S, after: Buffer | undefined) => Iterable<PositionedEntry<Windowed<unknown>, unknown>>,
  record: (store: S) => (key: unknown, stored: unknown) => object,
): Generator<unknown, void, undefined> {
  for (const [partition, store] of stores) {
    const start = paging?.startOf(partition);
    if (start?.done) continue;
    const json = record(store);
    paging?.enter(partition, (position: Buffer) => ({ partition, done: false, afterEntry: position }));
    yield* recordsOf(store, () => scan(store, start?.afterEntry), (kv) => {
      paging?.answered(kv.position);
      return json(windowedJson(store.keySerde, kv.key.key, kv.key.window.start, kv.key.window.end), kv.value);
    });
    paging?.finish(partition);
  }
}

/** A versioned store's `get`: the latest version, or the one valid at `as_of`, with its validity (`valid_to` absent: still valid). */
function* readVersioned(stores: readonly (readonly [number, VersionedView])[], bound: BoundQuery): Generator<unknown, void, undefined> {
  const { clause } = bound.request;
  if (clause !== 'get') throw new IllegalState(`clause ${clause} reached a versioned store`);
  for (const [, store] of stores) {
    const version = store.get(bound.keys.key, bound.request.times.as_of);
    if (version === undefined) continue;
    const key = store.keySerde.toJson(bound.keys.key);
    const value = store.valueSerde.toJson(version.value);
    // A key_value query of a versioned store answers as of a plain store: the key and its latest value.
    if (bound.request.type !== 'versioned_key_value') {
      yield { key, value };
      continue;
    }
    yield version.validTo === undefined ? { key, value, timestamp: version.timestamp } : { key, value, timestamp: version.timestamp, valid_to: version.validTo };
  }
}

function* readWindow(stores: readonly (readonly [number, WindowView])[], bound: BoundQuery, paging: Paging | undefined): Generator<unknown, void, undefined> {
  if (bound.request.clause !== 'fetch') {
    const scan = windowScan(bound);
    yield* readScans(stores, paging, (store, after) => store.resumableScan(scan, after), (store) => recordJson(store, bound));
    return;
  }
  const start = need(bound.request.times.time, 'time');
  for (const [, store] of stores) {
    const stored = store.fetch(bound.keys.key, start);
    if (stored !== undefined) yield recordJson(store, bound)(windowedJson(store.keySerde, bound.keys.key, start, start + store.windowSize), stored);
  }
}

function readSession(stores: readonly (readonly [number, SessionView])[], bound: BoundQuery, paging: Paging | undefined): Generator<unknown, void, undefined> {
  const scan = sessionScan(bound);
  return readScans(
    stores,
    paging,
    (store, after) => store.resumableScan(scan, after),
    (store) => (key, stored) => ({ key, value: store.valueSerde.toJson(stored) }),
  );
}

function* upTo<T>(limit: number, source: Iterable<T>): Generator<T, void, undefined> {
  if (limit === 0) return;
  let count = 0;
  for (const item of source) {
    yield item;
    // Returning here closes the store iterator at once, not when the next record would be read.
    if (++count === limit) return;
  }
}

/** A read under way: its records, pulled lazily, and for a paged query where it stands once stopped. */
export interface StoreRead {
  records: Iterator<unknown, void, undefined>;
  paging: (() => { positions: PartitionPosition[]; complete: boolean }) | undefined;
}

/**
 * Reads a bound query on store partitions of one server, in the order given, lazily: store iterators are opened
 * one after the other as the records are pulled, and closed when the reader stops. The records are in the shapes
 * of the API: `{key, value}`, `timestamp` added for timestamped and versioned queries (and `valid_to` for a past
 * version), windowed keys as
 * `{key, window_start, window_end}`; `count` is one record for all the partitions. At most `limit` records. A
 * paged clause resumes each partition where the request's positions say and, with a limit, tells where it stopped.
 */
export function readRecords(partitions: readonly (readonly [number, StateStore])[], bound: BoundQuery): StoreRead {
  const { limit } = bound.request.options;
  const resumes = limit >= 0 || bound.request.positions.length > 0;
  const paging = resumes && pages(bound.storeType, bound.request.clause) ? new Paging(bound.request.positions, partitions.map(([p]) => p)) : undefined;
  let records: Generator<unknown, void, undefined>;
  switch (familyOf(bound.storeType)) {
    case 'key_value':
      records = readKeyValue(partitions as (readonly [number, KeyValueView])[], bound, paging);
      break;
    case 'window':
      records = readWindow(partitions as (readonly [number, WindowView])[], bound, paging);
      break;
    case 'session':
      records = readSession(partitions as (readonly [number, SessionView])[], bound, paging);
      break;
    case 'versioned':
      records = readVersioned(partitions as (readonly [number, VersionedView])[], bound);
      break;
  }
  return { records: limit < 0 ? records : upTo(limit, records), paging: paging && (() => paging.result()) };
}
