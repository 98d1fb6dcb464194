/**
 * Kafka's record batches (message format 2, Kafka 0.11 and later) read: the adapter's one decoder of records, and
 * the format's constants, which the produce request's writer (produce-request.ts) shares. `decodeRecordBatches`
 * reads fetched batches straight from the fetched bytes and hands each record's parts (where its key and value lie
 * in the bytes, its offset and timestamp as numbers, its headers when asked for) to a sink: the stream threads'
 * consumers make of them the record a task processes (consumer-records.ts), the changelog reader keeps them in
 * columns (fetch-response.ts). CRCs are not checked, as kafkajs does not check them.
 */
import { StreamsException } from '../../errors';

// kafkajs internals, from the pinned version: its codecs decompress what its producers compressed.
type Codec = { decompress(buffer: Buffer): Promise<Buffer> };
const compression: { lookupCodecByAttributes(attributes: number): Codec | null } = require('kafkajs/src/protocol/message/compression');

/** Where a batch's magic byte is, in every message format. */
const MAGIC_OFFSET = 16;
export const MAGIC = 2;
const COMPRESSION_MASK = 0x07;
export const LOG_APPEND_TIME_FLAG = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;

/** Bytes of a batch before its records, up to and including the record count: no whole batch is shorter. */
export const BATCH_HEADER_BYTES = 61;

/**
 * A record's headers, name to value, as the processor API takes them (`Headers`). Kafka also lets a name repeat and
 * a value be null, which that type leaves out: a fetched record's repeated name holds its values in a list, and a
 * null value is null, as kafkajs hands them.
 */
export type RecordHeaders = Record<string, Buffer | string | undefined>;

/** A record batch's header (message format 2). */
export interface RecordBatchHeader {
  firstOffset: number;
  /** Where the batch ends in the buffer. */
  end: number;
  partitionLeaderEpoch: number;
  magic: number;
  attributes: number;
  lastOffsetDelta: number;
  firstTimestamp: number;
  maxTimestamp: number;
  /** Decimal text: producer ids are compared, never computed with. */
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  count: number;
}

/** What the decoder hands a fetched partition's records to, batch by batch. */
export interface RecordSink {
  /** Whether records are read with their headers (else their headers are skipped). */
  readonly readsHeaders: boolean;
  /** A whole batch, before its records: false skips them (an aborted batch is not even decompressed). */
  batch(header: RecordBatchHeader): boolean;
  /**
   * One record of the batch: its key and value as bounds in `data` (a start of -1: null), `data` the fetched bytes
   * or the batch decompressed; its headers undefined when it has none or they are not read.
   */
  record(data: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset: number, timestamp: number, headers: RecordHeaders | undefined): void;
}

/** Whether `data` begins with a record batch of message format 2 (older message sets are no record batches). */
export function holdsRecordBatches(data: Buffer): boolean {
  return data.length > MAGIC_OFFSET && data.readInt8(MAGIC_OFFSET) === MAGIC;
}

/**
 * Reads the consecutive record batches of `data` into `sink`. A batch the fetch's size limit cut at the end is left
 * for the next fetch; a batch of another format than 2 throws, `where` naming what was fetched.
 */
export async function decodeRecordBatches(data: Buffer, where: string, sink: RecordSink): Promise<void> {
  const r = new RecordBatchReader(data, 0);
  while (data.length - r.pos >= BATCH_HEADER_BYTES) {
    const header = readBatchHeader(r, where);
    if (header === undefined) break;
    if (sink.batch(header)) {
      const compressed = (header.attributes & COMPRESSION_MASK) !== 0 && header.count > 0;
      readRecords(compressed ? new RecordBatchReader(await decompress(header, data.subarray(r.pos, header.end), where), 0) : r, header, sink);
    }
    r.pos = header.end;
  }
}

/**
 * Reads the header of the batch at the reader's position, leaving the reader at its first record; undefined when
 * the fetch's size limit cut the batch.
 */
function readBatchHeader(r: RecordBatchReader, where: string): RecordBatchHeader | undefined {
  const firstOffset = r.int64();
  const length = r.int32();
  const end = r.pos + length;
  if (end > r.buf.length) return undefined;
  const partitionLeaderEpoch = r.int32();
  const magic = r.int8();
  if (magic !== MAGIC) throw new StreamsException(`${where} holds a record batch of message format ${magic} at offset ${firstOffset}; only format 2 (Kafka 0.11 and later) can be read`);
  r.skip(4); // CRC: kafkajs does not check it either
  return {
    firstOffset,
    end,
    partitionLeaderEpoch,
    magic,
    attributes: r.int16(),
    lastOffsetDelta: r.int32(),
    firstTimestamp: r.int64(),
    maxTimestamp: r.int64(),
    producerId: r.int64Text(),
    producerEpoch: r.int16(),
    firstSequence: r.int32(),
    count: r.int32(),
  };
}

/** Decompresses a batch's records with the codec its attributes name (kafkajs' codecs). */
function decompress(header: RecordBatchHeader, records: Buffer, where: string): Promise<Buffer> {
  const codec = compression.lookupCodecByAttributes(header.attributes);
  if (codec === null) {
    throw new StreamsException(
      `${where} holds a record batch at offset ${header.firstOffset} compressed with a codec kafkajs has not been given (compression type ${header.attributes & COMPRESSION_MASK})`,
    );
  }
  return codec.decompress(records);
}

/** Reads the batch's records at the reader's position into the sink (the header says how many, and their base). */
export function readRecords(r: RecordBatchReader, header: Pick<RecordBatchHeader, 'firstOffset' | 'firstTimestamp' | 'maxTimestamp' | 'count' | 'attributes'>, sink: RecordSink): void {
  const { firstOffset, firstTimestamp, count } = header;
  // Under log-append time every record of the batch has the batch's max timestamp.
  const logAppendTime = (header.attributes & LOG_APPEND_TIME_FLAG) !== 0 ? header.maxTimestamp : undefined;
  const withHeaders = sink.readsHeaders;
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    const next = r.pos + length;
    r.skip(1); // the record's attributes: unused since magic 2
    const timestampDelta = r.varlong();
    const offset = firstOffset + r.varint();
    const keyStart = r.skipBytes();
    const keyEnd = r.pos;
    const valueStart = r.skipBytes();
    const valueEnd = r.pos;
    const headers = withHeaders ? readHeaders(r) : undefined;
    r.pos = next;
    sink.record(r.buf, keyStart, keyEnd, valueStart, valueEnd, offset, logAppendTime ?? firstTimestamp + timestampDelta, headers);
  }
}

function readHeaders(r: RecordBatchReader): RecordHeaders | undefined {
  const count = r.varint();
  if (count <= 0) return undefined;
  const headers: Record<string, Buffer | Buffer[] | null> = {};
  for (let h = 0; h < count; h++) {
    const name = String(r.varString());
    const value = r.bytes();
    const previous = Object.hasOwn(headers, name) ? headers[name] : undefined;
    const entry = previous === undefined ? value : Array.isArray(previous) ? [...previous, value!] : [previous!, value!];
    // Defined, not assigned: a header named `__proto__` is a header, not the object's prototype.
    Object.defineProperty(headers, name, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  // The lists and nulls that RecordHeaders leaves out (see there) are handed on as they are.
  return headers as RecordHeaders;
}

/** A cursor over a buffer: Kafka's big-endian integers and zig-zag varints. */
export class RecordBatchReader {
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

  /** An int16-length string (the protocol's names). */
  string(): string {
    const length = this.int16();
    const text = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }

  /** A varint-length string (a record header's key); null for length -1. */
  varString(): string | null {
    const length = this.varint();
    if (length < 0) return null;
    const text = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }

  /** A zig-zag varint of up to 64 bits, as a number (exact within 2^53). */
  varlong(): number {
    let raw = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buf[this.pos++]!;
      raw += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    // Zig-zag: even → raw / 2, odd → -(raw + 1) / 2; arithmetic, since raw may exceed 32 bits.
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

  /** Skips varint-length bytes; their start, or -1 for null (their end is then `pos`). */
  skipBytes(): number {
    const length = this.varint();
    if (length < 0) return -1;
    const start = this.pos;
    this.pos += length;
    return start;
  }

  skip(bytes: number): void {
    this.pos += bytes;
  }
}
