/**
 * 8-byte big-endian signed integers (Java `long` layout) for JS numbers. Written as two 32-bit halves instead of
 * through BigInt, which would allocate on every call of a hot path (every window key, every timestamped value).
 */

const TWO_POW_32 = 4294967296;

/** Writes `value` (a safe integer) at `offset` as an 8-byte big-endian two's-complement integer. */
export function writeInt64BE(target: Buffer, value: number, offset: number): void {
  const high = Math.floor(value / TWO_POW_32);
  target.writeInt32BE(high, offset);
  target.writeUInt32BE(value - high * TWO_POW_32, offset + 4);
}

/**
 * Reads an 8-byte big-endian two's-complement integer. Values beyond ±(2^53 - 1) come back rounded; callers that
 * read foreign bytes check `Number.isSafeInteger` on the result.
 */
export function readInt64BE(source: Buffer, offset: number): number {
  return source.readInt32BE(offset) * TWO_POW_32 + source.readUInt32BE(offset + 4);
}

export function int64Bytes(value: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  writeInt64BE(bytes, value, 0);
  return bytes;
}
