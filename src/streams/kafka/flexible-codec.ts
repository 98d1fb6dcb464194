/**
 * The byte writer and reader of the flexible versions of Kafka's requests and responses (KIP-482), for the requests
 * Sluice encodes itself: big-endian integers, compact strings and arrays (an unsigned varint of the length plus one,
 * 0 for null), and tagged fields after each structure. A flexible request goes with request header v2 and its
 * response with response header v1, which add tagged fields after what kafkajs' headers hold: a request written here
 * starts with the header's (empty) tagged fields, a response read here with the header's, and kafkajs writes and reads
 * the rest of both headers.
 */

export class FlexibleWriter {
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
    return this.fixed(1, (bytes) => bytes.writeInt8(value));
  }

  bool(value: boolean): this {
    return this.int8(value ? 1 : 0);
  }

  int16(value: number): this {
    return this.fixed(2, (bytes) => bytes.writeInt16BE(value));
  }

  uint16(value: number): this {
    return this.fixed(2, (bytes) => bytes.writeUInt16BE(value));
  }

  int32(value: number): this {
    return this.fixed(4, (bytes) => bytes.writeInt32BE(value));
  }

  int64(value: number): this {
    return this.fixed(8, (bytes) => bytes.writeBigInt64BE(BigInt(value)));
  }

  /** A fixed-size big-endian field, written by `write` into its own bytes. */
  private fixed(size: number, write: (bytes: Buffer) => void): this {
    const bytes = Buffer.alloc(size);
    write(bytes);
    this.chunks.push(bytes);
    return this;
  }

  compactString(value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    this.uvarint(bytes.length + 1);
    this.chunks.push(bytes);
    return this;
  }

  compactNullableString(value: string | null): this {
    return value === null ? this.uvarint(0) : this.compactString(value);
  }

  /** A compact array, each element written by `write`. */
  compactArray<T>(items: readonly T[], write: (item: T) => void): this {
    this.uvarint(items.length + 1);
    for (const item of items) write(item);
    return this;
  }

  compactNullableArray<T>(items: readonly T[] | null, write: (item: T) => void): this {
    return items === null ? this.uvarint(0) : this.compactArray(items, write);
  }

  /** A nullable structure: -1 for null, else 1 and the structure. */
  nullableStruct<T>(value: T | null, write: (value: T) => void): this {
    if (value === null) return this.int8(-1);
    this.int8(1);
    write(value);
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

export class FlexibleReader {
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

  int8(): number {
    return this.buffer.readInt8(this.take(1));
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    return this.buffer.readInt16BE(this.take(2));
  }

  uint16(): number {
    return this.buffer.readUInt16BE(this.take(2));
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

  /** A compact array, each element read by `read`; null as null. */
  compactNullableArray<T>(read: () => T): T[] | null {
    const length = this.uvarint() - 1;
    if (length < 0) return null;
    return Array.from({ length }, read);
  }

  compactArray<T>(read: () => T): T[] {
    const items = this.compactNullableArray(read);
    if (items === null) throw new RangeError('a null array where the protocol has none');
    return items;
  }

  /** Skips tagged fields: the versions read here define none, a later broker may send some. */
  skipTaggedFields(): void {
    for (let fields = this.uvarint(); fields > 0; fields--) {
      this.uvarint();
      this.take(this.uvarint());
    }
  }
}
