import { IllegalState } from '../errors';
import type { Serde } from '../streams/serdes/serde';
import type {
  KeyValue,
  ReadOnlyKeyValueStore,
  ReadOnlySessionStore,
  ReadOnlyWindowStore,
  StateStore,
  ValueAndTimestamp,
  Windowed,
} from '../streams/state/store';
import type { BoundQuery } from './bind';
import { familyOf, isTimestamped } from './clauses';

interface Serdes {
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
}
type KeyValueView = StateStore & Serdes & ReadOnlyKeyValueStore<unknown, unknown>;
type WindowView = StateStore & Serdes & ReadOnlyWindowStore<unknown, unknown> & { windowSize: number };
type SessionView = StateStore & Serdes & ReadOnlySessionStore<unknown, unknown>;

/** Collects records up to the query's limit; iterators are only opened while there is room, and closed when full. */
class Records {
  readonly list: unknown[] = [];

  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.limit >= 0 && this.list.length >= this.limit;
  }

  add(record: unknown): void {
    if (!this.full) this.list.push(record);
  }

  drain<T>(open: () => Iterable<T>, toRecord: (item: T) => unknown): void {
    if (this.full) return;
    for (const item of open()) {
      this.list.push(toRecord(item));
      if (this.full) break;
    }
  }
}

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

function readKeyValue(stores: readonly KeyValueView[], bound: BoundQuery, out: Records): void {
  const { clause } = bound.request;
  if (clause === 'count') {
    out.add({ key: 'count', value: stores.reduce((sum, store) => sum + store.approximateNumEntries(), 0) });
    return;
  }
  for (const store of stores) {
    const record = recordJson(store, bound);
    const toRecord = (kv: KeyValue<unknown, unknown>) => record(store.keySerde.toJson(kv.key), kv.value);
    switch (clause) {
      case 'get': {
        const stored = store.get(bound.keys.key);
        if (stored !== undefined) out.add(record(store.keySerde.toJson(bound.keys.key), stored));
        break;
      }
      case 'range':
        out.drain(() => store.range(bound.keys.key_from, bound.keys.key_to), toRecord);
        break;
      case 'reverse_range':
        out.drain(() => store.reverseRange(bound.keys.key_from, bound.keys.key_to), toRecord);
        break;
      case 'all':
        out.drain(() => store.all(), toRecord);
        break;
      case 'reverse_all':
        out.drain(() => store.reverseAll(), toRecord);
        break;
      case 'prefix_scan': {
        const prefix = need(bound.prefixBytes, 'prefix');
        out.drain(() => store.prefixScan(prefix, { serialize: (bytes: Buffer) => bytes }), toRecord);
        break;
      }
      default:
        throw new IllegalState(`clause ${clause} reached a key-value store`);
    }
  }
}

function readWindow(stores: readonly WindowView[], bound: BoundQuery, out: Records): void {
  const { clause } = bound.request;
  const { time, time_from: from, time_to: to } = bound.request.times;
  for (const store of stores) {
    const record = recordJson(store, bound);
    const keys = store.keySerde;
    const toRecord = (kv: KeyValue<Windowed<unknown>, unknown>) => record(windowedJson(keys, kv.key.key, kv.key.window.start, kv.key.window.end), kv.value);
    switch (clause) {
      case 'fetch': {
        const start = need(time, 'time');
        const stored = store.fetch(bound.keys.key, start);
        if (stored !== undefined) out.add(record(windowedJson(keys, bound.keys.key, start, start + store.windowSize), stored));
        break;
      }
      case 'fetch_time_range':
        out.drain(
          () => store.fetchRange(bound.keys.key, need(from, 'time_from'), need(to, 'time_to')),
          (kv: KeyValue<number, unknown>) => record(windowedJson(keys, bound.keys.key, kv.key, kv.key + store.windowSize), kv.value),
        );
        break;
      case 'fetch_key_range':
        out.drain(() => store.fetchKeyRange(bound.keys.key_from, bound.keys.key_to, need(from, 'time_from'), need(to, 'time_to')), toRecord);
        break;
      case 'fetch_all':
        out.drain(() => store.fetchAll(need(from, 'time_from'), need(to, 'time_to')), toRecord);
        break;
      case 'all':
        out.drain(() => store.all(), toRecord);
        break;
      default:
        throw new IllegalState(`clause ${clause} reached a window store`);
    }
  }
}

function readSession(stores: readonly SessionView[], bound: BoundQuery, out: Records): void {
  const { clause } = bound.request;
  for (const store of stores) {
    const toRecord = (kv: KeyValue<Windowed<unknown>, unknown>) => ({
      key: windowedJson(store.keySerde, kv.key.key, kv.key.window.start, kv.key.window.end),
      value: store.valueSerde.toJson(kv.value),
    });
    switch (clause) {
      case 'fetch':
        out.drain(() => store.fetch(bound.keys.key), toRecord);
        break;
      case 'fetch_key_range':
        out.drain(() => store.fetchKeyRange(bound.keys.key_from, bound.keys.key_to), toRecord);
        break;
      default:
        throw new IllegalState(`clause ${clause} reached a session store`);
    }
  }
}

/**
 * Runs a bound query on store partitions of one server, in the order given, and answers the records in the shapes
 * of the API: `{key, value}`, `timestamp` added for timestamped queries, windowed keys as
 * `{key, window_start, window_end}`; `count` is one record for all the partitions. At most `limit` records.
 */
export function readStores(stores: readonly StateStore[], bound: BoundQuery): unknown[] {
  const out = new Records(bound.request.options.limit);
  switch (familyOf(bound.storeType)) {
    case 'key_value':
      readKeyValue(stores as KeyValueView[], bound, out);
      break;
    case 'window':
      readWindow(stores as WindowView[], bound, out);
      break;
    case 'session':
      readSession(stores as SessionView[], bound, out);
      break;
  }
  return out.list;
}
