/**
 * What the stream threads' consumers fetch, decoded and batched in fewer objects than kafkajs 2.2.4 makes: its
 * decoder builds a Decoder, two Longs and a spread headers object per record, and its Batch a Long per record to
 * compare offsets; a fetch's records live until they are processed, so the young generation's collections copy
 * them all (a third of the bytes a word count allocated). Here each record is read by one cursor with numeric
 * offsets and timestamps, into the very message kafkajs hands out (same fields, same values), and a batch
 * compares offsets as numbers (offsets stay far below 2^53). Only record batches of magic 2 (Kafka 0.11 and
 * later) are read here; older message sets go to kafkajs' own decoder.
 */
import { StreamsException } from '../../errors';
import { COMPRESSION_MASK, CONTROL_FLAG, decompressRecords, LOG_APPEND_TIME_FLAG, MAGIC_OFFSET, RecordBatchReader, TRANSACTIONAL_FLAG } from './record-batch-reader';

/** A fetched record as kafkajs hands it out (its `eachBatch` messages). */
export interface FetchedMessage {
  magicByte: number;
  attributes: number;
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | null>;
  isControlRecord: boolean;
  batchContext: BatchContext;
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

/** kafkajs reads a batch only when this many bytes are left. */
const RECORD_BATCH_OVERHEAD = 49;
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
      return legacy(decoder);
    }
    return decodeRecordBatches(records);
  };
}

/** The records of consecutive record batches; a batch the fetch's size limit cut at the end is left for the next fetch. */
export async function decodeRecordBatches(buf: Buffer): Promise<FetchedMessage[]> {
  const messages: FetchedMessage[] = [];
  const r = new RecordBatchReader(buf, 0);
  while (buf.length - r.pos >= RECORD_BATCH_OVERHEAD) {
    const firstOffset = r.int64();
    const length = r.int32();
    const end = r.pos + length;
    if (end > buf.length) break;
    const partitionLeaderEpoch = r.int32();
    const magicByte = r.int8();
    if (magicByte !== 2) throw new StreamsException(`a record batch of message format ${magicByte} follows batches of format 2 at offset ${firstOffset}`);
    r.pos += 4; // CRC: kafkajs does not check it either
    const attributes = r.int16();
    const lastOffsetDelta = r.int32();
    const firstTimestamp = r.int64();
    const maxTimestamp = r.int64Text();
    const producerId = r.int64Text();
    const producerEpoch = r.int16();
    const firstSequence = r.int32();
    const count = r.int32();
    const context: BatchContext = {
      firstOffset: String(firstOffset),
      firstTimestamp: String(firstTimestamp),
      partitionLeaderEpoch,
      inTransaction: (attributes & TRANSACTIONAL_FLAG) !== 0,
      isControlBatch: (attributes & CONTROL_FLAG) !== 0,
      lastOffsetDelta,
      producerId,
      producerEpoch,
      firstSequence,
      maxTimestamp,
      timestampType: (attributes & LOG_APPEND_TIME_FLAG) !== 0 ? LOG_APPEND_TIME : CREATE_TIME,
      magicByte,
    };
    let records = r;
    if ((attributes & COMPRESSION_MASK) !== 0 && count > 0) {
      records = new RecordBatchReader(await decompressRecords(attributes, buf.subarray(r.pos, end), `the record batch at offset ${firstOffset}`), 0);
    }
    for (let i = 0; i < count; i++) messages.push(readRecord(records, context, firstOffset, firstTimestamp));
    r.pos = end;
  }
  return messages;
}

function readRecord(r: RecordBatchReader, context: BatchContext, firstOffset: number, firstTimestamp: number): FetchedMessage {
  const length = r.varint();
  const next = r.pos + length;
  const attributes = r.int8();
  const timestampDelta = r.varlong();
  const offsetDelta = r.varint();
  const key = r.bytes();
  const value = r.bytes();
  const headerCount = r.varint();
  const headers: Record<string, Buffer | Buffer[] | null> = {};
  for (let h = 0; h < headerCount; h++) {
    const name = String(r.varString());
    const headerValue = r.bytes();
    const previous = headers[name];
    headers[name] = previous === undefined ? headerValue : Array.isArray(previous) ? [...previous, headerValue!] : [previous!, headerValue!];
  }
  r.pos = next;
  return {
    magicByte: context.magicByte,
    attributes,
    timestamp: context.timestampType === LOG_APPEND_TIME && context.maxTimestamp ? context.maxTimestamp : String(firstTimestamp + timestampDelta),
    offset: String(firstOffset + offsetDelta),
    key,
    value,
    headers,
    isControlRecord: context.isControlBatch,
    batchContext: context,
  };
}

/** kafkajs' Long, for the few per-batch sums its Batch answers in decimal text. */
const Long: {
  fromValue(value: string | number): { add(value: number | object): { add(v: object): { toString(): string }; toString(): string }; multiply(v: number): object };
} = require('kafkajs/src/utils/long');

/** kafkajs' filter of aborted transactions, as Sluice replaces it (kafkajs.ts). */
type AbortedFilter = (args: { messages: FetchedMessage[]; abortedTransactions?: { producerId: string; firstOffset: string }[] }) => FetchedMessage[];

/**
 * kafkajs' Batch, with offsets compared as numbers: the records of one fetch of one partition, those before the
 * fetch offset (a compressed batch may begin before it), aborted ones and control records left out.
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
      partitionData: { partition: number; highWatermark: string; messages: FetchedMessage[]; abortedTransactions?: { producerId: string; firstOffset: string }[] },
    ) {
      this.topic = topic;
      this.partition = partitionData.partition;
      this.highWatermark = partitionData.highWatermark;
      this.rawMessages = partitionData.messages;
      // Records come in offset order: those before the fetch offset are a prefix.
      const from = Number(fetchedOffset);
      let first = 0;
      while (first < this.rawMessages.length && Number(this.rawMessages[first]!.offset) < from) first++;
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
      return this.isEmptyIncludingFiltered() ? null : this.messagesWithinOffset[0]!.offset;
    }

    lastOffset(): string {
      if (this.isEmptyDueToLogCompactedMessages()) return this.fetchedOffset;
      if (this.isEmptyIncludingFiltered()) return Long.fromValue(this.highWatermark).add(-1).toString();
      return this.messagesWithinOffset[this.messagesWithinOffset.length - 1]!.offset;
    }

    offsetLag(): string {
      return Long.fromValue(this.highWatermark).add(-1).add(Long.fromValue(this.lastOffset()).multiply(-1)).toString();
    }

    offsetLagLow(): string {
      if (this.isEmptyIncludingFiltered()) return '0';
      return Long.fromValue(this.highWatermark).add(-1).add(Long.fromValue(this.firstOffset()!).multiply(-1)).toString();
    }
  };
}
