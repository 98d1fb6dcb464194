import { TopologyException } from '../../errors';
import type { Logger } from 'pino';
import { createTopics, describeTopics, isTransientKafkaError, type KafkaAdmin, listTopics, type TopicSpec } from '../kafka';
import type { StreamsConfig } from './streams-config';
import type { TopologyMetadata } from './topology-metadata';

/** Kafka Streams' configuration of repartition topics (before the user's `topic.` overrides). */
const REPARTITION_TOPIC_CONFIG: Readonly<Record<string, string>> = {
  'cleanup.policy': 'delete',
  'segment.bytes': '52428800',
  'retention.ms': '-1',
  'message.timestamp.type': 'CreateTime',
};

export interface InternalTopicOptions {
  readonly replicationFactor: number;
  /** The user's `topic.`-prefixed configuration, without the prefix. */
  readonly topicConfigs: Readonly<Record<string, string>>;
}

/** The configs of a repartition topic as Sluice creates it (and a streams group's coordinator would). */
export function repartitionTopicConfigs(options: InternalTopicOptions): Record<string, string> {
  return { ...REPARTITION_TOPIC_CONFIG, ...options.topicConfigs };
}

/** The configs of a store's changelog as Sluice creates it (and a streams group's coordinator would). */
export function changelogTopicConfigs(metadata: TopologyMetadata, store: string, options: InternalTopicOptions): Record<string, string> {
  return { 'message.timestamp.type': 'CreateTime', ...options.topicConfigs, ...metadata.topology.store(store)!.logConfig };
}

/**
 * The internal topics an application needs (Kafka Streams' InternalTopicManager and the assignor's repartition
 * sizing): repartition topics take their partition count from the topics upstream of them, or from the topics
 * they are co-partitioned with when they feed a join; changelogs have one partition per task of their
 * sub-topology. `sourceCounts` holds the partition counts of the external source topics. Answers the topics to
 * create and every topic's partition count (external ones included); throws when co-partitioned topics differ.
 */
export function planInternalTopics(
  metadata: TopologyMetadata,
  sourceCounts: ReadonlyMap<string, number>,
  options: InternalTopicOptions,
): { specs: TopicSpec[]; partitionCounts: Map<string, number> } {
  const topology = metadata.topology;
  const partitionCounts = new Map(sourceCounts);
  const countOf = (topic: string, resolved: ReadonlyMap<string, number>): number | undefined =>
    topology.isInternalTopic(topic) ? resolved.get(topic) : partitionCounts.get(topic);

  // Repartition topics take their count from upstream; resolved in dependency order.
  const repartition = topology.repartitionTopics();
  const resolved = new Map<string, number>();
  for (let pass = 0; pass <= repartition.length && resolved.size < repartition.length; pass++) {
    for (const topic of repartition) {
      if (resolved.has(topic.name)) continue;
      if (topic.numberOfPartitions) {
        resolved.set(topic.name, topic.numberOfPartitions);
        continue;
      }
      const writer = metadata.subtopologies.find((sub) =>
        sub.definition.nodes.some((n) => {
          const d = topology.node(n)!;
          return d.kind === 'sink' && d.topic === topic.name;
        }),
      );
      const upstream = writer?.definition.sourceTopics.map((t) => countOf(t, resolved)) ?? [];
      if (upstream.every((n) => n !== undefined)) resolved.set(topic.name, Math.max(1, ...(upstream as number[])));
    }
  }
  // Co-partitioning: a repartition topic that feeds a join (and has no count of its own) takes the count of the
  // group's other topics, so a re-keyed stream joins a table of more partitions.
  for (const group of topology.copartitionedTopics()) {
    const adjustable = group.filter((t) => repartition.some((r) => r.name === t && !r.numberOfPartitions));
    const fixed = group
      .filter((t) => !adjustable.includes(t))
      .map((t) => countOf(t, resolved))
      .filter((n): n is number => n !== undefined);
    const counts = fixed.length > 0 ? fixed : adjustable.map((t) => resolved.get(t) ?? 1);
    for (const t of adjustable) resolved.set(t, Math.max(...counts));
  }
  const specs: TopicSpec[] = repartition.map((t) => ({
    name: metadata.topicName(t.name),
    partitions: resolved.get(t.name) ?? 1,
    replicationFactor: options.replicationFactor,
    configs: repartitionTopicConfigs(options),
  }));
  for (const spec of specs) partitionCounts.set(spec.name, spec.partitions ?? 1);
  for (const sub of metadata.subtopologies) {
    const tasks = Math.max(0, ...metadata.sourceTopicsAmong(sub, sourceCounts.keys()).map((t) => partitionCounts.get(t) ?? 0));
    for (const store of sub.stores) {
      if (store.changelog === undefined) continue;
      specs.push({
        name: store.changelog,
        partitions: tasks,
        replicationFactor: options.replicationFactor,
        configs: changelogTopicConfigs(metadata, store.name, options),
      });
      partitionCounts.set(store.changelog, tasks);
    }
  }
  for (const group of topology.copartitionedTopics()) {
    const counts = new Set(group.map((t) => partitionCounts.get(metadata.topicName(t))));
    if (counts.size > 1) {
      throw new TopologyException(`topics ${group.join(', ')} must be co-partitioned (same number of partitions), but have ${[...counts].join(', ')}`);
    }
  }
  return { specs, partitionCounts };
}

/**
 * Checks the source topics, creates the internal topics with Kafka Streams' names and configurations, and checks
 * the partition counts of those that existed. Answers every source and internal topic's partition count (topics
 * that match a source pattern and global stores' topics included).
 */
export async function prepareInternalTopics(admin: KafkaAdmin, metadata: TopologyMetadata, options: InternalTopicOptions): Promise<Map<string, number>> {
  const topology = metadata.topology;
  const external = new Set<string>();
  for (const sub of metadata.subtopologies) for (const t of sub.definition.sourceTopics) if (!topology.isInternalTopic(t)) external.add(t);
  // A global store's topic is read whole by every instance: it must exist like any source, and its count is known.
  for (const g of topology.globalStores()) external.add(g.topic);
  const existing = await listTopics(admin);
  const missing = [...external].filter((t) => !existing.includes(t));
  if (missing.length > 0) throw new TopologyException(`source topics do not exist: ${missing.join(', ')}`);
  const sources = [...external, ...metadata.patternMatches(existing)];
  const sourceCounts = new Map((await describeTopics(admin, sources)).map((t) => [t.name, t.partitions.length]));
  const { specs, partitionCounts } = planInternalTopics(metadata, sourceCounts, options);
  if (specs.length > 0) await createTopics(admin, specs);
  for (const t of await describeTopics(admin, specs.map((s) => s.name))) {
    const expected = partitionCounts.get(t.name);
    if (expected !== undefined && t.partitions.length !== expected) {
      throw new TopologyException(`internal topic ${t.name} has ${t.partitions.length} partitions, expected ${expected}`);
    }
  }
  return partitionCounts;
}

/** The internal topics' replication and the user's `topic.` configuration, from an instance's configuration. */
export function internalTopicOptions(config: StreamsConfig): InternalTopicOptions {
  const topicConfigs = Object.fromEntries(
    Object.entries(config.values)
      .filter(([k]) => k.startsWith('topic.'))
      .map(([k, v]) => [k.slice('topic.'.length), String(v)]),
  );
  return { replicationFactor: config.replicationFactor, topicConfigs };
}

/**
 * An instance's topics (Kafka Streams' InternalTopicManager): prepares them at start, and learns the topics
 * created since that match a source pattern. Keeps every topic's partition count in `partitionCounts`, which
 * the instance shares with its threads.
 */
export class InternalTopicManager {
  /** Topics matching a source pattern that the threads subscribe to. */
  private readonly patternTopics = new Set<string>();

  constructor(
    private readonly admin: KafkaAdmin,
    private readonly metadata: TopologyMetadata,
    private readonly config: StreamsConfig,
    private readonly partitionCounts: Map<string, number>,
    private readonly logger: Logger,
  ) {}

  /**
   * Connects and prepares the topics, again while that fails for a transient reason (a broker not reachable yet,
   * metadata not yet propagated after a topic was created), within `task.timeout.ms` and while `keepTrying()`.
   */
  async prepare(keepTrying: () => boolean): Promise<void> {
    const deadline = Date.now() + this.config.taskTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.admin.connect();
        return await this.prepareTopics();
      } catch (error) {
        if (!isTransientKafkaError(error) || Date.now() >= deadline || !keepTrying()) throw error;
        // Routine while a broker starts or metadata propagates: one short line, the retries at debug.
        const reason = error instanceof Error ? error.message : String(error);
        if (attempt === 1) this.logger.info({ reason }, 'preparing topics: Kafka not ready yet; trying again for up to task.timeout.ms');
        else this.logger.debug({ reason, attempt }, 'preparing topics: trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5_000)));
      }
    }
  }

  /** Topics created since that match a source pattern, with their partition counts learnt (kafkajs resolves a pattern only when it subscribes). */
  async newPatternTopics(): Promise<string[]> {
    const fresh = this.metadata.patternMatches(await listTopics(this.admin)).filter((t) => !this.patternTopics.has(t));
    if (fresh.length === 0) return [];
    for (const t of await describeTopics(this.admin, fresh)) this.partitionCounts.set(t.name, t.partitions.length);
    for (const t of fresh) this.patternTopics.add(t);
    return fresh;
  }

  /** Creates repartition topics and changelogs with Kafka Streams' names and configs; checks sources. */
  private async prepareTopics(): Promise<void> {
    const counts = await prepareInternalTopics(this.admin, this.metadata, internalTopicOptions(this.config));
    for (const [topic, count] of counts) {
      this.partitionCounts.set(topic, count);
      if (this.metadata.patternMatches([topic]).length > 0) this.patternTopics.add(topic);
    }
  }
}
