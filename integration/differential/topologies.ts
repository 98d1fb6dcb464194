import type { FixedKeyProcessorContext, FixedKeyProcessorSupplier, ProcessorContext } from '../../src/streams/processor/processor';
import type { FixedKeyRecord } from '../../src/streams/processor/record';
import { Serdes } from '../../src/streams/serdes/serdes';
import type {
  KeyValue,
  KeyValueStore,
  SessionStore,
  StoreIterator,
  TimestampedKeyValueStore,
  TimestampedWindowStore,
  ValueAndTimestamp,
  WindowStore,
  Windowed,
} from '../../src/streams/state/store';
import { Stores } from '../../src/streams/state/stores';
import type { KStream } from '../../src/streams/kstream/kstream';
import type { KTable } from '../../src/streams/kstream/ktable';
import { Joined, Materialized } from '../../src/streams/kstream/options';
import type { StreamsBuilder } from '../../src/streams/kstream/streams-builder';
import { BufferConfig, Suppressed } from '../../src/streams/kstream/suppressed';
import { JoinWindows, SessionWindows, SlidingWindows, TimeWindows } from '../../src/streams/kstream/windows';

/**
 * The differential suite's topologies, by name, built in Sluice exactly as KafkaStreamsDriver.java builds them in
 * Kafka Streams. Keys and values are strings unless a sink says Long; windowed keys are written as
 * `<key>@<start>/<end>` so that both sides print them alike.
 */
export type TopologyName = keyof typeof TOPOLOGIES;

const windowed = (key: Windowed<string>): string => `${key.key}@${key.window.start}/${key.window.end}`;
const joined = (left: string | null, right: string | null): string => `${left}+${right}`;
const long = { valueSerde: Serdes.Long() };
const strings = { keySerde: Serdes.String(), valueSerde: Serdes.String() };

function windowedOut<V>(table: KTable<Windowed<string>, V>): KStream<string, V> {
  return table.toStream().selectKey((key) => windowed(key));
}

export const TOPOLOGIES = {
  tumbling: (b: StreamsBuilder): void => {
    windowedOut(b.stream<string, string>('in').groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(10_000, 5_000)).count()).to('out', long);
  },
  hopping: (b: StreamsBuilder): void => {
    const table = b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10_000, 2_000).advanceBy(5_000))
      .aggregate(() => '', (_k, v, a) => a + v, strings);
    windowedOut(table).to('out');
  },
  sliding: (b: StreamsBuilder): void => {
    const windows = b.stream<string, string>('in').groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5_000, 2_000));
    windowedOut(windows.reduce((a, v) => a + v)).to('out');
    windowedOut(windows.count()).to('count', long);
  },
  session: (b: StreamsBuilder): void => {
    const sessions = b.stream<string, string>('in').groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(5_000, 2_000));
    windowedOut(sessions.aggregate(() => '', (_k, v, a) => a + v, (_k, a, c) => a + c, strings)).to('out');
    windowedOut(sessions.count()).to('count', long);
  },
  'suppress-window-close': (b: StreamsBuilder): void => {
    const counts = b.stream<string, string>('in').groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(10_000, 2_000)).count({ keySerde: Serdes.String(), valueSerde: Serdes.Long() });
    windowedOut(counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))).to('out', long);
  },
  'suppress-time-limit': (b: StreamsBuilder): void => {
    b.table<string, string>('t').suppress(Suppressed.untilTimeLimit(3_000, BufferConfig.maxRecords(100))).toStream().to('out');
    b.stream<string, string>('in').groupByKey().count().suppress(Suppressed.untilTimeLimit(3_000, BufferConfig.unbounded())).toStream().to('count', long);
  },
  'stream-stream-join': (b: StreamsBuilder): void => {
    const left = b.stream<string, string>('left');
    const right = b.stream<string, string>('right');
    const window = JoinWindows.ofTimeDifferenceAndGrace(5_000, 2_000);
    left.join(right, joined, window).to('inner');
    left.leftJoin(right, joined, window).to('left-out');
    left.outerJoin(right, joined, window).to('outer');
  },
  'stream-table-join': (b: StreamsBuilder): void => {
    const table = b.table<string, string>('t');
    const stream = b.stream<string, string>('s');
    stream.join(table, joined).to('inner');
    stream.leftJoin(table, joined).to('left-out');
  },
  'table-table-join': (b: StreamsBuilder): void => {
    const a = b.table<string, string>('a');
    const c = b.table<string, string>('b');
    a.join(c, joined).toStream().to('inner');
    a.leftJoin(c, joined).toStream().to('left-out');
    a.outerJoin(c, joined).toStream().to('outer');
  },
  'foreign-key-join': (b: StreamsBuilder): void => {
    const left = b.table<string, string>('left');
    const right = b.table<string, string>('right');
    const fk = (v: string): string | null => (v.includes(':') ? v.split(':')[0]! : null);
    left.join(right, fk, joined).toStream().to('inner');
    left.leftJoin(right, fk, joined).toStream().to('left-out');
    left.join(right, fk, joined, { name: 'fk', materialized: { storeName: 'fk-store' } }).toStream().to('materialized');
    left.filter((_k, v) => !v.endsWith('!')).leftJoin(right.mapValues((v) => v.toUpperCase()), fk, joined).toStream().to('derived');
  },
  'table-aggregations': (b: StreamsBuilder): void => {
    const regrouped = b.table<string, string>('t').groupBy((key, value) => ({ key: value, value: key }));
    regrouped.count().toStream().to('count', long);
    regrouped.reduce((a, v) => a + v, (a, v) => `${a}-${v}`).toStream().to('reduce');
    regrouped.aggregate(() => '', (_k, v, a) => `${a}+${v}`, (_k, v, a) => `${a}-${v}`, strings).toStream().to('aggregate');
  },
  'table-filter-map': (b: StreamsBuilder): void => {
    const table = b.table<string, string>('t');
    table.filter((_k, v) => !v.startsWith('x')).mapValues((v) => v.toUpperCase()).toStream().to('out');
    table.filterNot((_k, v) => v.startsWith('x'), undefined, { storeName: 'kept' }).toStream().to('materialized');
  },
  'word-count': (b: StreamsBuilder): void => {
    const words = b.stream<string, string>('in').flatMapValues((v) => v.split(' '));
    words.groupBy((_k, v) => v).count().toStream().to('by-word', long);
    words.groupByKey().count().toStream().to('by-key', long);
  },
  cogroup: (b: StreamsBuilder): void => {
    const clicks = b.stream<string, string>('clicks').groupByKey();
    const views = b.stream<string, string>('views').groupBy((_k, v) => v);
    const cogrouped = clicks.cogroup((_k, v, a: string) => `${a}c${v}`).cogroup(views, (_k, _v, a) => `${a}v`);
    cogrouped.aggregate(() => '', strings).toStream().to('out');
    windowedOut(cogrouped.windowedBy(TimeWindows.ofSizeAndGrace(10_000, 2_000)).aggregate(() => '', strings)).to('windowed');
    windowedOut(cogrouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5_000, 2_000)).aggregate(() => '', strings)).to('sliding');
    windowedOut(cogrouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(5_000, 10_000)).aggregate(() => '', (_k, a, c) => `${a}|${c}`, strings)).to('session');
  },
  'global-table': (b: StreamsBuilder): void => {
    const users = b.globalTable<string, string>('users');
    const orders = b.stream<string, string>('orders');
    orders.join(users, (_k, v) => v, joined).to('inner');
    orders.leftJoin(users, (_k, v) => v, joined).to('left-out');
  },
  'versioned-table': (b: StreamsBuilder): void => {
    const table = b.table<string, string>('t', {}, Materialized.as(Stores.persistentVersionedKeyValueStore('versions', 5_000)));
    table.toStream().to('out');
    table.mapValues((v) => v.toUpperCase()).toStream().to('mapped');
    table.groupBy((key, value) => ({ key: value, value: key })).count().toStream().to('count', long);
    b.stream<string, string>('u').toTable(undefined, Materialized.as(Stores.persistentVersionedKeyValueStore('u-versions', 5_000))).toStream().to('u-out');
  },
  'versioned-stream-table-join': (b: StreamsBuilder): void => {
    const table = b.table<string, string>('t', {}, Materialized.as(Stores.persistentVersionedKeyValueStore('versions', 10_000, 2_000)));
    const stream = b.stream<string, string>('s');
    stream.join(table, joined).to('inner');
    stream.leftJoin(table, joined).to('left-out');
    // A filter of a versioned table is read as of a time too, through the table's store.
    stream.join(table.filter((_k, v) => !v.endsWith('2')), joined).to('filtered');
  },
  'versioned-join-grace': (b: StreamsBuilder): void => {
    const table = b.table<string, string>('t', {}, Materialized.as(Stores.persistentVersionedKeyValueStore('versions', 10_000)));
    const stream = b.stream<string, string>('s');
    stream.join(table, joined, Joined.withGracePeriod(2_000)).to('inner');
    stream.leftJoin(table, joined, { gracePeriodMs: 2_000 }).to('left-out');
  },
  // One Processor API store of each cached kind: each record is written into the store, then every read the store
  // offers is forwarded as text, so that reads through the cache, past the store's retention too, are compared.
  'cached-key-value': (b: StreamsBuilder): void => {
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('kv'), Serdes.String(), Serdes.String()).withCachingEnabled());
    b.stream<string, string>('in').processValues(reads<KeyValueStore<string, string>>('kv', keyValueReads), { stores: ['kv'] }).to('out');
  },
  'cached-timestamped-key-value': (b: StreamsBuilder): void => {
    const builder = Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore('tkv'), Serdes.String(), Serdes.String());
    b.addStateStore(builder.withCachingEnabled());
    b.stream<string, string>('in').processValues(reads<TimestampedKeyValueStore<string, string>>('tkv', timestampedKeyValueReads), { stores: ['tkv'] }).to('out');
  },
  'cached-window': (b: StreamsBuilder): void => {
    b.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore('win', 10_000, 5_000, false), Serdes.String(), Serdes.String()).withCachingEnabled());
    b.stream<string, string>('in').processValues(reads<WindowStore<string, string>>('win', windowReads), { stores: ['win'] }).to('out');
  },
  'cached-timestamped-window': (b: StreamsBuilder): void => {
    const supplier = Stores.persistentTimestampedWindowStore('twin', 10_000, 5_000, false);
    b.addStateStore(Stores.timestampedWindowStoreBuilder(supplier, Serdes.String(), Serdes.String()).withCachingEnabled());
    b.stream<string, string>('in').processValues(reads<TimestampedWindowStore<string, string>>('twin', timestampedWindowReads), { stores: ['twin'] }).to('out');
  },
  'cached-session': (b: StreamsBuilder): void => {
    b.addStateStore(Stores.sessionStoreBuilder(Stores.persistentSessionStore('ses', 10_000), Serdes.String(), Serdes.String()).withCachingEnabled());
    b.stream<string, string>('in').processValues(reads<SessionStore<string, string>>('ses', sessionReads), { stores: ['ses'] }).to('out');
  },
  processors: (b: StreamsBuilder): void => {
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('seen'), Serdes.String(), Serdes.Long()));
    const input = b.stream<string, string>('in');
    const values = input.processValues(runningCount, { stores: ['seen'] });
    values.to('values');
    values.groupByKey().count().toStream().to('values-count', long);
    const rekeyed = input.process<string, string>(() => {
      let context: ProcessorContext<string, string>;
      return {
        init: (c) => {
          context = c;
        },
        process: (record) => {
          if (record.value !== null) context.forward({ key: record.value, value: record.key, timestamp: record.timestamp + 1, headers: record.headers });
        },
      };
    });
    rekeyed.to('rekeyed');
    rekeyed.groupByKey().count().toStream().to('rekeyed-count', long);
  },
} satisfies Record<string, (builder: StreamsBuilder) => void>;

/**
 * The fixed-key processor of `processors`: counts each key's records in the store `seen` and appends the count to
 * the value; every 5 s of stream time it forwards the latest record again as a tick.
 */
const runningCount: FixedKeyProcessorSupplier<string | null, string | null, string> = () => {
  let context: FixedKeyProcessorContext<string | null, string>;
  let seen: KeyValueStore<string, number>;
  let latest: FixedKeyRecord<string | null, string | null> | undefined;
  return {
    init: (c) => {
      context = c;
      seen = c.getStateStore<KeyValueStore<string, number>>('seen');
      c.schedule(5_000, 'STREAM_TIME', (time) => {
        if (latest !== undefined) context.forward(latest.withValue(`tick@${time}`).withTimestamp(time));
      });
    },
    process: (record) => {
      if (record.key === null) {
        context.forward(record.withValue(`${record.value}#-`));
        return;
      }
      const count = (seen.get(record.key) ?? 0) + 1;
      seen.put(record.key, count);
      latest = record;
      context.forward(record.withValue(`${record.value}#${count}`));
    },
  };
};

/** A record of the cached-store topologies: its key is never null there. */
interface Written {
  key: string;
  value: string | null;
  timestamp: number;
}

/**
 * The fixed-key processor of the cached-store topologies: `readsOf` writes the record into the store, then gives
 * what the store's reads return, which are forwarded joined by ' | '. Records with a null key are skipped.
 */
function reads<S>(storeName: string, readsOf: (store: S, record: Written) => string[]): FixedKeyProcessorSupplier<string | null, string | null, string> {
  return () => {
    let context: FixedKeyProcessorContext<string | null, string>;
    let store: S;
    return {
      init: (c) => {
        context = c;
        store = c.getStateStore<S>(storeName);
      },
      process: (record) => {
        if (record.key === null) return;
        const parts = readsOf(store, { key: record.key, value: record.value, timestamp: record.timestamp });
        context.forward(record.withValue(parts.join(' | ')));
      },
    };
  };
}

const listed = <K, V>(iterator: StoreIterator<KeyValue<K, V>>, show: (entry: KeyValue<K, V>) => string): string => [...iterator].map(show).join(',');
const stamped = (value: ValueAndTimestamp<string> | undefined): string => (value === undefined ? '-' : `${value.value}@${value.timestamp}`);
const windowStart = (timestamp: number): number => timestamp - (timestamp % 5_000);

/** A null value deletes the key; reads: all, a reverse range, a prefix scan (the key's first letter), get. */
function keyValueReads(store: KeyValueStore<string, string>, { key, value }: Written): string[] {
  if (value === null) store.delete(key);
  else store.put(key, value);
  const show = (entry: KeyValue<string, string>): string => `${entry.key}=${entry.value}`;
  return [listed(store.all(), show), listed(store.reverseRange('b', 'd'), show), listed(store.prefixScan(key.slice(0, 1), Serdes.String()), show), store.get(key) ?? '-'];
}

/** Only a record as new as the key's value replaces it (a null value deletes it); reads: all, reverseAll, get. */
function timestampedKeyValueReads(store: TimestampedKeyValueStore<string, string>, { key, value, timestamp }: Written): string[] {
  const current = store.get(key);
  if (current === undefined || timestamp >= current.timestamp) store.put(key, value === null ? null : { value, timestamp });
  const show = (entry: KeyValue<string, ValueAndTimestamp<string>>): string => `${entry.key}=${stamped(entry.value)}`;
  return [listed(store.all(), show), listed(store.reverseAll(), show), stamped(store.get(key))];
}

const showWindow = (entry: KeyValue<Windowed<string>, string>): string => `${windowed(entry.key)}=${entry.value}`;

/**
 * The record's value is appended to its 5 s window's (a null value deletes the window); reads: the key's windows
 * up to the record, backwards too, every window, a key range, and the record's window.
 */
function windowReads(store: WindowStore<string, string>, { key, value, timestamp }: Written): string[] {
  const start = windowStart(timestamp);
  store.put(key, value === null ? null : (store.fetch(key, start) ?? '') + value, start);
  const showStart = (entry: KeyValue<number, string>): string => `${entry.key}=${entry.value}`;
  return [
    listed(store.fetchRange(key, 0, timestamp), showStart),
    listed(store.backwardFetchRange(key, 0, timestamp), showStart),
    listed(store.all(), showWindow),
    listed(store.fetchKeyRange('a', 'b', 0, timestamp), showWindow),
    store.fetch(key, start) ?? '-',
  ];
}

/** As windowReads, stamped with the latest record of the window; reads: every window both ways, the key's, its window. */
function timestampedWindowReads(store: TimestampedWindowStore<string, string>, { key, value, timestamp }: Written): string[] {
  const start = windowStart(timestamp);
  const current = store.fetch(key, start);
  store.put(key, value === null ? null : { value: (current?.value ?? '') + value, timestamp: Math.max(current?.timestamp ?? timestamp, timestamp) }, start);
  const show = (entry: KeyValue<Windowed<string>, ValueAndTimestamp<string>>): string => `${windowed(entry.key)}=${stamped(entry.value)}`;
  return [
    listed(store.fetchAll(0, timestamp), show),
    listed(store.backwardAll(), show),
    listed(store.backwardFetchRange(key, 0, timestamp), (entry) => `${entry.key}=${stamped(entry.value)}`),
    stamped(store.fetch(key, start)),
  ];
}

/**
 * The record writes the session [t, t + 1 s] (a null value removes it); reads: the key's sessions, those within
 * 3 s of the record, those of keys a to b, and the record's session.
 */
function sessionReads(store: SessionStore<string, string>, { key, value, timestamp }: Written): string[] {
  const session = { key, window: { start: timestamp, end: timestamp + 1_000 } };
  if (value === null) store.remove(session);
  else store.put(session, value);
  return [
    listed(store.fetch(key), showWindow),
    listed(store.findSessions(key, timestamp - 3_000, timestamp + 3_000), showWindow),
    listed(store.fetchKeyRange('a', 'b'), showWindow),
    store.fetchSession(key, timestamp, timestamp + 1_000) ?? '-',
  ];
}
