import { randomUUID } from 'node:crypto';
import { StreamsException } from '../../errors';
import { createConsumer } from '../kafka/client';
import { groupProtocolAssigner } from '../kafka/group-protocol';
import type { KafkaClient } from '../kafka/types';
import type { ChangelogRecord } from '../state/store';

/** One changelog partition to read: from `startOffset` (inclusive) up to `endOffset` (exclusive). */
export interface RestorePartition {
  topic: string;
  partition: number;
  startOffset: number;
  endOffset: number;
}

export interface RestoreProgress {
  topic: string;
  partition: number;
  /** Records applied so far. */
  restored: number;
  /** Records to apply in all (end - start). */
  total: number;
  done: boolean;
}

/**
 * Reads changelog partitions from given offsets to the end captured before, and hands the records to the
 * stores. kafkajs has no manual partition assignment, so the reader is a consumer in a group of its own whose
 * assignor gives it exactly these partitions; it never commits, so the group vanishes when it leaves.
 */
export async function restoreChangelogs(
  kafka: KafkaClient,
  groupPrefix: string,
  partitions: readonly RestorePartition[],
  apply: (topic: string, partition: number, records: ChangelogRecord[]) => void,
  onProgress: (progress: RestoreProgress) => void,
  options: { readCommitted?: boolean } = {},
): Promise<void> {
  const pending = partitions.filter((p) => p.startOffset < p.endOffset);
  for (const p of partitions) {
    if (p.startOffset >= p.endOffset) onProgress({ topic: p.topic, partition: p.partition, restored: 0, total: 0, done: true });
  }
  if (pending.length === 0) return;

  const byKey = new Map(pending.map((p) => [`${p.topic}\u0000${p.partition}`, { ...p, restored: 0, done: false }]));
  const consumer = createConsumer(kafka, {
    groupId: `${groupPrefix}-restore-${randomUUID()}`,
    partitionAssigners: [
      groupProtocolAssigner({
        name: 'sluice-restore',
        version: 1,
        userData: () => Buffer.alloc(0),
        assign: (members) =>
          new Map(members.map((m, i) => [m.memberId, i === 0 ? pending.map(({ topic, partition }) => ({ topic, partition })) : []])),
      }),
    ],
    maxWaitTimeMs: 100,
    // Exactly-once: what aborted transactions wrote to a changelog is never restored.
    isolationLevel: options.readCommitted ? 'read_committed' : 'read_uncommitted',
  });
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let remaining = pending.length;
  const advance = (state: RestorePartition & { restored: number; done: boolean }, lastOffset: number): void => {
    if (lastOffset + 1 >= state.endOffset) {
      state.done = true;
      remaining--;
    }
    onProgress({
      topic: state.topic,
      partition: state.partition,
      restored: state.restored,
      total: state.endOffset - state.startOffset,
      done: state.done,
    });
    if (remaining === 0) finish();
  };
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...new Set(pending.map((p) => p.topic))], fromBeginning: true });
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart) fail(event.payload.error);
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch }) => {
        const state = byKey.get(`${batch.topic}\u0000${batch.partition}`);
        if (!state || state.done) return;
        const records: ChangelogRecord[] = [];
        for (const m of batch.messages) {
          const offset = Number(m.offset);
          if (offset < state.startOffset || offset >= state.endOffset) continue;
          records.push({ key: m.key ?? Buffer.alloc(0), value: m.value, timestamp: Number(m.timestamp) });
        }
        if (records.length > 0) apply(batch.topic, batch.partition, records);
        state.restored += records.length;
        advance(state, Number(batch.lastOffset()));
      },
    });
    // A batch of transaction markers only (the end of a transactional changelog) never reaches eachBatch.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const state = byKey.get(`${payload.topic}\u0000${payload.partition}`);
      if (state && !state.done && payload.batchSize === 0) advance(state, Number(payload.lastOffset));
    });
    for (const p of pending) consumer.seek({ topic: p.topic, partition: p.partition, offset: String(p.startOffset) });
    await finished;
  } catch (error) {
    throw new StreamsException(`restoring changelogs failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}
