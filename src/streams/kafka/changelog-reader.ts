/**
 * Reads given partitions from given offsets with no consumer group: Kafka Streams' restore consumer, which is
 * assigned its changelog partitions. kafkajs has no `assign()`, so this sits on kafkajs' cluster layer (its
 * metadata, connections and authentication) and sends Fetch requests itself (broker-requests.ts), one per partition
 * leader.
 */
import { StreamsException } from '../../errors';
import { createCluster, createErrorFromCode, isolationLevel, type KafkajsCluster, sendFetch } from './broker-requests';
import type { FetchedPartition } from './fetch-response';
import { groupByTopic, TopicPartitionMap } from './topic-partition';
import type { KafkaClient } from './types';

export type { FetchedPartition } from './fetch-response';
export type { ChangelogRecord, ChangelogRecordList } from './fetched-records';
export { NULL_KEY } from './fetched-records';

/** Partition errors after which the leader may have moved: metadata is refreshed and the partition fetched again. */
const LEADER_ERRORS = new Set([3, 5, 6, 9, 56, 74, 75]);
const OFFSET_OUT_OF_RANGE = 1;

export interface ChangelogReaderOptions {
  readCommitted: boolean;
  /** `fetch.max.bytes`: what one response may bring in all. */
  maxBytes: number;
  /** `max.partition.fetch.bytes`. */
  maxPartitionBytes: number;
  /** `fetch.max.wait.ms`: how long the broker may wait for data. */
  maxWaitMs: number;
  /** Each partition's records as a batch of a stream thread's consumer (FetchedPartition.batch): a streams group member's input. */
  asBatches?: boolean;
}

export interface ReadPosition {
  topic: string;
  partition: number;
  /** The next offset to read, or EARLIEST (the partition's log start) or LATEST (its end), looked up first. */
  offset: number;
}

/** A position at the log start of its partition, whatever it is when the fetch is made. */
export const EARLIEST = -2;
/** A position at the end of its partition (past its last record, or its last stable offset read committed) when the fetch is made. */
export const LATEST = -1;

/** A changelog truncated below the offset to read (Kafka Streams' TaskCorruptedException). */
export class OffsetOutOfRange extends StreamsException {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: number,
  ) {
    super(`${topic}-${partition}: offset ${offset} is no longer in the log (the topic was truncated or deleted)`);
  }
}

export class ChangelogReader {
  private readonly cluster: KafkajsCluster;
  private connected: Promise<void> | undefined;
  private readonly topics = new Set<string>();
  /** What one round of fetches may bring in all (a memory budget's share), split among the leaders it asks. */
  private limitBytes = Number.POSITIVE_INFINITY;

  constructor(
    kafka: KafkaClient,
    private readonly options: ChangelogReaderOptions,
  ) {
    this.cluster = createCluster(kafka, { allowAutoTopicCreation: false, isolationLevel: isolationLevel(options.readCommitted) });
  }

  /** Caps what one round of fetches may bring, below `fetch.max.bytes`: the node's memory budget gives this reader a share. */
  limitFetch(bytes: number): void {
    this.limitBytes = Math.max(1, bytes);
  }

  /** The most one round of fetches may bring now: the budget's share, or without one `fetch.max.bytes` (per leader asked). */
  get fetchBytes(): number {
    return Math.min(this.options.maxBytes, this.limitBytes);
  }

  /**
   * One round of fetches, a request per leader, all in parallel: what each partition brought (possibly nothing
   * yet). A partition whose leader moved comes back empty, its metadata refreshed for the next round.
   */
  async fetch(positions: readonly ReadPosition[], options: { maxWaitMs?: number } = {}): Promise<FetchedPartition[]> {
    this.connected ??= this.cluster.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    await this.connected;
    const fresh = [...new Set(positions.map((p) => p.topic))].filter((t) => !this.topics.has(t));
    if (fresh.length > 0) {
      await this.cluster.addMultipleTargetTopics(fresh);
      for (const t of fresh) this.topics.add(t);
    }
    const byLeader = new Map<string, ReadPosition[]>();
    for (const [topic, list] of groupByTopic(positions)) {
      const leaders = this.cluster.findLeaderForPartitions(
        topic,
        list.map((p) => p.partition),
      );
      for (const [leader, partitions] of Object.entries(leaders)) {
        for (const p of list) if (partitions.includes(p.partition)) (byLeader.get(leader) ?? byLeader.set(leader, []).get(leader)!).push(p);
      }
    }
    // Within a budget's share, the round's requests split it: Kafka returns a first batch larger than asked for anyway.
    const maxBytes = Math.min(this.options.maxBytes, Math.floor(this.limitBytes / Math.max(1, byLeader.size)));
    const responses = await Promise.all(
      [...byLeader].map(async ([leader, list]) => this.fetchFrom(leader, await this.resolveEarliest(leader, list), options.maxWaitMs ?? this.options.maxWaitMs, maxBytes)),
    );
    const result = responses.flat();
    let stale = false;
    for (const p of result) {
      if (p.errorCode === 0) continue;
      if (LEADER_ERRORS.has(p.errorCode)) {
        stale = true;
        p.records.truncate(0);
        continue;
      }
      const position = positions.find((x) => x.topic === p.topic && x.partition === p.partition);
      if (p.errorCode === OFFSET_OUT_OF_RANGE) throw new OffsetOutOfRange(p.topic, p.partition, position?.offset ?? -1);
      throw createErrorFromCode(p.errorCode);
    }
    if (stale || byLeader.size === 0) await this.cluster.refreshMetadata();
    return result;
  }

  /** Positions at EARLIEST or LATEST become the log start or end offsets the leader reports now. */
  private async resolveEarliest(leader: string, positions: ReadPosition[]): Promise<ReadPosition[]> {
    const unresolved = positions.filter((p) => p.offset === EARLIEST || p.offset === LATEST);
    if (unresolved.length === 0) return positions;
    const broker = await this.cluster.findBroker({ nodeId: leader });
    const { responses } = await broker.listOffsets({
      replicaId: -1,
      isolationLevel: isolationLevel(this.options.readCommitted),
      topics: [...groupByTopic(unresolved)].map(([topic, list]) => ({
        topic,
        // ListOffsets' timestamps -2 and -1 ask for the log start and end: EARLIEST and LATEST are those.
        partitions: list.map((p) => ({ partition: p.partition, timestamp: p.offset })),
      })),
    });
    const starts = new TopicPartitionMap<number>();
    for (const t of responses) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) throw createErrorFromCode(p.errorCode);
        starts.set(t.topic, p.partition, Number(p.offset));
      }
    }
    return positions.map((p) => (p.offset === EARLIEST || p.offset === LATEST ? { ...p, offset: starts.get(p.topic, p.partition) ?? 0 } : p));
  }

  private async fetchFrom(leader: string, positions: ReadPosition[], maxWaitMs: number, maxBytes: number): Promise<FetchedPartition[]> {
    const broker = await this.cluster.findBroker({ nodeId: leader });
    const { readCommitted, asBatches = false } = this.options;
    const maxPartitionBytes = Math.min(this.options.maxPartitionBytes, maxBytes);
    return sendFetch(broker, leader, { partitions: positions, readCommitted, maxWaitMs, maxBytes, maxPartitionBytes, asBatches });
  }

  async close(): Promise<void> {
    const connected = this.connected;
    this.connected = undefined;
    if (connected) await this.cluster.disconnect().catch(() => undefined);
  }
}
