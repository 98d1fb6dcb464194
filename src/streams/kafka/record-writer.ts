/**
 * Kafka's records (message format 2) written: the sizes of their parts as varints, and a cursor writing a batch's
 * fields and records into a buffer sized beforehand. What a produce request (produce-request.ts) and a partition's
 * records appended as they are produced (produced-records.ts) both write, in the bytes kafkajs writes.
 */

// kafkajs internals, from the pinned version: its Long keeps the bytes those of kafkajs.
const Long: { fromValue(value: unknown): { value: bigint } } = require('kafkajs/src/utils/long');

export type Bytes = Buffer | string | null | undefined;

/** A record's headers, each with the sizes of its key and value. */
export type SizedHeader = [string, Bytes, number, number];

/** Most records carry no header: they share this list rather than allocate their own. */
export const NO_HEADERS: readonly SizedHeader[] = [];

export function byteSize(value: Bytes): number {
  return value == null ? -1 : Buffer.isBuffer(value) ? value.length : Buffer.byteLength(String(value), 'utf8');
}

export function zigZag32(value: number): number {
  return ((value << 1) ^ (value >> 31)) >>> 0;
}

export function uvarIntSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    size++;
    value >>>= 7;
  }
  return size;
}

export const varIntSize = (value: number): number => uvarIntSize(zigZag32(value));
export const bytesSize = (size: number): number => varIntSize(size) + Math.max(size, 0);

export function isInt32(value: number): boolean {
  return (value | 0) === value;
}

export function zigZag64(value: number): bigint {
  const long = BigInt.asIntN(64, BigInt(value));
  return BigInt.asUintN(64, (long << 1n) ^ (long >> 63n));
}

export function varLongSize(value: number): number {
  if (isInt32(value)) return varIntSize(value);
  let size = 1;
  for (let v = zigZag64(value); v >= 0x80n; v >>= 7n) size++;
  return size;
}

/** A cursor writing into a buffer sized beforehand: Kafka's big-endian integers, strings and zig-zag varints. */
export class RecordBatchWriter {
  offset = 0;
  constructor(readonly buf: Buffer) {}

  int8(value: number): void {
    this.offset = this.buf.writeInt8(value, this.offset);
  }
  int16(value: number): void {
    this.offset = this.buf.writeInt16BE(value, this.offset);
  }
  int32(value: number): void {
    this.offset = this.buf.writeInt32BE(value, this.offset);
  }
  uint32(value: number): void {
    this.offset = this.buf.writeUInt32BE(value, this.offset);
  }
  int64(value: unknown): void {
    this.offset = this.buf.writeBigInt64BE(BigInt.asIntN(64, Long.fromValue(value).value), this.offset);
  }
  string(value: string | null | undefined): void {
    if (value == null) return this.int16(-1);
    const size = Buffer.byteLength(value, 'utf8');
    this.int16(size);
    this.offset += this.buf.write(value, this.offset, size, 'utf8');
  }
  uvarInt(value: number): void {
    while (value >= 0x80) {
      this.buf[this.offset++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buf[this.offset++] = value;
  }
  varInt(value: number): void {
    this.uvarInt(zigZag32(value));
  }
  varLong(value: number): void {
    if (isInt32(value)) return this.varInt(value);
    let v = zigZag64(value);
    while (v >= 0x80n) {
      this.buf[this.offset++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.offset++] = Number(v);
  }
  /** Varint length, then the bytes; -1 and nothing for null. */
  varBytes(value: Bytes, size: number): void {
    this.varInt(size);
    if (value == null) return;
    if (Buffer.isBuffer(value)) this.offset += value.copy(this.buf, this.offset);
    else this.offset += this.buf.write(String(value), this.offset, size, 'utf8');
  }
}

export function sizedHeaders(headers: RecordHeadersToWrite): readonly SizedHeader[] {
  if (headers == null) return NO_HEADERS;
  let list: SizedHeader[] | undefined;
  for (const key in headers) {
    if (!Object.hasOwn(headers, key)) continue;
    const value = headers[key];
    const keyLength = Buffer.byteLength(key, 'utf8');
    list ??= [];
    if (Array.isArray(value)) for (const v of value) list.push([key, v, keyLength, byteSize(v)]);
    else list.push([key, value, keyLength, byteSize(value)]);
  }
  return list ?? NO_HEADERS;
}

/** A record's headers as a producer takes them: a name may repeat (a list) and a value may be null. */
export type RecordHeadersToWrite = Record<string, Bytes | Bytes[]> | null | undefined;

/** A record's body's bytes (what follows its length): its attributes, deltas, key, value and headers. */
export function recordBodySize(keySize: number, valueSize: number, timestampDelta: number, offsetDelta: number, headers: readonly SizedHeader[]): number {
  let size = 1 + varLongSize(timestampDelta) + varIntSize(offsetDelta) + bytesSize(keySize) + bytesSize(valueSize) + varIntSize(headers.length);
  for (const [, , keyLength, valueLength] of headers) size += bytesSize(keyLength) + bytesSize(valueLength);
  return size;
}

/** Writes one record, its length first: the sizes are those `recordBodySize` was given. */
export function writeRecordBody(
  w: RecordBatchWriter,
  bodySize: number,
  timestampDelta: number,
  offsetDelta: number,
  key: Bytes,
  keySize: number,
  value: Bytes,
  valueSize: number,
  headers: readonly SizedHeader[],
): void {
  w.varInt(bodySize);
  w.int8(0);
  w.varLong(timestampDelta);
  w.varInt(offsetDelta);
  w.varBytes(key, keySize);
  w.varBytes(value, valueSize);
  w.varInt(headers.length);
  for (const [name, headerValue, nameSize, headerValueSize] of headers) {
    w.varBytes(name, nameSize);
    w.varBytes(headerValue, headerValueSize);
  }
}
