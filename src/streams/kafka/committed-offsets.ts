/**
 * The committed offsets a task starts from under exactly-once, read as the Java consumer reads them (KIP-447):
 * OffsetFetch with require_stable, tried again while a transaction holds offsets of a partition pending (sent, not
 * yet committed or aborted). kafkajs reads committed offsets without it (OffsetFetch v1-v4), at its first fetch after
 * a join: while the previous owner's last transaction is still completing, the broker answers the offset before it,
 * and the records that transaction consumed, whose output it commits, would be processed a second time.
 */
import { StreamsException } from '../../errors';
import { createCluster, createErrorFromCode, type KafkajsCluster, sendStableOffsetFetch } from './broker-requests';
import { isTransientKafkaError } from './errors';
import type { OffsetFetchResponse } from './offset-fetch';
import type { TopicPartition } from './topic-partition';
import type { KafkaClient } from './types';

/** The coordinator's answer for a partition whose offsets a transaction still holds. */
export const UNSTABLE_OFFSET_COMMIT = 88;

/** A partition's committed offset: the next record to read, -1 when the group has none. */
export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: number;
}

export interface StableReadOptions {
  /** How long to wait for pending transactions and to ride out transient failures before giving up. */
  timeoutMs: number;
  /** The first wait between two reads, doubled after each up to `maxBackoffMs` (Kafka's retry.backoff.ms and .max.ms). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

const BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1_000;

/**
 * Reads `partitions`' committed offsets with `fetch` (an OffsetFetch with require_stable) until none is unstable,
 * asking again for the unstable ones only; transient failures are tried again too, within `timeoutMs`.
 */
export async function readUntilStable(
  fetch: (partitions: readonly TopicPartition[]) => Promise<OffsetFetchResponse>,
  partitions: readonly TopicPartition[],
  options: StableReadOptions,
): Promise<CommittedOffset[]> {
  if (partitions.length === 0) return [];
  const deadline = Date.now() + options.timeoutMs;
  let backoff = options.backoffMs ?? BACKOFF_MS;
  const settled: CommittedOffset[] = [];
  let pending = partitions;
  for (;;) {
    let failure: unknown;
    try {
      const response = await fetch(pending);
      if (response.errorCode !== 0) throw createErrorFromCode(response.errorCode);
      const failed = response.partitions.find((p) => p.errorCode !== 0 && p.errorCode !== UNSTABLE_OFFSET_COMMIT);
      if (failed) throw createErrorFromCode(failed.errorCode);
      for (const { topic, partition, offset, errorCode } of response.partitions) if (errorCode === 0) settled.push({ topic, partition, offset });
      pending = response.partitions.filter((p) => p.errorCode === UNSTABLE_OFFSET_COMMIT).map(({ topic, partition }) => ({ topic, partition }));
      if (pending.length === 0) return settled;
      failure = createErrorFromCode(UNSTABLE_OFFSET_COMMIT);
    } catch (error) {
      if (!isTransientKafkaError(error)) throw error;
      failure = error;
    }
    if (Date.now() + backoff > deadline) {
      const which = pending.map((tp) => `${tp.topic}-${tp.partition}`).join(', ');
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new StreamsException(`the committed offsets of ${which} could not be read stably within ${options.timeoutMs} ms: ${reason}`, { cause: failure });
    }
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(2 * backoff, options.maxBackoffMs ?? MAX_BACKOFF_MS);
  }
}

/** One consumer group's committed offsets, read stably, over connections of its own. */
export class StableOffsetReader {
  private readonly cluster: KafkajsCluster;
  private connected: Promise<void> | undefined;

  constructor(
    kafka: KafkaClient,
    private readonly groupId: string,
    private readonly options: StableReadOptions,
  ) {
    this.cluster = createCluster(kafka, { allowAutoTopicCreation: false });
  }

  /** The committed offsets of `partitions`, once no transaction holds offsets of theirs pending. */
  committed(partitions: readonly TopicPartition[]): Promise<CommittedOffset[]> {
    return readUntilStable((pending) => this.fetch(pending), partitions, this.options);
  }

  private async fetch(partitions: readonly TopicPartition[]): Promise<OffsetFetchResponse> {
    this.connected ??= this.cluster.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    await this.connected;
    return sendStableOffsetFetch(await this.cluster.findGroupCoordinator({ groupId: this.groupId }), this.groupId, partitions);
  }

  async close(): Promise<void> {
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.cluster.disconnect();
  }
}
