import { TaskMigrated } from '../../errors';
import { createTransactionalProducer, type KafkaClient, type KafkaProducer, type KafkaTransaction } from '../kafka';
import type { RecordSender } from './kafka-record-collector';

/** A consumed position to commit: the offset of the next record to read. */
export interface OffsetToCommit {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * A task's output under exactly-once: its own transactional producer, with `transactional.id`
 * `<application.id>-<taskId>`, and the transaction that is open between two commits. What the task sends
 * (sinks, changelogs) and the input offsets it consumed are committed together, or not at all.
 *
 * Kafka Streams' exactly_once_v2 shares one producer per thread and fences zombies with the consumer group's
 * generation (KIP-447); kafkajs' TxnOffsetCommit cannot carry that generation, so Sluice fences as Kafka
 * Streams' first exactly-once protocol did: the id belongs to the task, and a new owner's producer, starting,
 * aborts whatever the previous owner left open and makes the broker refuse it from then on.
 */
export class TaskTransaction implements RecordSender {
  /**
   * Why the transaction's outcome is unknown: a commit that failed midway leaves kafkajs' producer in COMMITTING
   * (whether the broker ended the transaction is not known), and it refuses every later transaction. Only a new
   * producer of the id (which aborts or finds committed what was left) can go on.
   */
  private lost: Error | undefined;

  private constructor(
    private readonly producer: KafkaProducer,
    private readonly groupId: string,
    private readonly taskId: string,
    private transaction: KafkaTransaction | undefined,
  ) {}

  /**
   * Connects the task's producer and begins its first transaction. That registers the transactional id with the
   * broker, which fences any earlier producer of the task and aborts what it left open: the changelogs are then
   * stable (read_committed readers see their end) before the task restores from them.
   */
  static async open(kafka: KafkaClient, applicationId: string, taskId: string): Promise<TaskTransaction> {
    const producer = createTransactionalProducer(kafka, { transactionalId: `${applicationId}-${taskId}` });
    await producer.connect();
    try {
      return new TaskTransaction(producer, applicationId, taskId, await producer.transaction());
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
  }

  async sendBatch(batch: Parameters<KafkaProducer['sendBatch']>[0]): ReturnType<KafkaProducer['sendBatch']> {
    if (this.lost) throw this.lost;
    this.transaction ??= await this.producer.transaction();
    return this.transaction.sendBatch(batch);
  }

  /** Commits what was sent together with these consumed offsets; nothing to commit is a no-op. */
  async commit(offsets: readonly OffsetToCommit[]): Promise<void> {
    if (this.lost) throw this.lost;
    if (!this.transaction && offsets.length === 0) return;
    this.transaction ??= await this.producer.transaction();
    if (offsets.length > 0) {
      const topics = new Map<string, { partition: number; offset: string }[]>();
      for (const o of offsets) {
        const list = topics.get(o.topic) ?? [];
        list.push({ partition: o.partition, offset: String(o.offset) });
        topics.set(o.topic, list);
      }
      await this.transaction.sendOffsets({
        consumerGroupId: this.groupId,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      });
    }
    const transaction = this.transaction;
    this.transaction = undefined;
    try {
      await transaction.commit();
    } catch (error) {
      const detail = `its commit failed (${error instanceof Error ? error.message : String(error)})`;
      this.lost = new TaskMigrated(this.taskId, detail, { cause: error });
      throw this.lost;
    }
  }

  /** Aborts the open transaction, if any: its records are never read by read_committed consumers. */
  async abort(): Promise<void> {
    const transaction = this.transaction;
    this.transaction = undefined;
    if (transaction?.isActive()) await transaction.abort();
  }

  async close(): Promise<void> {
    await this.abort().catch(() => undefined);
    await this.producer.disconnect();
  }
}
