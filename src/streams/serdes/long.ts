import type { Serde } from './serde';
import { readInt64BE, writeInt64BE } from './int64';
import { integerFromJson } from './json-integer';
import { describeJson, expectSize, serdeError } from './serde-errors';

/**
 * 64-bit signed integers, 8 bytes big-endian: Java's `Serdes.Long()` layout. Values are JS numbers, not bigints,
 * so that keys, aggregates and timestamps stay plain numbers everywhere (JSON, arithmetic, the query API). The
 * price is range: only safe integers (|v| <= 2^53 - 1) are accepted and produced; bytes from a Java producer
 * holding a larger long are rejected with a SerializationException rather than silently rounded.
 */
export const longSerde: Serde<number> = {
  name: 'long',
  serialize(value: number): Buffer {
    if (!Number.isSafeInteger(value)) {
      throw serdeError(
        'long',
        `cannot serialize ${describeJson(value)}: not an integer within ±${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER)`,
      );
    }
    const bytes = Buffer.allocUnsafe(8);
    writeInt64BE(bytes, value, 0);
    return bytes;
  },
  deserialize(bytes: Buffer): number {
    expectSize('long', bytes, 8);
    const value = readInt64BE(bytes, 0);
    if (!Number.isSafeInteger(value)) {
      throw serdeError(
        'long',
        `the long ${bytes.readBigInt64BE(0)} is beyond ±${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER) and cannot be a JS number exactly`,
      );
    }
    return value;
  },
  fromJson(json: unknown): number {
    return integerFromJson('long', json, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  },
  toJson(value: number): unknown {
    return value;
  },
};
