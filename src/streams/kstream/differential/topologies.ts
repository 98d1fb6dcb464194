import type { FixedKeyProcessorContext, FixedKeyProcessorSupplier, ProcessorContext } from '../../processor/processor';
import type { FixedKeyRecord } from '../../processor/record';
import { Serdes } from '../../serdes/serdes';
import type { KeyValueStore, Windowed } from '../../state/store';
import { Stores } from '../../state/stores';
import type { KStream } from '../kstream';
import type { KTable } from '../ktable';
import { Joined, Materialized } from '../options';
import type { StreamsBuilder } from '../streams-builder';
import { BufferConfig, Suppressed } from '../suppressed';
import { JoinWindows, SessionWindows, SlidingWindows, TimeWindows } from '../windows';

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
    // A grace long enough that sessions rarely outlive the store's retention while Kafka Streams' cache still holds
    // them (EXPIRED_IN_CACHE in scenarios.ts): the session scenario shows that difference.
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
