/**
 * What the stream threads' consumers fetch, decoded and batched in fewer objects than kafkajs 2.2.4 makes: its
 * decoder builds a Decoder, two Longs and a spread headers object per record, and its Batch a Long per record to
 * compare offsets; a fetch's records live until they are processed, so the young generation's collections copy
 * them all (a third of the bytes a word count allocated). Here each record is read by one cursor into one object
 * that is also the record a task processes: offsets and timestamps as numbers (offsets stay far below 2^53, and
 * kafkajs' own uses of them take numbers as well as its decimal strings), the topic and partition set by the
 * batch. Only record batches of magic 2 (Kafka 0.11 and later) are read here; older message sets go to kafkajs'
 * own decoder, whose messages are then given the same shape.
 */
import type { AbortedTransaction } from './kafkajs';
import { BATCH_HEADER_BYTES, COMPRESSION_MASK, CONTROL_FLAG, decompressRecords, LOG_APPEND_TIME_FLAG, MAGIC_OFFSET, readBatchHeader, RecordBatchReader, TRANSACTIONAL_FLAG } from './record-batch-reader';

/** A fetched record, as the consumer's `eachBatch` hands it out. */
export interface FetchedMessage {
  /** Set by the batch (the decoder of a partition's records does not know them). */
  topic: string;
  partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** A header name that repeats has its values in a list. */
  readonly headers: RecordHeaders;
  readonly isControlRecord: boolean;
  readonly batchContext: BatchContext;
}

type RecordHeaders = Record<string, Buffer | Buffer[] | null>;

/**
 * A record read from a fetch, whose key and value stay in the fetch's buffer until asked for: a record waits in its
 * task's queue until processed, across young-generation collections, which copy every object it holds (two views
 * and a headers object made it three times as large). Each read of `key` or `value` makes a new view; `headers`
 * is made on first read when the record has none.
 */
class FetchedRecord implements FetchedMessage {
  topic = '';
  partition = -1;

  constructor(
    private readonly data: Buffer,
    /** -1: a null key (RecordBatchReader.skipBytes). */
    private readonly keyStart: number,
    private readonly keyEnd: number,
    private readonly valueStart: number,
    private readonly valueEnd: number,
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

  /** Its fields, the views included, for JSON.stringify (a logged record) and the like. */
  toJSON(): Omit<FetchedMessage, 'batchContext'> {
    return { topic: this.topic, partition: this.partition, offset: this.offset, timestamp: this.timestamp, key: this.key, value: this.value, headers: this.headers, isControlRecord: this.isControlRecord };
  }
}

/** A message of kafkajs' own decoder (older message sets): offsets and timestamps as decimal strings. */
interface KafkajsMessage {
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | Buffer[] | null>;
  isControlRecord?: boolean;
  batchContext?: BatchContext;
}

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

/** The part of kafkajs' protocol Decoder that the fetch response's record set is read from. */
interface KafkajsDecoder {
  offset: number;
  readInt32(): number;
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer | null;
}

type DecodeMessages = (decoder: KafkajsDecoder) => Promise<unknown[]>;

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

const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;

/**
 * kafkajs' `decodeMessages` (the record set of a partition in a Fetch response, v4 and later), reading record
 * batches itself and handing older message sets to `legacy`, kafkajs' own.
 */
export function recordSetDecoder(legacy: DecodeMessages): DecodeMessages {
  return async (decoder) => {
    const start = decoder.offset;
    const size = decoder.readInt32();
    if (size <= 0 || !decoder.canReadBytes(size)) return [];
    const records = decoder.readBytes(size)!;
    if (records.length <= MAGIC_OFFSET || records.readInt8(MAGIC_OFFSET) !== 2) {
      decoder.offset = start;
      return ((await legacy(decoder)) as KafkajsMessage[]).map(fromKafkajs);
    }
    return decodeRecordBatches(records);
  };
}

/** The records of consecutive record batches; a batch the fetch's size limit cut at the end is left for the next fetch. */
export async function decodeRecordBatches(buf: Buffer): Promise<FetchedMessage[]> {
  const messages: FetchedMessage[] = [];
  const r = new RecordBatchReader(buf, 0);
  while (buf.length - r.pos >= BATCH_HEADER_BYTES) {
    const header = readBatchHeader(r, 'the fetched partition');
    if (header === undefined) break;
    const { firstOffset, end, attributes, firstTimestamp, count } = header;
    const context: BatchContext = {
      firstOffset: String(firstOffset),
      firstTimestamp: String(firstTimestamp),
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
    let records = r;
    if ((attributes & COMPRESSION_MASK) !== 0 && count > 0) {
      records = new RecordBatchReader(await decompressRecords(attributes, buf.subarray(r.pos, end), `the record batch at offset ${firstOffset}`), 0);
    }
    // Under log-append time every record of the batch has the batch's max timestamp.
    const logAppendTime = context.timestampType === LOG_APPEND_TIME ? header.maxTimestamp : undefined;
    for (let i = 0; i < count; i++) messages.push(readRecord(records, context, firstOffset, firstTimestamp, logAppendTime));
    r.pos = end;
  }
  return messages;
}

function readRecord(r: RecordBatchReader, context: BatchContext, firstOffset: number, firstTimestamp: number, logAppendTime: number | undefined): FetchedMessage {
  const length = r.varint();
  const next = r.pos + length;
  r.skip(1); // the record's attributes: unused since magic 2
  const timestampDelta = r.varlong();
  const offsetDelta = r.varint();
  const keyStart = r.skipBytes();
  const keyEnd = r.pos;
  const valueStart = r.skipBytes();
  const valueEnd = r.pos;
  const headerCount = r.varint();
  let headers: RecordHeaders | undefined;
  for (let h = 0; h < headerCount; h++) {
    headers ??= {};
    const name = String(r.varString());
    const headerValue = r.bytes();
    const previous = Object.hasOwn(headers, name) ? headers[name] : undefined;
    const value = previous === undefined ? headerValue : Array.isArray(previous) ? [...previous, headerValue!] : [previous!, headerValue!];
    // Defined, not assigned: a header named `__proto__` is a header, not the object's prototype.
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  r.pos = next;
  return new FetchedRecord(r.buf, keyStart, keyEnd, valueStart, valueEnd, firstOffset + offsetDelta, logAppendTime ?? firstTimestamp + timestampDelta, headers, context.isControlBatch, context);
}

function fromKafkajs(m: KafkajsMessage): FetchedMessage {
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

/** kafkajs' filter of aborted transactions, as Sluice replaces it (kafkajs.ts). */
type AbortedFilter = (args: { messages: FetchedMessage[]; abortedTransactions?: AbortedTransaction[] }) => FetchedMessage[];

/**
 * kafkajs' Batch, with offsets as numbers (they stay far below 2^53) where kafkajs used Longs: the records of one
 * fetch of one partition, those before the fetch offset (a compressed batch may begin before it), aborted ones and
 * control records left out.
 */
export function fetchedBatchClass(filterAbortedMessages: AbortedFilter) {
  return class FetchedBatch {
    readonly topic: string;
    readonly partition: number;
    readonly highWatermark: string;
    readonly rawMessages: FetchedMessage[];
    readonly messagesWithinOffset: FetchedMessage[];
    readonly messages: FetchedMessage[];

    constructor(
      topic: string,
      readonly fetchedOffset: string,
      partitionData: { partition: number; highWatermark: string; messages: FetchedMessage[]; abortedTransactions?: AbortedTransaction[] },
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
      const kept = filterAbortedMessages({ messages: this.messagesWithinOffset, abortedTransactions: partitionData.abortedTransactions });
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
  };
}
