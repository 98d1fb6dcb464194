import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import { Consumed, Grouped, Joined, Materialized, Named, Produced, Repartitioned, StreamJoined } from './options';
import { Branched } from './kstream';
import { StreamsBuilder } from './streams-builder';

const STRING = Serdes.String();
const LONG = Serdes.Long();

describe("Kafka Streams' option factories", () => {
  it('give the plain objects that the DSL takes, with only the fields given', () => {
    const extractor = () => 0;
    expect(Consumed.with(STRING, LONG)).toEqual({ keySerde: STRING, valueSerde: LONG });
    expect(Object.keys(Consumed.with(STRING))).toEqual(['keySerde']);
    expect(Consumed.as('source')).toEqual({ name: 'source' });
    expect(Consumed.withTimestampExtractor(extractor)).toEqual({ timestampExtractor: extractor });
    expect(Consumed.withOffsetResetPolicy('latest')).toEqual({ offsetReset: 'latest' });
    expect(Produced.with(STRING, LONG)).toEqual({ keySerde: STRING, valueSerde: LONG });
    expect(Produced.as('sink')).toEqual({ name: 'sink' });
    expect(Grouped.as('by-word')).toEqual({ name: 'by-word' });
    expect(Grouped.with(STRING, LONG)).toEqual({ keySerde: STRING, valueSerde: LONG });
    expect(Grouped.with('by-word', STRING, LONG)).toEqual({ name: 'by-word', keySerde: STRING, valueSerde: LONG });
    expect(Materialized.as('counts')).toEqual({ storeName: 'counts' });
    expect(Materialized.with(STRING, LONG)).toEqual({ keySerde: STRING, valueSerde: LONG });
    expect(Joined.with(STRING, STRING, LONG)).toEqual({ keySerde: STRING, valueSerde: STRING, otherValueSerde: LONG });
    expect(Named.as('upper')).toEqual({ name: 'upper' });
    expect(Repartitioned.numberOfPartitions(4)).toEqual({ numberOfPartitions: 4 });
    expect(StreamJoined.as('pairs')).toEqual({ storeName: 'pairs' });
    expect(StreamJoined.withName('pairs')).toEqual({ name: 'pairs' });
    expect(Branched.as('small')).toEqual({ name: 'small' });
  });

  it('combine by spreading, as Java chains its with... calls', () => {
    expect({ ...Materialized.as<string, number>('counts'), ...Materialized.with(STRING, LONG) }).toEqual({ storeName: 'counts', keySerde: STRING, valueSerde: LONG });
  });

  it('build a topology the Java way', async () => {
    const builder = new StreamsBuilder();
    const branches = builder
      .stream('lines', Consumed.with(STRING, STRING))
      .flatMapValues((line) => line.split(' '), Named.as('words'))
      .split(Named.as('by-length-'))
      .branch((_key, word) => word.length <= 3, Branched.as('short'))
      .branch((_key, word) => word.startsWith('x'), Branched.withConsumer((stream) => stream.to('x-words', Produced.with(STRING, STRING))))
      .defaultBranch(Branched.withFunction((stream) => stream.mapValues((word) => word.toUpperCase()), 'long'));
    expect([...branches.keys()]).toEqual(['by-length-short', 'by-length-long']);
    branches
      .get('by-length-long')!
      .groupBy((_key, word) => word, Grouped.with('by-word', STRING, STRING))
      .count(Materialized.as('counts'))
      .toStream()
      .to('counts', Produced.with(STRING, LONG));
    const topology = builder.build();
    const driver = new TopologyTestDriver(topology, { 'application.id': 'options' }, 0);
    try {
      driver.createInputTopic('lines', STRING, STRING).pipeValueList(['a long xylophone word', 'long']);
      expect(driver.createOutputTopic('x-words', STRING, STRING).readValuesToList()).toEqual(['xylophone']);
      expect(driver.createOutputTopic('counts', STRING, LONG).readKeyValuesToList()).toEqual([
        { key: 'LONG', value: 1 },
        { key: 'WORD', value: 1 },
        { key: 'LONG', value: 2 },
      ]);
      const nodes = topology.describe().subTopologies.flatMap((s) => s.nodes.map((n) => n.name));
      expect(nodes).toEqual(expect.arrayContaining(['words', 'by-word-repartition-sink', 'by-word-repartition-source']));
    } finally {
      await driver.close();
    }
  });
});
