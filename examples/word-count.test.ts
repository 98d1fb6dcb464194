import { Serdes, TopologyTestDriver } from '../src';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT, WORD_COUNT_STORE, wordCountTopology } from './word-count';

describe('word count example', () => {
  let driver: TopologyTestDriver;

  beforeEach(() => {
    driver = new TopologyTestDriver(wordCountTopology(), { 'application.id': 'word-count' }, 0);
  });

  afterEach(async () => {
    await driver.close();
  });

  it("gives Kafka Streams' output sequence, one update per word", () => {
    const input = driver.createInputTopic(WORD_COUNT_INPUT, Serdes.String(), Serdes.String());
    const output = driver.createOutputTopic(WORD_COUNT_OUTPUT, Serdes.String(), Serdes.Long());
    input.pipeInput(null, 'all streams lead to kafka', 1000);
    input.pipeInput(null, 'hello kafka streams', 2000);
    input.pipeInput(null, 'join kafka summit', 3000);
    expect(output.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['all', 1, 1000],
      ['streams', 1, 1000],
      ['lead', 1, 1000],
      ['to', 1, 1000],
      ['kafka', 1, 1000],
      ['hello', 1, 2000],
      ['kafka', 2, 2000],
      ['streams', 2, 2000],
      ['join', 1, 3000],
      ['kafka', 3, 3000],
      ['summit', 1, 3000],
    ]);
    expect(output.isEmpty()).toBe(true);
  });

  it('keeps the counts in the queryable store `count`', () => {
    const input = driver.createInputTopic(WORD_COUNT_INPUT, Serdes.String(), Serdes.String());
    input.pipeValueList(['a b a', 'B c']);
    const store = driver.getTimestampedKeyValueStore<string, number>(WORD_COUNT_STORE);
    expect(store.get('a')?.value).toBe(2);
    expect(store.get('b')?.value).toBe(2);
    expect([...store.all()].map((kv) => [kv.key, kv.value.value])).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 1],
    ]);
  });

  it('describes the repartitioned shape of the word count', () => {
    const description = wordCountTopology().describe();
    expect(description.subTopologies.map((s) => s.nodes.map((n) => `${n.type}:${n.name}`))).toEqual([
      [
        'SOURCE:KSTREAM-SOURCE-0000000000',
        'PROCESSOR:KSTREAM-FLATMAPVALUES-0000000001',
        'PROCESSOR:KSTREAM-KEY-SELECT-0000000002',
        'PROCESSOR:count-repartition-filter',
        'SINK:count-repartition-sink',
      ],
      ['SOURCE:count-repartition-source', 'PROCESSOR:KSTREAM-AGGREGATE-0000000003', 'PROCESSOR:KTABLE-TOSTREAM-0000000007', 'SINK:KSTREAM-SINK-0000000008'],
    ]);
    const aggregate = description.subTopologies[1]!.nodes[1]!;
    expect(aggregate.stores).toEqual(['count']);
    expect(description.subTopologies[0]!.nodes[4]!.topic).toBe('count-repartition');
  });
});
