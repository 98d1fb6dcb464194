import { Serdes } from '../serdes/serdes';
import { sessionWindowedSerde } from '../serdes/windowed';
import type { Windowed } from '../state/store';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import type { Topology } from '../topology/topology';
import type { KTable } from './ktable';
import type { SessionWindowedKStream } from './session-windowed-kstream';
import { StreamsBuilder } from './streams-builder';
import { Suppressed } from './suppressed';
import { SessionWindows } from './windows';

const STRING = Serdes.String();

function sessionTopology(aggregate: (sessions: SessionWindowedKStream<string, string>) => KTable<Windowed<string>, string>): Topology {
  const builder = new StreamsBuilder();
  const grouped = builder.stream<string, string>('input', { keySerde: STRING, valueSerde: STRING }).groupByKey();
  aggregate(grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 10))).toStream().to('output', { valueSerde: STRING });
  return builder.build();
}

function countTopology(then: (table: KTable<Windowed<string>, number>) => KTable<Windowed<string>, number> = (t) => t): Topology {
  const builder = new StreamsBuilder();
  const counts = builder
    .stream<string, string>('input', { keySerde: STRING, valueSerde: STRING })
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 10))
    .count({ storeName: 'sessions' });
  then(counts).toStream().to('output', { valueSerde: Serdes.Long() });
  return builder.build();
}

describe('SessionWindowedKStream', () => {
  let driver: TopologyTestDriver | undefined;

  afterEach(async () => {
    await driver?.close();
    driver = undefined;
  });

  function start(topology: Topology): (key: string, timestamp: number, value?: string) => void {
    driver = new TopologyTestDriver(topology, { 'application.id': 'sessions' }, 0);
    const input = driver.createInputTopic('input', STRING, STRING);
    return (key, timestamp, value = 'v') => input.pipeInput(key, value, timestamp);
  }

  function drain(): string[] {
    const output = driver!.createOutputTopic('output', sessionWindowedSerde(STRING), Serdes.Long());
    return output.readRecordsToList().map((r) => `${r.key!.key}@[${r.key!.window.start},${r.key!.window.end}]=${r.value} (${r.timestamp})`);
  }

  it('merges sessions a record bridges: the old sessions are deleted, the merged one replaces them', () => {
    const pipe = start(countTopology());
    pipe('a', 0);
    expect(drain()).toEqual(['a@[0,0]=1 (0)']);
    pipe('a', 3);
    expect(drain()).toEqual(['a@[0,0]=null (0)', 'a@[0,3]=2 (3)']);
    pipe('a', 10); // more than the gap after 3: a session of its own
    expect(drain()).toEqual(['a@[10,10]=1 (10)']);
    pipe('a', 7); // out of order, bridges [0,3] and [10,10]
    expect(drain()).toEqual(['a@[0,3]=null (3)', 'a@[10,10]=null (10)', 'a@[0,10]=4 (10)']);
    pipe('a', 20);
    expect(drain()).toEqual(['a@[20,20]=1 (20)']);
    pipe('a', 1); // inside [0,10], still open until stream time 25: the session is rewritten in place
    expect(drain()).toEqual(['a@[0,10]=5 (10)']);
    const store = driver!.getSessionStore<string, number>('sessions');
    expect([...store.fetch('a')].map((kv) => [kv.key.window.start, kv.key.window.end, kv.value])).toEqual([
      [0, 10, 5],
      [20, 20, 1],
    ]);
  });

  it('drops records for sessions closed by stream time (end + gap + grace), and counts them', () => {
    const pipe = start(countTopology());
    pipe('a', 0);
    pipe('a', 30); // stream time 30: sessions ending before 15 are closed
    pipe('a', 2); // would extend [0,0]: dropped
    pipe('b', 16); // a new session ending at 16 is still open
    expect(drain()).toEqual(['a@[0,0]=1 (0)', 'a@[30,30]=1 (30)', 'b@[16,16]=1 (16)']);
    expect(driver!.droppedRecords).toBe(1);
  });

  it('merges aggregates with the merger, and reduces', () => {
    const pipe = start(
      sessionTopology((sessions) =>
        sessions.aggregate(
          () => '',
          (_key, value, aggregate) => aggregate + value,
          (_key, left, right) => `${left}+${right}`,
          { valueSerde: STRING },
        ),
      ),
    );
    pipe('a', 0, 'x');
    pipe('a', 8, 'y');
    pipe('a', 4, 'z');
    const output = driver!.createOutputTopic('output', sessionWindowedSerde(STRING), STRING);
    expect(output.readRecordsToList().map((r) => `[${r.key!.window.start},${r.key!.window.end}]=${r.value}`)).toEqual([
      '[0,0]=x',
      '[8,8]=y',
      '[0,0]=null',
      '[8,8]=null',
      '[0,8]=+x+yz',
    ]);
  });

  it('emits each session once, when it closes, with suppress(untilWindowCloses)', () => {
    const pipe = start(countTopology((table) => table.suppress(Suppressed.untilWindowCloses())));
    pipe('a', 0);
    pipe('a', 3);
    pipe('b', 4);
    pipe('a', 17); // 17 < 3 + 5 + 10
    expect(drain()).toEqual([]);
    pipe('a', 18); // [0,3] closes at 18; [0,0] was replaced by [0,3] and its tombstone is not emitted
    expect(drain()).toEqual(['a@[0,3]=2 (3)']);
    pipe('c', 40);
    expect(drain()).toEqual(['b@[4,4]=1 (4)', 'a@[17,18]=2 (18)']);
  });
});
