import { TopologyException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import type { KTable } from './ktable';
import { StreamsBuilder } from './streams-builder';
import { BufferConfig, Suppressed } from './suppressed';

const STRING = Serdes.String();

describe('KTable.suppress', () => {
  const drivers: TopologyTestDriver[] = [];

  afterEach(async () => {
    for (const driver of drivers.splice(0)) await driver.close();
  });

  /** Counts per key of `input`, suppressed, to `output`; returns a piping function and a reader of `key=count (ts)`. */
  function start(suppress: (counts: KTable<string, number>) => KTable<string, number>): {
    pipe: (key: string, timestamp: number) => void;
    read: () => string[];
  } {
    const builder = new StreamsBuilder();
    const counts = builder.stream<string, string>('input', { keySerde: STRING, valueSerde: STRING }).groupByKey().count();
    suppress(counts).toStream().to('output', { keySerde: STRING, valueSerde: Serdes.Long() });
    const d = new TopologyTestDriver(builder.build(), { 'application.id': 'suppress' }, 0);
    drivers.push(d);
    const input = d.createInputTopic('input', STRING, STRING);
    const output = d.createOutputTopic('output', STRING, Serdes.Long());
    return {
      pipe: (key, timestamp) => input.pipeInput(key, 'v', timestamp),
      read: () => output.readRecordsToList().map((r) => `${r.key}=${r.value} (${r.timestamp})`),
    };
  }

  it('untilTimeLimit: a key goes out with its latest value once stream time is the limit past its first buffering', () => {
    const { pipe, read } = start((counts) => counts.suppress(Suppressed.untilTimeLimit(10)));
    pipe('a', 0);
    pipe('a', 3);
    pipe('a', 5);
    expect(read()).toEqual([]);
    pipe('b', 11); // 11 - 10 >= 0: a, buffered at 0, is due; its updates at 3 and 5 did not push it back
    expect(read()).toEqual(['a=3 (5)']);
    pipe('b', 15);
    expect(read()).toEqual([]);
    pipe('c', 25); // 25 - 10 >= 11
    expect(read()).toEqual(['b=2 (15)']);
  });

  it('emits the oldest keys early when a bounded buffer is full, or fails the task with shut-down', () => {
    const early = start((counts) => counts.suppress(Suppressed.untilTimeLimit(100, BufferConfig.maxRecords(1))));
    early.pipe('a', 0);
    early.pipe('b', 1);
    expect(early.read()).toEqual(['a=1 (0)']);

    const strict = start((counts) => counts.suppress(Suppressed.untilTimeLimit(100, BufferConfig.maxRecords(1, 'shut-down'))));
    strict.pipe('a', 0);
    expect(() => strict.pipe('b', 1)).toThrow(/exceeded its capacity of 1 records/);
  });

  it('refuses untilWindowCloses on a table that is not windowed, or with a buffer that emits early', () => {
    expect(() => start((counts) => counts.suppress(Suppressed.untilWindowCloses()))).toThrow(TopologyException);
    expect(() => Suppressed.untilWindowCloses(BufferConfig.maxRecords(10))).toThrow(/strict buffer/);
  });
});
