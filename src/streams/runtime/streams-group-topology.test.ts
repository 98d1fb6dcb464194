import { StreamsBuilder } from '../kstream/streams-builder';
import { Serdes } from '../serdes/serdes';
import { describeStreamsTopology } from './streams-group-topology';
import { TopologyMetadata } from './topology-metadata';

const strings = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
const options = { replicationFactor: -1, topicConfigs: { 'min.insync.replicas': '2' } };

describe('describeStreamsTopology', () => {
  it("describes the word count as Kafka Streams 4.2 does: the repartition topic's sink and source, the count's changelog, no fixed counts", () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('lines', strings)
      .flatMapValues((line) => line.split(' '))
      .groupBy((_k, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .count()
      .toStream()
      .to('counts');
    const metadata = new TopologyMetadata(builder.build(), 'wc');
    const topology = describeStreamsTopology(metadata, options);
    expect(topology.epoch).toBe(0);
    expect(topology.subtopologies.map((s) => s.subtopologyId)).toEqual(['0', '1']);
    const [first, second] = topology.subtopologies;
    const repartition = second!.repartitionSourceTopics[0]!.name;
    expect(repartition).toMatch(/^wc-.*-repartition$/);
    expect(first).toMatchObject({ sourceTopics: ['lines'], sourceTopicRegex: [], repartitionSinkTopics: [repartition], stateChangelogTopics: [], repartitionSourceTopics: [], copartitionGroups: [] });
    expect(second).toMatchObject({ sourceTopics: [], repartitionSinkTopics: [] });
    expect(second!.repartitionSourceTopics).toEqual([
      {
        name: repartition,
        partitions: 0,
        replicationFactor: 0,
        topicConfigs: expect.arrayContaining([{ key: 'cleanup.policy', value: 'delete' }, { key: 'min.insync.replicas', value: '2' }]),
      },
    ]);
    expect(second!.stateChangelogTopics).toEqual([
      { name: expect.stringMatching(/^wc-.*-changelog$/), partitions: 0, replicationFactor: 0, topicConfigs: expect.arrayContaining([{ key: 'cleanup.policy', value: 'compact' }]) },
    ]);
  });

  it('tells a fixed repartition count, a source pattern, the replication, and a join\'s co-partitioned topics as indexes into their lists', () => {
    const builder = new StreamsBuilder();
    const users = builder.table<string, string>('users', strings);
    builder
      .stream<string, string>('lines', strings)
      .selectKey((_k, v) => v)
      .repartition({ numberOfPartitions: 6, name: 'by-user' })
      .join(users, (line, user) => `${line}@${user}`)
      .to('joined');
    builder.stream<string, string>(/^events-.*/, strings).to('all-events');
    const metadata = new TopologyMetadata(builder.build(), 'app');
    const topology = describeStreamsTopology(metadata, { replicationFactor: 3, topicConfigs: {} });
    const join = topology.subtopologies.find((s) => s.repartitionSourceTopics.length > 0)!;
    expect(join.repartitionSourceTopics).toEqual([expect.objectContaining({ name: 'app-by-user-repartition', partitions: 6, replicationFactor: 3 })]);
    expect(join.sourceTopics).toEqual(['users']);
    expect(join.copartitionGroups).toEqual([{ sourceTopics: [0], sourceTopicRegex: [], repartitionSourceTopics: [0] }]);
    const pattern = topology.subtopologies.find((s) => s.sourceTopicRegex.length > 0)!;
    expect(pattern).toMatchObject({ sourceTopics: [], sourceTopicRegex: ['^events-.*'] });
  });
});
