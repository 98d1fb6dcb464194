import { type SluiceError, StreamsException } from '../../errors';
import {
  isRecordRefusedError,
  isTransientKafkaError,
  isUnknownTopicError,
  type KafkaProducer,
  type OutgoingRecord,
  partitionForKey,
  ProducedRecords,
  producedRecordsMessage,
  TopicPartitionMap,
} from '../kafka';
import type { HandlerResponse } from './exception-handlers';
import type { ProduceBuffer } from './produce-buffer';
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
  /** The thread's producer buffer, which counts each record's bytes from `send` until acknowledged. */
  buffer?: ProduceBuffer;
}

/**
 * Records collected for one produce request: each written as it is sent into its partition's bytes (`ProducedRecords`,
 * the partition picked then, as the producer would), or, for a topic whose partition count is unknown (a topic
 * chosen per record that Sluice did not create), kept as the record for kafkajs' producer to partition.
 */
interface Segment {
  readonly written: TopicPartitionMap<ProducedRecords>;
  readonly loose: CollectedRecord[];
  records: number;
  /** The records' bytes in a request, near enough (recordBytes). */
  bytes: number;
}

/**
 * Collects what a task produces (sink records, changelog writes) and sends it in batches, through the thread's
 * producer or, under exactly-once, the task's transaction.
 * `send` is synchronous so processing never waits on the network; `sendBuffered` starts a batch and `flush`
 * waits until everything is acknowledged. One batch is in flight at a time: kafkajs may put two concurrent
 * `sendBatch` calls on the wire in either order, which would reorder a changelog (its last record per key
 * must be the latest value); records buffered meanwhile go out together as the next batch. Each record is written
 * into its partition's bytes as it is sent (`Segment`), so that what waits is bytes, not objects. A batch that fails
 * for a transient reason (the broker unreachable) is sent again, whole and before anything newer, until
 * `task.timeout.ms` has passed since its first failure (never under exactly-once). It also remembers the highest offset written to each
 * changelog partition: the checkpoint written after a commit.
 */
export class KafkaRecordCollector implements RecordCollector {
  /** What waits to be sent, a produce request's worth each, oldest first; records go into the last. */
  private segments: Segment[] = [];
  private waiting = 0;
  /** Per topic, the partition the last record without key or partition went to (round robin). */
  private readonly unkeyedPartitions = new Map<string, number>();
  private inFlight: Promise<void> | undefined;
  private failure: Error | undefined;
  private discarded = false;
  /** Offset of the last record written to each partition (explicit partitions only). */
  private readonly writtenOffsets = new TopicPartitionMap<number>();
  /** Records sent since creation. */
  sentRecords = 0;
  /** Bytes reserved in the thread's buffer and not yet released: those waiting and in flight. */
  private held = 0;

  private readonly maxBatch: number;
  private readonly maxBatchBytes: number;
  private readonly retryForMs: number;
  private readonly onRetry: (error: unknown, attempt: number) => void;
  private readonly onRefused: CollectorOptions['onRefused'];
  private readonly buffer: ProduceBuffer | undefined;

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
    this.buffer = options.buffer;
  }

  send(record: CollectedRecord): void {
    if (this.failure) throw this.failure;
    const bytes = recordBytes(record);
    let segment = this.segments[this.segments.length - 1];
    if (segment === undefined || segment.records >= this.maxBatch || (segment.bytes + bytes > this.maxBatchBytes && segment.records > 0)) {
      segment = { written: new TopicPartitionMap(), loose: [], records: 0, bytes: 0 };
      this.segments.push(segment);
    }
    const count = this.partitionCounts.get(record.topic);
    if (count === undefined) segment.loose.push(record);
    else {
      const partition = record.partition ?? this.partitionOf(record, count);
      let written = segment.written.get(record.topic, partition);
      if (written === undefined) segment.written.set(record.topic, partition, (written = new ProducedRecords(record.topic, partition)));
      written.append(record.key, record.value, record.timestamp, record.headers);
    }
    segment.records++;
    segment.bytes += bytes;
    this.held += bytes;
    this.buffer?.reserve(bytes);
    this.waiting++;
    if (this.waiting >= this.maxBatch) this.sendBuffered();
  }

  /** The partition Java's producer picks: by the key's murmur2, or round robin for a record without a key. */
  private partitionOf(record: CollectedRecord, count: number): number {
    if (record.key !== null) return partitionForKey(record.key, count);
    const next = ((this.unkeyedPartitions.get(record.topic) ?? Math.floor(Math.random() * count)) + 1) % count;
    this.unkeyedPartitions.set(record.topic, next);
    return next;
  }

  partitionCount(topic: string): number | undefined {
    return this.partitionCounts.get(topic);
  }

  /** Starts sending what is buffered, unless a batch is in flight (then it follows that one). */
  sendBuffered(): void {
    if (this.waiting === 0 || this.inFlight) return;
    const segment = this.segments.shift()!;
    this.waiting -= segment.records;
    this.sentRecords += segment.records;
    this.inFlight = this.deliverSegment(segment).finally(() => {
      this.inFlight = undefined;
      // Nothing more is sent after a failure: what waits is dropped with the task, so it no longer holds the buffer.
      this.releaseHeld(this.failure ? this.held : segment.bytes);
      if (!this.failure) this.sendBuffered();
    });
  }

  private releaseHeld(bytes: number): void {
    const released = Math.min(bytes, this.held);
    this.held -= released;
    this.buffer?.release(released);
  }

  /** Sends a segment as one request; one the broker refuses for its records is split as `deliver` splits records. */
  private async deliverSegment(segment: Segment): Promise<void> {
    const topicMessages = new Map<string, OutgoingRecord[]>();
    const counts = new TopicPartitionMap<number>();
    for (const written of segment.written.values()) {
      messagesOf(topicMessages, written.topic).push(producedRecordsMessage(written));
      counts.set(written.topic, written.partition, written.count);
    }
    for (const record of segment.loose) countRecord(topicMessages, counts, record);
    const error = await this.produce(topicMessages, counts);
    if (error !== undefined) await this.recover(error, recordsOf(segment));
  }

  /** Sends records in order, as one request. */
  private async deliver(entries: readonly CollectedRecord[]): Promise<void> {
    const topicMessages = new Map<string, OutgoingRecord[]>();
    const counts = new TopicPartitionMap<number>();
    for (const record of entries) countRecord(topicMessages, counts, record);
    const error = await this.produce(topicMessages, counts);
    if (error !== undefined) await this.recover(error, entries);
  }

  /**
   * After a produce of these records failed, the sends fail, unless the broker refused the records and a handler is
   * given: then they are split in halves, sent one after the other (so each partition keeps its order), until a
   * refused record is alone, and the handler decides. The halves may write again what other partitions of the refused
   * request had taken (at-least-once only, where that is allowed).
   */
  private async recover(error: unknown, entries: readonly CollectedRecord[]): Promise<void> {
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

  /**
   * One produce of these messages, sent again after transient failures within retryForMs; answers the error it ended
   * with. `counts`: the records of each partition the request names, whose last written offset it then knows.
   */
  private async produce(byTopic: ReadonlyMap<string, OutgoingRecord[]>, counts: TopicPartitionMap<number>): Promise<unknown> {
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
    this.segments = [];
    this.waiting = 0;
    this.releaseHeld(this.held);
  }
}

function messagesOf(byTopic: Map<string, OutgoingRecord[]>, topic: string): OutgoingRecord[] {
  let messages = byTopic.get(topic);
  if (messages === undefined) byTopic.set(topic, (messages = []));
  return messages;
}

/** Adds a record as a message of its topic, counted on its partition when it names one. */
function countRecord(byTopic: Map<string, OutgoingRecord[]>, counts: TopicPartitionMap<number>, record: CollectedRecord): void {
  messagesOf(byTopic, record.topic).push(record);
  if (record.partition !== undefined) counts.set(record.topic, record.partition, (counts.get(record.topic, record.partition) ?? 0) + 1);
}

/**
 * A segment's records as records again, each partition's in order, for a request the broker refused to be split. The
 * written ones are read back from their bytes, with the partition they were written for.
 */
function recordsOf(segment: Segment): CollectedRecord[] {
  const records: CollectedRecord[] = [];
  for (const written of segment.written.values()) {
    for (const { key, value, timestamp, headers } of written.read()) records.push({ topic: written.topic, partition: written.partition, key, value, timestamp, headers: headers as CollectedRecord['headers'] });
  }
  records.push(...segment.loose);
  return records;
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
