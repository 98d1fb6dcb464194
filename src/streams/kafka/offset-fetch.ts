/**
 * OffsetFetch v7 (Kafka 2.5, KIP-447), which kafkajs 2.2.4 lacks (it stops at v4): the first version with
 * `require_stable`, which makes the coordinator answer UNSTABLE_OFFSET_COMMIT for a partition whose offsets a
 * transaction has sent but not yet committed or aborted, instead of the offset before them. v7 is a flexible version:
 * compact strings and arrays (unsigned varint lengths, plus one), tagged fields after each structure, and request
 * header v2 and response header v1, which add tagged fields after what kafkajs' headers hold. So the request written
 * here starts with the request header's (empty) tagged fields, and the response read here with the response header's:
 * kafkajs writes and reads the rest of both headers.
 */

/** The partitions of one topic whose committed offsets are asked for. */
export interface OffsetFetchTopic {
  topic: string;
  partitions: readonly number[];
}

export interface OffsetFetchRequest {
  groupId: string;
  topics: readonly OffsetFetchTopic[];
  requireStable: boolean;
}

/** One partition's answer: the committed offset (the next record to read; -1: none), or an error code. */
export interface FetchedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  /** Group-level error (a coordinator moved or loading, an authorization refused); 0: none. */
  errorCode: number;
  partitions: FetchedOffset[];
}

class Writer {
  private readonly chunks: Buffer[] = [];

  uvarint(value: number): this {
    const bytes: number[] = [];
    let rest = value >>> 0;
    while (rest >= 0x80) {
      bytes.push((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    bytes.push(rest);
    this.chunks.push(Buffer.from(bytes));
    return this;
  }

  int8(value: number): this {
    this.chunks.push(Buffer.from([value]));
    return this;
  }

  int32(value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32BE(value);
    this.chunks.push(bytes);
    return this;
  }

  compactString(value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    this.uvarint(bytes.length + 1);
    this.chunks.push(bytes);
    return this;
  }

  /** Tagged fields: none. */
  noTaggedFields(): this {
    return this.uvarint(0);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** The request after kafkajs' header: the header's tagged fields, then the body. */
export function encodeOffsetFetchV7(request: OffsetFetchRequest): Buffer {
  const writer = new Writer().noTaggedFields().compactString(request.groupId).uvarint(request.topics.length + 1);
  for (const { topic, partitions } of request.topics) {
    writer.compactString(topic).uvarint(partitions.length + 1);
    for (const partition of partitions) writer.int32(partition);
    writer.noTaggedFields();
  }
  return writer.int8(request.requireStable ? 1 : 0).noTaggedFields().toBuffer();
}

class Reader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  /** The offset of the next `bytes` bytes, which the response must hold. */
  private take(bytes: number): number {
    const at = this.offset;
    if (at + bytes > this.buffer.length) throw new RangeError(`the response ends at byte ${this.buffer.length}, before ${bytes} more from ${at}`);
    this.offset += bytes;
    return at;
  }

  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const byte = this.buffer.readUInt8(this.take(1));
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new RangeError(`an unsigned varint longer than 5 bytes at byte ${this.offset - 5}`);
  }

  int16(): number {
    return this.buffer.readInt16BE(this.take(2));
  }

  int32(): number {
    return this.buffer.readInt32BE(this.take(4));
  }

  int64(): number {
    return Number(this.buffer.readBigInt64BE(this.take(8)));
  }

  compactNullableString(): string | null {
    const length = this.uvarint() - 1;
    if (length < 0) return null;
    const at = this.take(length);
    return this.buffer.toString('utf8', at, at + length);
  }

  compactString(): string {
    const value = this.compactNullableString();
    if (value === null) throw new RangeError('a null string where the protocol has none');
    return value;
  }

  /** The number of elements of a compact array (a null one has none). */
  compactArrayLength(): number {
    return Math.max(0, this.uvarint() - 1);
  }

  /** Skips tagged fields: v7 defines none, a later broker may send some. */
  skipTaggedFields(): void {
    for (let fields = this.uvarint(); fields > 0; fields--) {
      this.uvarint();
      this.take(this.uvarint());
    }
  }
}

/** The response after the correlation id (as kafkajs hands it over): the header's tagged fields, then the body. */
export function decodeOffsetFetchV7(payload: Buffer): OffsetFetchResponse {
  const reader = new Reader(payload);
  reader.skipTaggedFields();
  const throttleTimeMs = reader.int32();
  const partitions: FetchedOffset[] = [];
  for (let topics = reader.compactArrayLength(); topics > 0; topics--) {
    const topic = reader.compactString();
    for (let count = reader.compactArrayLength(); count > 0; count--) {
      const partition = reader.int32();
      const offset = reader.int64();
      const leaderEpoch = reader.int32();
      const metadata = reader.compactNullableString();
      const errorCode = reader.int16();
      reader.skipTaggedFields();
      partitions.push({ topic, partition, offset, leaderEpoch, metadata, errorCode });
    }
    reader.skipTaggedFields();
  }
  const errorCode = reader.int16();
  reader.skipTaggedFields();
  return { throttleTimeMs, errorCode, partitions };
}
