/**
 * The topology as a member of a streams group (KIP-1071) describes it in its joining heartbeat, after Kafka Streams
 * 4.2 (its StreamThread's streams rebalance data and the heartbeat request manager that writes it): one entry per
 * sub-topology, named by its number, so that the coordinator's tasks are Sluice's task ids and a Java member of the
 * same application describes the same topology.
 */
import type { StreamsCopartitionGroup, StreamsKeyValue, StreamsSubtopology, StreamsTopicInfo, StreamsTopology } from '../kafka';
import { changelogTopicConfigs, type InternalTopicOptions, repartitionTopicConfigs } from './internal-topic-manager';
import type { SubtopologyMetadata, TopologyMetadata } from './topology-metadata';

/** Kafka Streams 4.2 sends topology epoch 0: one topology per application (named topologies are gone). */
const TOPOLOGY_EPOCH = 0;
/** The schema's "no number enforced": the coordinator derives it, as for a changelog. */
const DERIVED_PARTITIONS = 0;

function keyValues(configs: Readonly<Record<string, string>>): StreamsKeyValue[] {
  return Object.entries(configs)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

function sorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

/**
 * A sub-topology as the heartbeat describes it. Its repartition topics are listed as repartition sources only: a
 * Kafka 4.2.2 coordinator answers UNKNOWN_SERVER_ERROR to a join whose source topics name one it has not created yet.
 * A repartition topic carries a partition count only when the topology fixes it (`Repartitioned.withNumberOfPartitions`),
 * and a changelog never: the coordinator sizes the others from their sources, as Sluice's own plan does.
 */
function describeSubtopology(metadata: TopologyMetadata, sub: SubtopologyMetadata, options: InternalTopicOptions): StreamsSubtopology {
  const topology = metadata.topology;
  // The coordinator reads 0 as its default replication, which Sluice's -1 means.
  const replicationFactor = Math.max(0, options.replicationFactor);
  const repartitionConfigs = keyValues(repartitionTopicConfigs(options));
  const fixedPartitions = new Map(topology.repartitionTopics().map((t) => [t.name, t.numberOfPartitions ?? DERIVED_PARTITIONS]));

  const repartitionSources = sub.definition.sourceTopics.filter((t) => topology.isInternalTopic(t));
  const repartitionSourceTopics: StreamsTopicInfo[] = repartitionSources
    .map((t) => ({ name: metadata.topicName(t), partitions: fixedPartitions.get(t)!, replicationFactor, topicConfigs: repartitionConfigs }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const repartitionNames = repartitionSourceTopics.map((t) => t.name);
  const sourceTopics = sorted(sub.sourceTopics.filter((t) => !repartitionNames.includes(t)));

  const repartitionSinkTopics = sorted(
    sub.definition.nodes.flatMap((name) => {
      const node = topology.node(name);
      return node?.kind === 'sink' && typeof node.topic === 'string' && topology.isInternalTopic(node.topic) ? [metadata.topicName(node.topic)] : [];
    }),
  );

  const stateChangelogTopics: StreamsTopicInfo[] = sub.stores
    .flatMap((store) =>
      store.changelog === undefined
        ? []
        : [{ name: store.changelog, partitions: DERIVED_PARTITIONS, replicationFactor, topicConfigs: keyValues(changelogTopicConfigs(metadata, store.name, options)) }],
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  // A group is told as indexes into this sub-topology's lists: a repartition topic's into its repartition sources.
  const copartitionGroups: StreamsCopartitionGroup[] = [];
  for (const group of topology.copartitionedTopics()) {
    const names = group.map((t) => metadata.topicName(t));
    if (!names.every((name) => sourceTopics.includes(name) || repartitionNames.includes(name))) continue;
    copartitionGroups.push({
      sourceTopics: names.filter((n) => !repartitionNames.includes(n)).map((n) => sourceTopics.indexOf(n)),
      sourceTopicRegex: [],
      repartitionSourceTopics: names.filter((n) => repartitionNames.includes(n)).map((n) => repartitionNames.indexOf(n)),
    });
  }

  return {
    subtopologyId: String(sub.id),
    sourceTopics,
    sourceTopicRegex: sub.sourcePatterns.map((p) => p.source),
    stateChangelogTopics,
    repartitionSinkTopics,
    repartitionSourceTopics,
    copartitionGroups,
  };
}

/** The topology of a joining heartbeat; global stores' topics are read whole by every member, and are not in it. */
export function describeStreamsTopology(metadata: TopologyMetadata, options: InternalTopicOptions): StreamsTopology {
  return { epoch: TOPOLOGY_EPOCH, subtopologies: metadata.subtopologies.map((sub) => describeSubtopology(metadata, sub, options)) };
}
