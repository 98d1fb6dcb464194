/**
 * What the stream threads' consumers fetch, decoded and batched in fewer objects than kafkajs 2.2.4 makes: its
 * decoder builds a Decoder, two Longs and a spread headers object per record, and its Batch a Long per record to
 * compare offsets; a fetch's records live until they are processed, so the young generation's collections copy
 * them all (a third of the bytes a word count allocated). Here the codec (record-batch.ts) reads each record into one
 * object, which is the very record a task processes: offsets and timestamps as numbers (offsets stay far below 2^53,
 * and kafkajs' own uses of them take numbers as well as its decimal strings), the topic and partition set by the
 * batch. Only record batches of magic 2 (Kafka 0.11 and later) are read here; older message sets go to kafkajs' own
 * decoder, whose messages are then given the same shape.
 */
import { AbortedTransactions, type AbortedTransaction } from './aborted-transactions';
import { CONTROL_FLAG, decodeRecordBatches, holdsRecordBatches, LOG_APPEND_TIME_FLAG, type RecordBatchHeader, type RecordHeaders, type RecordSink, TRANSACTIONAL_FLAG } from './record-batch';
import type { ConsumedRecord, FetchedBatch, RecordBytes } from './types';

/** What kafkajs tells of a record's batch, on every record of it. */
interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
}

/** A consumed record with what its batch tells of it: what kafkajs' Batch and the read_committed filter look at. */
export interface BatchedRecord extends ConsumedRecord {
  topic: string;
  partition: number;
  readonly isControlRecord: boolean;
  readonly batchContext: BatchContext;
}

/**
 * A record read from a fetch, whose key and value stay in the fetch's buffer until asked for: a record waits in its
 * task's queue until processed, across young-generation collections, which copy every object it holds (two views
 * and a headers object made it three times as large). Each read of `key` or `value` makes a new view; `headers`
 * is made on first read when the record has none.
 */
class DecodedRecord implements BatchedRecord, RecordBytes {
  topic = '';
  partition = -1;

  constructor(
    readonly data: Buffer,
    /** -1: a null key. */
    readonly keyStart: number,
    readonly keyEnd: number,
    readonly valueStart: number,
    readonly valueEnd: number,
    readonly offset: number,
    readonly timestamp: number,
    private headerMap: RecordHeaders | undefined,
    readonly isControlRecord: boolean,
    readonly batchContext: BatchContext,
  ) {}

  get key(): Buffer | null {
    return this.keyStart < 0 ? null : this.data.subarray(this.keyStart, this.keyEnd);
  }

  get value(): Buffer | null {
    return this.valueStart < 0 ? null : this.data.subarray(this.valueStart, this.valueEnd);
  }

  get headers(): RecordHeaders {
    return (this.headerMap ??= {});
  }

  get bytes(): RecordBytes {
    return this;
  }

  /** Its fields, the views included, for JSON.stringify (a logged record) and the like. */
  toJSON(): Omit<BatchedRecord, 'batchContext'> {
    return { topic: this.topic, partition: this.partition, offset: this.offset, timestamp: this.timestamp, key: this.key, value: this.value, headers: this.headers, isControlRecord: this.isControlRecord };
  }
}

const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;

/** Makes the fetched records of one partition, control records included, each with its batch's context. */
class ConsumedRecordSink implements RecordSink {
  readonly readsHeaders = true;
  readonly records: BatchedRecord[] = [];
  private context: BatchContext | undefined;

  batch(header: RecordBatchHeader): boolean {
    const attributes = header.attributes;
    this.context = {
      firstOffset: String(header.firstOffset),
      firstTimestamp: String(header.firstTimestamp),
      partitionLeaderEpoch: header.partitionLeaderEpoch,
      inTransaction: (attributes & TRANSACTIONAL_FLAG) !== 0,
      isControlBatch: (attributes & CONTROL_FLAG) !== 0,
      lastOffsetDelta: header.lastOffsetDelta,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      firstSequence: header.firstSequence,
      maxTimestamp: String(header.maxTimestamp),
      timestampType: (attributes & LOG_APPEND_TIME_FLAG) !== 0 ? LOG_APPEND_TIME : CREATE_TIME,
      magicByte: header.magic,
    };
    return true;
  }

  record(data: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset: number, timestamp: number, headers: RecordHeaders | undefined): void {
    const context = this.context!;
    this.records.push(new DecodedRecord(data, keyStart, keyEnd, valueStart, valueEnd, offset, timestamp, headers, context.isControlBatch, context));
  }
}

/** The records of the consecutive record batches of `data` (a partition's record set), control records included. */
export async function consumedRecords(data: Buffer): Promise<BatchedRecord[]> {
  const sink = new ConsumedRecordSink();
  await decodeRecordBatches(data, 'the fetched partition', sink);
  return sink.records;
}

/** A message of kafkajs' own decoder (older message sets): offsets and timestamps as decimal strings. */
interface KafkajsMessage {
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeaders;
  isControlRecord?: boolean;
  batchContext?: BatchContext;
}

const LEGACY_BATCH_CONTEXT: BatchContext = {
  firstOffset: '0',
  firstTimestamp: '0',
  partitionLeaderEpoch: -1,
  inTransaction: false,
  isControlBatch: false,
  lastOffsetDelta: 0,
  producerId: '-1',
  producerEpoch: -1,
  firstSequence: -1,
  maxTimestamp: '0',
  timestampType: 0,
  magicByte: 1,
};

function fromKafkajs(m: KafkajsMessage): BatchedRecord {
  return {
    topic: '',
    partition: -1,
    offset: Number(m.offset),
    timestamp: Number(m.timestamp),
    key: m.key,
    value: m.value,
    headers: m.headers ?? {},
    isControlRecord: m.isControlRecord ?? false,
    batchContext: m.batchContext ?? LEGACY_BATCH_CONTEXT,
  };
}

/** The part of kafkajs' protocol Decoder that the fetch response's record set is read from. */
interface KafkajsDecoder {
  offset: number;
  readInt32(): number;
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer | null;
}

type DecodeMessages = (decoder: KafkajsDecoder) => Promise<unknown[]>;

/**
 * kafkajs' `decodeMessages` (the record set of a partition in a Fetch response, v4 and later), reading record
 * batches with the codec and handing older message sets to `legacy`, kafkajs' own.
 */
export function recordSetDecoder(legacy: DecodeMessages): DecodeMessages {
  return async (decoder) => {
    const start = decoder.offset;
    const size = decoder.readInt32();
    if (size <= 0 || !decoder.canReadBytes(size)) return [];
    const records = decoder.readBytes(size)!;
    if (!holdsRecordBatches(records)) {
      decoder.offset = start;
      return ((await legacy(decoder)) as KafkajsMessage[]).map(fromKafkajs);
    }
    return consumedRecords(records);
  };
}

/**
 * kafkajs' Batch, with offsets as numbers (they stay far below 2^53) where kafkajs used Longs: the records of one
 * fetch of one partition, those before the fetch offset (a compressed batch may begin before it), aborted ones and
 * control records left out.
 */
export class DecodedBatch implements FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: string;
  readonly rawMessages: BatchedRecord[];
  readonly messagesWithinOffset: BatchedRecord[];
  readonly messages: BatchedRecord[];

  constructor(
    topic: string,
    readonly fetchedOffset: string,
    partitionData: { partition: number; highWatermark: string; messages: BatchedRecord[]; abortedTransactions?: AbortedTransaction[] },
  ) {
    this.topic = topic;
    this.partition = partitionData.partition;
    this.highWatermark = partitionData.highWatermark;
    this.rawMessages = partitionData.messages;
    for (const message of this.rawMessages) {
      message.topic = topic;
      message.partition = this.partition;
    }
    // Records come in offset order: those before the fetch offset are a prefix.
    const from = Number(fetchedOffset);
    let first = 0;
    while (first < this.rawMessages.length && this.rawMessages[first]!.offset < from) first++;
    this.messagesWithinOffset = first === 0 ? this.rawMessages : this.rawMessages.slice(first);
    const kept = withoutAborted(this.messagesWithinOffset, partitionData.abortedTransactions ?? []);
    this.messages = kept.some((message) => message.isControlRecord) ? kept.filter((message) => !message.isControlRecord) : kept;
  }

  isEmpty(): boolean {
    return this.messages.length === 0;
  }

  isEmptyIncludingFiltered(): boolean {
    return this.messagesWithinOffset.length === 0;
  }

  isEmptyDueToFiltering(): boolean {
    return this.isEmpty() && this.rawMessages.length > 0;
  }

  isEmptyControlRecord(): boolean {
    return this.isEmpty() && this.messagesWithinOffset.some((message) => message.isControlRecord);
  }

  isEmptyDueToLogCompactedMessages(): boolean {
    return this.rawMessages.length > 0 && this.isEmptyIncludingFiltered();
  }

  firstOffset(): string | null {
    return this.isEmptyIncludingFiltered() ? null : String(this.messagesWithinOffset[0]!.offset);
  }

  lastOffset(): string {
    if (this.isEmptyDueToLogCompactedMessages()) return this.fetchedOffset;
    if (this.isEmptyIncludingFiltered()) return String(Number(this.highWatermark) - 1);
    return String(this.messagesWithinOffset[this.messagesWithinOffset.length - 1]!.offset);
  }

  offsetLag(): string {
    return String(Number(this.highWatermark) - 1 - Number(this.lastOffset()));
  }

  offsetLagLow(): string {
    if (this.isEmptyIncludingFiltered()) return '0';
    return String(Number(this.highWatermark) - 1 - this.messagesWithinOffset[0]!.offset);
  }
}

/** What the read_committed filter looks at of a record. */
export interface TransactionalRecord {
  readonly offset: number;
  readonly key: Buffer | null;
  readonly isControlRecord: boolean;
  readonly batchContext: Pick<BatchContext, 'producerId' | 'inTransaction'>;
}

/** The records that belong to no aborted transaction (control records kept): kafkajs' `filterAbortedMessages`, walking the transactions by first offset. */
export function withoutAborted<R extends TransactionalRecord>(records: R[], transactions: readonly AbortedTransaction[]): R[] {
  if (transactions.length === 0) return records;
  const aborted = new AbortedTransactions(transactions);
  return records.filter((record) => {
    const { producerId, inTransaction } = record.batchContext;
    if (record.isControlRecord) {
      aborted.control(producerId, record.offset, record.key);
      return true;
    }
    return !(inTransaction && aborted.aborts(producerId, record.offset));
  });
}
