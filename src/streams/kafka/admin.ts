/** Typed admin helpers over kafkajs: the topic and offset operations the runtime and the tests need. */
import { ConfigResourceTypes } from './kafkajs';
import { BrokerUnavailable } from '../../errors';
import { isTopicNotReadyError } from './errors';
import type { KafkaAdmin } from './types';

export interface TopicSpec {
  name: string;
  /** Default: the broker's `num.partitions`. */
  partitions?: number;
  /** Default: the broker's `default.replication.factor`. */
  replicationFactor?: number;
  /** Topic configs, e.g. `{ 'cleanup.policy': 'compact' }`. */
  configs?: Readonly<Record<string, string>>;
}

export interface PartitionDescription {
  partition: number;
  /** Broker id of the leader, -1 when there is none. */
  leader: number;
  replicas: number[];
  isr: number[];
}

export interface TopicDescription {
  name: string;
  /** Sorted by partition. */
  partitions: PartitionDescription[];
}

export interface PartitionOffsets {
  partition: number;
  /** First offset still in the log (Java's `beginningOffsets`). */
  earliest: number;
  /**
   * Next offset to be read by a read_committed consumer (the last stable offset, which equals the high
   * watermark when no transaction is open): kafkajs' admin lists offsets as read_committed.
   */
  latest: number;
}

// Kafka's default for CreateTopics' timeout is 30 s in the Java admin; kafkajs' 5 s is tight on a cold broker.
const DEFAULT_TIMEOUT_MS = 30_000;

export async function listTopics(admin: KafkaAdmin): Promise<string[]> {
  return (await admin.listTopics()).sort();
}

/**
 * Creates the topics that do not exist yet and waits until each of their partitions has a leader. Existing
 * topics are left as they are (not checked against the spec). Returns the names it created.
 */
export async function createTopics(
  admin: KafkaAdmin,
  topics: readonly TopicSpec[],
  options: { timeoutMs?: number } = {},
): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic.name));
  if (missing.length === 0) return [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Leaders are waited for here, not by kafkajs: its wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker
  // answers for a moment after its own CreateTopics, until its metadata catches up with the controller's.
  await admin.createTopics({
    timeout: timeoutMs,
    waitForLeaders: false,
    topics: missing.map((topic) => ({
      topic: topic.name,
      numPartitions: topic.partitions ?? -1,
      replicationFactor: topic.replicationFactor ?? -1,
      configEntries: Object.entries(topic.configs ?? {}).map(([name, value]) => ({ name, value })),
    })),
  });
  await waitForLeaders(admin, missing.map((topic) => topic.name), timeoutMs);
  return missing.map((topic) => topic.name);
}

async function waitForLeaders(admin: KafkaAdmin, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const topics = await describeTopics(admin, names).catch((error: unknown) => {
      if (isTopicNotReadyError(error)) return undefined;
      throw error;
    });
    if (topics?.every((topic) => topic.partitions.length > 0 && topic.partitions.every((p) => p.leader >= 0))) return;
    if (Date.now() > deadline) {
      throw new BrokerUnavailable(`Timed out after ${timeoutMs} ms waiting for leaders of ${names.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The topics in the order asked for (kafkajs answers in any order); an unknown topic rejects. */
export async function describeTopics(admin: KafkaAdmin, names: readonly string[]): Promise<TopicDescription[]> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [...names] });
  const byName = new Map(topics.map((topic) => [topic.name, topic]));
  return names.map((name) => {
    const topic = byName.get(name);
    if (topic === undefined) throw new BrokerUnavailable(`The broker did not describe topic ${name}`);
    return {
      name,
      partitions: topic.partitions
        .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
        .sort((a, b) => a.partition - b.partition),
    };
  });
}

/** The effective configs of a topic (explicit and defaulted), by name. */
export async function describeTopicConfigs(admin: KafkaAdmin, name: string): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name }],
  });
  const configs: Record<string, string> = {};
  for (const entry of resources[0]?.configEntries ?? []) configs[entry.configName] = entry.configValue;
  return configs;
}

/**
 * Earliest and latest offsets per partition, sorted by partition. Offsets are numbers: a partition would
 * need 2^53 records before one lost precision.
 */
export async function fetchTopicOffsets(admin: KafkaAdmin, topic: string): Promise<PartitionOffsets[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets
    .map(({ partition, low, high }) => ({ partition, earliest: Number(low), latest: Number(high) }))
    .sort((a, b) => a.partition - b.partition);
}
