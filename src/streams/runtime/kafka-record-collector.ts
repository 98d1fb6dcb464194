import { type SluiceError, StreamsException } from '../../errors';
import { isRecordRefusedError, isTransientKafkaError, isUnknownTopicError, type KafkaProducer, type OutgoingRecord, TopicPartitionMap } from '../kafka';
import type { HandlerResponse } from './exception-handlers';
import { type CollectedRecord, type ProducedRecord, producedRecord, type RecordCollector } from './record-collector';

/** Where a collector's batches go: a producer, or a task's transaction under exactly-once. */
export type RecordSender = Pick<KafkaProducer, 'sendBatch'>;

export interface CollectorOptions {
  /** Records per produce request (they follow each other with no gap); default 5 000. */
  maxBatch?: number;
  /**
   * Bytes per produce request, roughly (keys, values, headers and per-record overhead); default 1 000 000, under the
   * broker's `message.max.bytes` (1 MiB by default), which refuses a partition's batch above it.
   */
  maxBatchBytes?: number;
  /**
   * How long a batch is sent again after a transient failure (Kafka Streams' `task.timeout.ms`); default 5
   * minutes. 0 under exactly-once: a batch sent again inside a transaction could be written twice.
   */
  retryForMs?: number;
  /** Told of each transient failure that is retried. */
  onRetry?: (error: unknown, attempt: number) => void;
  /**
   * Asked about a record the broker refuses alone (too large, invalid): CONTINUE skips it. Given, a batch the broker
   * refuses for its records is split until the refused records are alone, as Java's producer splits a batch too
   * large; absent (exactly-once: a transaction's refused produce cannot be undone), such a batch fails the sends.
   */
  onRefused?: (record: ProducedRecord, error: Error) => HandlerResponse;
}

/**
 * Collects what a task produces (sink records, changelog writes) and sends it in batches, through the thread's
 * producer or, under exactly-once, the task's transaction.
 * `send` is synchronous so processing never waits on the network; `sendBuffered` starts a batch and `flush`
 * waits until everything is acknowledged. One batch is in flight at a time: kafkajs may put two concurrent
 * `sendBatch` calls on the wire in either order, which would reorder a changelog (its last record per key
 * must be the latest value); records buffered meanwhile go out together as the next batch. A batch that fails
 * for a transient reason (the broker unreachable) is sent again, whole and before anything newer, until
 * `task.timeout.ms` has passed since its first failure (never under exactly-once). It also remembers the highest offset written to each
 * changelog partition: the checkpoint written after a commit.
 */
export class KafkaRecordCollector implements RecordCollector {
  /** Records in the order they were produced; each is also the message handed to the producer. */
  private buffer: CollectedRecord[] = [];
  private head = 0;
  private inFlight: Promise<void> | undefined;
  private failure: Error | undefined;
  private discarded = false;
  /** Offset of the last record written to each partition (explicit partitions only). */
  private readonly writtenOffsets = new TopicPartitionMap<number>();
  /** Records sent since creation. */
  sentRecords = 0;

  private readonly maxBatch: number;
  private readonly maxBatchBytes: number;
  private readonly retryForMs: number;
  private readonly onRetry: (error: unknown, attempt: number) => void;
  private readonly onRefused: CollectorOptions['onRefused'];

  constructor(
    private readonly sender: RecordSender,
    private readonly partitionCounts: ReadonlyMap<string, number>,
    options: CollectorOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 5_000;
    this.maxBatchBytes = options.maxBatchBytes ?? 1_000_000;
    this.retryForMs = options.retryForMs ?? 300_000;
    this.onRetry = options.onRetry ?? (() => undefined);
    this.onRefused = options.onRefused;
  }

  /** Records waiting to be sent (not counting the batch in flight). */
  get buffered(): number {
    return this.buffer.length - this.head;
  }

  /**
   * Waits until at most `records` are waiting (or a send failed): the back-pressure that keeps a thread which
   * processes faster than the producer sends from buffering its whole backlog in memory, as the Java
   * producer's `buffer.memory` does by blocking `send`.
   */
  async drainTo(records: number): Promise<void> {
    while (this.buffered > records && !this.failure) {
      this.sendBuffered();
      await this.inFlight;
    }
  }

  send(record: CollectedRecord): void {
    if (this.failure) throw this.failure;
    this.buffer.push(record);
    if (this.buffered >= this.maxBatch) this.sendBuffered();
  }

  partitionCount(topic: string): number | undefined {
    return this.partitionCounts.get(topic);
  }

  /** Starts sending what is buffered, unless a batch is in flight (then it follows that one). */
  sendBuffered(): void {
    if (this.buffered === 0 || this.inFlight) return;
    let end = this.head;
    for (let bytes = 0; end < this.buffer.length && end - this.head < this.maxBatch; end++) {
      bytes += recordBytes(this.buffer[end]!);
      if (bytes > this.maxBatchBytes && end > this.head) break;
    }
    const entries = this.buffer.slice(this.head, end);
    this.sentRecords += end - this.head;
    this.head = end;
    if (this.head === this.buffer.length) {
      this.buffer = [];
      this.head = 0;
    }
    this.inFlight = this.deliver(entries).finally(() => {
      this.inFlight = undefined;
      if (!this.failure) this.sendBuffered();
    });
  }

  /**
   * Sends records in order. A batch the broker refuses for its records is split in halves, sent one after the other
   * (so each partition keeps its order), until a refused record is alone: then the handler decides. The halves may
   * write again what other partitions of the refused request had taken (at-least-once only, where that is allowed).
   */
  private async deliver(entries: readonly CollectedRecord[]): Promise<void> {
    const error = await this.produce(entries);
    if (error === undefined) return;
    if (this.onRefused === undefined || this.discarded || !isRecordRefusedError(error)) {
      this.failure ??= this.sendFailure(error, entries);
      return;
    }
    if (entries.length > 1) {
      const half = Math.ceil(entries.length / 2);
      await this.deliver(entries.slice(0, half));
      if (!this.failure) await this.deliver(entries.slice(half));
      return;
    }
    const refused = entries[0]!;
    const cause = error instanceof Error ? error : new Error(String(error));
    let response: HandlerResponse;
    try {
      response = this.onRefused(producedRecord(refused), cause);
    } catch (thrown) {
      this.failure ??= new StreamsException(`the production exception handler threw: ${thrown instanceof Error ? thrown.message : String(thrown)}`, { cause: thrown });
      return;
    }
    if (response !== 'CONTINUE') this.failure ??= this.sendFailure(error, entries);
  }

  /** One produce of these records, sent again after transient failures within retryForMs; answers the error it ended with. */
  private async produce(entries: readonly CollectedRecord[]): Promise<unknown> {
    const byTopic = new Map<string, OutgoingRecord[]>();
    const counts = new TopicPartitionMap<number>();
    for (const record of entries) {
      const list = byTopic.get(record.topic);
      if (list) list.push(record);
      else byTopic.set(record.topic, [record]);
      if (record.partition !== undefined) counts.set(record.topic, record.partition, (counts.get(record.topic, record.partition) ?? 0) + 1);
    }
    const topicMessages = [...byTopic.entries()].map(([topic, messages]) => ({ topic, messages }));
    let deadline: number | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const metadata = await this.sender.sendBatch({ topicMessages, acks: -1 });
        for (const m of metadata) {
          const count = counts.get(m.topicName, m.partition);
          if (count === undefined || m.baseOffset === undefined) continue;
          const last = Number(m.baseOffset) + count - 1;
          if (last > (this.writtenOffsets.get(m.topicName, m.partition) ?? -1)) this.writtenOffsets.set(m.topicName, m.partition, last);
        }
        return undefined;
      } catch (error) {
        deadline ??= Date.now() + this.retryForMs;
        if (this.discarded || !isTransientKafkaError(error) || Date.now() >= deadline) return error;
        this.onRetry(error, attempt);
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)));
      }
    }
  }

  /** The error that fails the task's sends, saying what Kafka refused. */
  private sendFailure(error: unknown, entries: readonly CollectedRecord[]): SluiceError {
    const retried = isTransientKafkaError(error) && !this.discarded && this.retryForMs > 0;
    const reason = retried ? ` (retried for task.timeout.ms = ${this.retryForMs})` : '';
    const topics = [...new Set(entries.map((e) => e.topic))].join(' or ');
    // Sluice creates the topics it writes to and never lets a send create one: a topic gone is one deleted.
    const missing = isUnknownTopicError(error) ? `: topic ${topics} does not exist (deleted while the application runs?) or lacks the partition` : '';
    const refused = isRecordRefusedError(error) ? `: the broker refused ${entries.length === 1 ? `a record for ${topics}` : `records for ${topics}`}` : '';
    return new StreamsException(`sending records to Kafka failed${reason}${missing}${refused}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  /** Sends what is buffered and waits until every record is acknowledged; throws if any send failed. */
  async flush(): Promise<void> {
    this.sendBuffered();
    while (this.inFlight) await this.inFlight;
    if (this.failure) throw this.failure;
  }

  /** Offset of the last record acknowledged on a partition, or undefined. */
  writtenOffset(topic: string, partition: number): number | undefined {
    return this.writtenOffsets.get(topic, partition);
  }

  /** Drops buffered records (the task is being abandoned; its input will be re-read). */
  discard(): void {
    this.discarded = true;
    this.buffer = [];
    this.head = 0;
  }
}

/** Kafka's per-record overhead in a record batch (attributes, deltas, lengths as varints), at most. */
const RECORD_OVERHEAD_BYTES = 24;

/** A record's size in a produce request, near enough to keep a batch under the broker's limit. */
function recordBytes(record: CollectedRecord): number {
  let bytes = RECORD_OVERHEAD_BYTES + dataBytes(record.key) + dataBytes(record.value);
  // for-in: no entries array per record on the hot path (most records have no headers).
  for (const name in record.headers) bytes += 2 + Buffer.byteLength(name) + headerBytes(record.headers[name]);
  return bytes;
}

/** A header's value as a fetched record forwards it: Kafka lets a value be null and a name repeat (a list). */
function headerBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, one: unknown) => sum + headerBytes(one), 0);
  return Buffer.byteLength(value as Buffer | string);
}

function dataBytes(data: Buffer | string | null): number {
  return data === null ? 0 : typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.length;
}
