import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import type { KStream } from './kstream';
import type { KTable } from './ktable';
import { StreamsBuilder } from './streams-builder';
import { JoinWindows } from './windows';

const STRING = Serdes.String();
const SERDES = { keySerde: STRING, valueSerde: STRING };

/**
 * The input sequence of the join semantics tables in the Kafka Streams documentation: one key, records on the left
 * and the right topic at timestamps 1 to 15, null values being deletes (tables) or dropped records (streams).
 */
const DOCS_SEQUENCE: readonly [number, 'left' | 'right', string | null][] = [
  [1, 'left', null],
  [2, 'right', null],
  [3, 'left', 'A'],
  [4, 'right', 'a'],
  [5, 'left', 'B'],
  [6, 'right', 'b'],
  [7, 'left', null],
  [8, 'right', null],
  [9, 'left', 'C'],
  [10, 'right', 'c'],
  [11, 'right', null],
  [12, 'left', null],
  [13, 'right', null],
  [14, 'right', 'd'],
  [15, 'left', 'D'],
];

const joiner = (left: string | null, right: string | null): string => `[${left},${right}]`;

interface Run {
  driver: TopologyTestDriver;
  pipe(side: 'left' | 'right', key: string, value: string | null, timestamp: number): void;
  /** Output records as `timestamp:value`. */
  read(): string[];
}

const drivers: TopologyTestDriver[] = [];

afterEach(async () => {
  for (const driver of drivers.splice(0)) await driver.close();
});

function run(build: (builder: StreamsBuilder) => KStream<string, string>): Run {
  const builder = new StreamsBuilder();
  build(builder).to('output', SERDES);
  // The driver emits unmatched records without an emit interval by default, as Kafka Streams' does.
  const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'joins' }, 0);
  drivers.push(driver);
  const topics = { left: driver.createInputTopic('left', STRING, STRING), right: driver.createInputTopic('right', STRING, STRING) };
  const output = driver.createOutputTopic('output', STRING, STRING);
  return {
    driver,
    pipe: (side, key, value, timestamp) => topics[side].pipeInput(key, value, timestamp),
    read: () => output.readRecordsToList().map((r) => `${r.timestamp}:${r.value}`),
  };
}

function runDocsSequence(build: (builder: StreamsBuilder) => KStream<string, string>): Run {
  const joined = run(build);
  for (const [timestamp, side, value] of DOCS_SEQUENCE) joined.pipe(side, 'k', value, timestamp);
  return joined;
}

describe('KStream-KTable join, on the Kafka Streams documentation sequence', () => {
  const table = (builder: StreamsBuilder): KTable<string, string> => builder.table<string, string>('right', SERDES);

  it('inner: only stream records with a table value', () => {
    const joined = runDocsSequence((b) => b.stream<string, string>('left', SERDES).join(table(b), joiner));
    expect(joined.read()).toEqual(['5:[B,a]', '15:[D,d]']);
    expect(joined.driver.droppedRecords).toBe(3);
  });

  it('left: every stream record, joined with null without a table value', () => {
    const joined = runDocsSequence((b) => b.stream<string, string>('left', SERDES).leftJoin(table(b), joiner));
    expect(joined.read()).toEqual(['3:[A,null]', '5:[B,a]', '9:[C,null]', '15:[D,d]']);
  });

  it('repartitions a re-keyed stream first and declares its topic co-partitioned with the table', () => {
    const builder = new StreamsBuilder();
    const users = builder.table<string, string>('users', SERDES);
    builder
      .stream<string, string>('clicks', SERDES)
      .selectKey((_key, value) => value.split(':')[0]!)
      .join(users, (click, user) => `${click} by ${user}`)
      .to('output', SERDES);
    const topology = builder.build();
    expect(topology.copartitionedTopics()).toEqual([['KSTREAM-KEY-SELECT-0000000004-repartition', 'users']]);
    expect(topology.repartitionTopics().map((t) => t.name)).toEqual(['KSTREAM-KEY-SELECT-0000000004-repartition']);
    const driver = new TopologyTestDriver(topology, { 'application.id': 'rekey' }, 0);
    drivers.push(driver);
    driver.createInputTopic('users', STRING, STRING).pipeInput('u1', 'Ada', 1);
    driver.createInputTopic('clicks', STRING, STRING).pipeInput(null, 'u1:home', 2);
    expect(driver.createOutputTopic('output', STRING, STRING).readKeyValuesToList()).toEqual([{ key: 'u1', value: 'u1:home by Ada' }]);
  });
});

describe('KStream-KStream join, on the Kafka Streams documentation sequence (3.x semantics)', () => {
  const windows = JoinWindows.ofTimeDifferenceWithNoGrace(100);
  const streams = (b: StreamsBuilder): [KStream<string, string>, KStream<string, string>] => [
    b.stream<string, string>('left', SERDES),
    b.stream<string, string>('right', SERDES),
  ];
  // Every record has a match within the window, so left and outer joins emit no [X,null]: with 3.x semantics those
  // come only for records still unmatched when their window closes.
  const allPairs = [
    '4:[A,a]',
    '5:[B,a]',
    '6:[A,b]',
    '6:[B,b]',
    '9:[C,a]',
    '9:[C,b]',
    '10:[A,c]',
    '10:[B,c]',
    '10:[C,c]',
    '14:[A,d]',
    '14:[B,d]',
    '14:[C,d]',
    '15:[D,a]',
    '15:[D,b]',
    '15:[D,c]',
    '15:[D,d]',
  ];

  it.each([
    ['inner', (l: KStream<string, string>, r: KStream<string, string>) => l.join(r, joiner, windows)],
    ['left', (l: KStream<string, string>, r: KStream<string, string>) => l.leftJoin(r, joiner, windows)],
    ['outer', (l: KStream<string, string>, r: KStream<string, string>) => l.outerJoin(r, joiner, windows)],
  ])('%s: every pair within the window, and nothing more once the windows close', (_kind, join) => {
    const joined = runDocsSequence((b) => join(...streams(b)));
    expect(joined.read()).toEqual(allPairs);
    expect(joined.driver.droppedRecords).toBe(7);
    joined.pipe('left', 'other', 'E', 500);
    expect(joined.read()).toEqual([]);
  });

  it('left and outer: unmatched records come out joined with null when their window and grace have passed', () => {
    const narrow = JoinWindows.ofTimeDifferenceAndGrace(10, 5);
    const outputs = (build: (l: KStream<string, string>, r: KStream<string, string>) => KStream<string, string>): string[] => {
      const joined = run((b) => build(...streams(b)));
      joined.pipe('left', 'k1', 'X', 0);
      joined.pipe('right', 'k2', 'y', 1);
      joined.pipe('left', 'k3', 'P', 20); // stream time 20: X (due at 0 + 10 + 5) and y (1 + 10 + 5) come out
      joined.pipe('right', 'k3', 'p', 29); // within 10 after P: joined
      const before = joined.read();
      joined.pipe('left', 'k4', 'Q', 30);
      joined.pipe('left', 'k5', 'R', 40);
      joined.pipe('right', 'k5', 'r', 30); // out of order, still within R's window: joined
      joined.pipe('left', 'k6', 'S', 100); // Q is due; P and R were joined
      return [...before, '|', ...joined.read()];
    };
    expect(outputs((l, r) => l.join(r, joiner, narrow))).toEqual(['29:[P,p]', '|', '40:[R,r]']);
    expect(outputs((l, r) => l.leftJoin(r, joiner, narrow))).toEqual(['0:[X,null]', '29:[P,p]', '|', '40:[R,r]', '30:[Q,null]']);
    expect(outputs((l, r) => l.outerJoin(r, joiner, narrow))).toEqual([
      '0:[X,null]',
      '1:[null,y]',
      '29:[P,p]',
      '|',
      '40:[R,r]',
      '30:[Q,null]',
    ]);
  });

  it("names nodes and stores as Kafka Streams does, and declares both inputs co-partitioned", () => {
    const builder = new StreamsBuilder();
    const [left, right] = streams(builder);
    left.leftJoin(right, joiner, windows).to('output', SERDES);
    const topology = builder.build();
    const nodes = topology.describe().subTopologies[0]!.nodes.map((n) => n.name);
    expect(nodes).toEqual([
      'KSTREAM-SOURCE-0000000000',
      'KSTREAM-SOURCE-0000000001',
      'KSTREAM-WINDOWED-0000000002',
      'KSTREAM-WINDOWED-0000000003',
      'KSTREAM-JOINTHIS-0000000004',
      'KSTREAM-OUTEROTHER-0000000005',
      'KSTREAM-MERGE-0000000006',
      'KSTREAM-SINK-0000000007',
    ]);
    expect([...topology.stores()].map((s) => [s.name, s.type])).toEqual([
      ['KSTREAM-JOINTHIS-0000000004-store', 'window'],
      ['KSTREAM-OUTEROTHER-0000000005-store', 'window'],
      ['KSTREAM-OUTERSHARED-0000000004-store', 'key_value'],
    ]);
    expect(topology.store('KSTREAM-JOINTHIS-0000000004-store')!.logConfig).toEqual({
      'cleanup.policy': 'delete',
      'retention.ms': String(200 + 86400000),
    });
    expect(topology.copartitionedTopics()).toEqual([['left', 'right']]);
  });
});

describe('KTable-KTable join, on the Kafka Streams documentation sequence', () => {
  const tables = (b: StreamsBuilder): [KTable<string, string>, KTable<string, string>] => [
    b.table<string, string>('left', SERDES),
    b.table<string, string>('right', SERDES),
  ];

  it('inner', () => {
    const joined = runDocsSequence((b) => {
      const [l, r] = tables(b);
      return l.join(r, joiner).toStream();
    });
    expect(joined.read()).toEqual(['4:[A,a]', '5:[B,a]', '6:[B,b]', '7:null', '10:[C,c]', '11:null', '15:[D,d]']);
  });

  it('left', () => {
    const joined = runDocsSequence((b) => {
      const [l, r] = tables(b);
      return l.leftJoin(r, joiner).toStream();
    });
    expect(joined.read()).toEqual([
      '3:[A,null]',
      '4:[A,a]',
      '5:[B,a]',
      '6:[B,b]',
      '7:null',
      '9:[C,null]',
      '10:[C,c]',
      '11:[C,null]',
      '12:null',
      '15:[D,d]',
    ]);
  });

  it('outer', () => {
    const joined = runDocsSequence((b) => {
      const [l, r] = tables(b);
      return l.outerJoin(r, joiner).toStream();
    });
    expect(joined.read()).toEqual([
      '3:[A,null]',
      '4:[A,a]',
      '5:[B,a]',
      '6:[B,b]',
      '7:[null,b]',
      '8:null',
      '9:[C,null]',
      '10:[C,c]',
      '11:[C,null]',
      '12:null',
      '14:[null,d]',
      '15:[D,d]',
    ]);
  });

  it('materializes the result when asked, and reads unmaterialized results through both tables', () => {
    const joined = run((b) => {
      const [l, r] = tables(b);
      const byName = l.join(r, joiner, { name: 'pairs' }, { storeName: 'pairs-store' });
      // A stream joined with the unmaterialized left join reads it through the two source tables.
      const unmaterialized = l.leftJoin(r, joiner).filter((_k, v) => v !== '[skip,null]');
      return b
        .stream<string, string>('probe', SERDES)
        .join(unmaterialized, (probe, value) => `${probe}->${value}`)
        .merge(byName.toStream().mapValues((v) => `pairs=${v}`));
    });
    const probe = joined.driver.createInputTopic('probe', STRING, STRING);
    joined.pipe('left', 'k', 'A', 1);
    joined.pipe('right', 'k', 'a', 2);
    probe.pipeInput('k', 'p', 3);
    joined.pipe('left', 'x', 'skip', 4);
    probe.pipeInput('x', 'q', 5);
    expect(joined.read()).toEqual(['2:pairs=[A,a]', '3:p->[A,a]']);
    expect(joined.driver.getTimestampedKeyValueStore<string, string>('pairs-store').get('k')).toEqual({ value: '[A,a]', timestamp: 2 });
  });
});
