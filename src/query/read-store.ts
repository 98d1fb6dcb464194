import { IllegalState, InvalidStateStore } from '../errors';
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
import { mapIterable } from '../streams/state/store-iterators';

interface Serdes {
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
}
type KeyValueView = StateStore & Serdes & ReadOnlyKeyValueStore<unknown, unknown>;
type WindowView = StateStore & Serdes & ReadOnlyWindowStore<unknown, unknown> & { windowSize: number };
type SessionView = StateStore & Serdes & ReadOnlySessionStore<unknown, unknown>;

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

/**
 * Entries of one store partition, then a check that it is still open: a store closed under a read (its task moved
 * or closed in a rebalance) ends its iterators early, which must not pass for the end of its records.
 */
function* entriesOf<T>(store: StateStore, open: () => Iterable<T>): Generator<T, void, undefined> {
  yield* open();
  if (!store.isOpen()) throw new InvalidStateStore(`store partition ${store.name} was closed while it was read (rebalance); records are missing`);
}

function* readKeyValue(stores: readonly KeyValueView[], bound: BoundQuery): Generator<unknown, void, undefined> {
  const { clause } = bound.request;
  if (clause === 'count') {
    yield { key: 'count', value: stores.reduce((sum, store) => sum + store.approximateNumEntries(), 0) };
    return;
  }
  for (const store of stores) {
    const record = recordJson(store, bound);
    const keys = store.keySerde;
    const entries = (open: () => Iterable<KeyValue<unknown, unknown>>) => mapIterable(entriesOf(store, open), (kv) => record(keys.toJson(kv.key), kv.value));
    switch (clause) {
      case 'get': {
        const stored = store.get(bound.keys.key);
        if (stored !== undefined) yield record(keys.toJson(bound.keys.key), stored);
        break;
      }
      case 'range':
        yield* entries(() => store.range(bound.keys.key_from, bound.keys.key_to));
        break;
      case 'reverse_range':
        yield* entries(() => store.reverseRange(bound.keys.key_from, bound.keys.key_to));
        break;
      case 'all':
        yield* entries(() => store.all());
        break;
      case 'reverse_all':
        yield* entries(() => store.reverseAll());
        break;
      case 'prefix_scan': {
        const prefix = need(bound.prefixBytes, 'prefix');
        yield* entries(() => store.prefixScan(prefix, { serialize: (bytes: Buffer) => bytes }));
        break;
      }
      default:
        throw new IllegalState(`clause ${clause} reached a key-value store`);
    }
  }
}

function* readWindow(stores: readonly WindowView[], bound: BoundQuery): Generator<unknown, void, undefined> {
  const { clause } = bound.request;
  const { time, time_from: from, time_to: to } = bound.request.times;
  for (const store of stores) {
    const record = recordJson(store, bound);
    const keys = store.keySerde;
    const entries = (open: () => Iterable<KeyValue<Windowed<unknown>, unknown>>) =>
      mapIterable(entriesOf(store, open), (kv) => record(windowedJson(keys, kv.key.key, kv.key.window.start, kv.key.window.end), kv.value));
    switch (clause) {
      case 'fetch': {
        const start = need(time, 'time');
        const stored = store.fetch(bound.keys.key, start);
        if (stored !== undefined) yield record(windowedJson(keys, bound.keys.key, start, start + store.windowSize), stored);
        break;
      }
      case 'fetch_time_range':
        yield* mapIterable(
          entriesOf(store, () => store.fetchRange(bound.keys.key, need(from, 'time_from'), need(to, 'time_to'))),
          (kv: KeyValue<number, unknown>) => record(windowedJson(keys, bound.keys.key, kv.key, kv.key + store.windowSize), kv.value),
        );
        break;
      case 'fetch_key_range':
        yield* entries(() => store.fetchKeyRange(bound.keys.key_from, bound.keys.key_to, need(from, 'time_from'), need(to, 'time_to')));
        break;
      case 'fetch_all':
        yield* entries(() => store.fetchAll(need(from, 'time_from'), need(to, 'time_to')));
        break;
      case 'all':
        yield* entries(() => store.all());
        break;
      default:
        throw new IllegalState(`clause ${clause} reached a window store`);
    }
  }
}

function* readSession(stores: readonly SessionView[], bound: BoundQuery): Generator<unknown, void, undefined> {
  const { clause } = bound.request;
  for (const store of stores) {
    const entries = (open: () => Iterable<KeyValue<Windowed<unknown>, unknown>>) =>
      mapIterable(entriesOf(store, open), (kv) => ({
        key: windowedJson(store.keySerde, kv.key.key, kv.key.window.start, kv.key.window.end),
        value: store.valueSerde.toJson(kv.value),
      }));
    switch (clause) {
      case 'fetch':
        yield* entries(() => store.fetch(bound.keys.key));
        break;
      case 'fetch_key_range':
        yield* entries(() => store.fetchKeyRange(bound.keys.key_from, bound.keys.key_to));
        break;
      default:
        throw new IllegalState(`clause ${clause} reached a session store`);
    }
  }
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

/**
 * Reads a bound query on store partitions of one server, in the order given, lazily: store iterators are opened
 * one after the other as the records are pulled, and closed when the reader stops. The records are in the shapes
 * of the API: `{key, value}`, `timestamp` added for timestamped queries, windowed keys as
 * `{key, window_start, window_end}`; `count` is one record for all the partitions. At most `limit` records.
 */
export function readRecords(stores: readonly StateStore[], bound: BoundQuery): Iterator<unknown, void, undefined> & Iterable<unknown> {
  let records: Iterable<unknown>;
  switch (familyOf(bound.storeType)) {
    case 'key_value':
      records = readKeyValue(stores as KeyValueView[], bound);
      break;
    case 'window':
      records = readWindow(stores as WindowView[], bound);
      break;
    case 'session':
      records = readSession(stores as SessionView[], bound);
      break;
  }
  const { limit } = bound.request.options;
  return limit < 0 ? (records as Generator<unknown, void, undefined>) : upTo(limit, records);
}
