/**
 * Reading Kafka's record batches (message format 2, Kafka 0.11 and later) straight from fetched bytes: the cursor
 * and the batch layout shared by the changelog reader's decoder (fetch-response.ts) and the stream threads'
 * (consumer-records.ts).
 */
import { StreamsException } from '../../errors';

/** Where a batch's magic byte is, in every message format. */
export const MAGIC_OFFSET = 16;
export const COMPRESSION_MASK = 0x07;
export const LOG_APPEND_TIME_FLAG = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;

/** Bytes of a batch header up to and including the record count: no whole batch is shorter. */
export const BATCH_HEADER_BYTES = 61;

/** A record batch's header (message format 2). */
interface RecordBatchHeader {
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

/**
 * Reads the header of the batch at the reader's position, leaving the reader at its first record; undefined when
 * the fetch's size limit cut the batch (it comes whole in the next fetch). A batch of another format than 2 throws;
 * `where` names what was fetched.
 */
export function readBatchHeader(r: RecordBatchReader, where: string): RecordBatchHeader | undefined {
  const firstOffset = r.int64();
  const length = r.int32();
  const end = r.pos + length;
  if (end > r.buf.length) return undefined;
  const partitionLeaderEpoch = r.int32();
  const magic = r.int8();
  if (magic !== 2) throw new StreamsException(`${where} holds a record batch of message format ${magic} at offset ${firstOffset}; only format 2 (Kafka 0.11 and later) can be read`);
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

type Codec = { decompress(buffer: Buffer): Promise<Buffer> };
const compression: { lookupCodecByAttributes(attributes: number): Codec | null } = require('kafkajs/src/protocol/message/compression');

/** Decompresses a batch's records with the codec its attributes name (kafkajs' codecs); `where` names the batch in the error. */
export function decompressRecords(attributes: number, data: Buffer, where: string): Promise<Buffer> {
  const codec = compression.lookupCodecByAttributes(attributes);
  if (codec === null) {
    throw new StreamsException(`${where} holds records compressed with a codec kafkajs has not been given (compression type ${attributes & COMPRESSION_MASK})`);
  }
  return codec.decompress(data);
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
