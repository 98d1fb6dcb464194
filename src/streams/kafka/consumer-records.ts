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

const MAGIC_OFFSET = 16;
/** kafkajs reads a batch only when this many bytes are left. */
const RECORD_BATCH_OVERHEAD = 49;
const COMPRESSION_MASK = 0x07;
const LOG_APPEND_TIME_FLAG = 0x08;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;
const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;

const compression: {
  lookupCodecByAttributes(attributes: number): { decompress(buffer: Buffer): Promise<Buffer> } | null;
} = require('kafkajs/src/protocol/message/compression');

/** A cursor over a record batch: Kafka's big-endian integers and zig-zag varints. */
class Cursor {
  constructor(
    readonly buf: Buffer,
    public pos: number,
  ) {}

  int8(): number {
    return this.buf.readInt8(this.pos++);
  }

  int16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** An int64 as a number: offsets and timestamps stay far below 2^53. */
  int64(): number {
    const high = this.buf.readInt32BE(this.pos);
    const low = this.buf.readUInt32BE(this.pos + 4);
    this.pos += 8;
    return high * 4294967296 + low;
  }

  /** An int64 as its decimal text (producer ids are compared, never computed with). */
  int64Text(): string {
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v.toString();
  }

  varlong(): number {
    let raw = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buf[this.pos++]!;
      raw += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  varint(): number {
    let raw = 0;
    let shift = 0;
    for (;;) {
      const byte = this.buf[this.pos++]!;
      raw |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7;
    }
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** Varint-length bytes as a view; null for length -1. */
  bytes(): Buffer | null {
    const length = this.varint();
    if (length < 0) return null;
    const view = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return view;
  }

  string(): string | null {
    const length = this.varint();
    if (length < 0) return null;
    const text = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }
}

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
  const r = new Cursor(buf, 0);
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
      const codec = compression.lookupCodecByAttributes(attributes);
      if (codec === null) throw new StreamsException(`a record batch at offset ${firstOffset} is compressed with a codec kafkajs has not been given (compression type ${attributes & COMPRESSION_MASK})`);
      records = new Cursor(await codec.decompress(buf.subarray(r.pos, end)), 0);
    }
    for (let i = 0; i < count; i++) messages.push(readRecord(records, context, firstOffset, firstTimestamp));
    r.pos = end;
  }
  return messages;
}

function readRecord(r: Cursor, context: BatchContext, firstOffset: number, firstTimestamp: number): FetchedMessage {
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
    const name = String(r.string());
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
