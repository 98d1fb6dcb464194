import { type Serde, withShortcuts } from './serde';
import { readInt64BE, writeInt64BE } from './int64';
import { integerFromJson } from './json-integer';
import { describeJson, serdeError } from './serde-errors';

function readLong(bytes: Buffer, offset: number, end = bytes.length): number {
  if (end - offset !== 8) throw serdeError('long', `expected 8 bytes, received ${end - offset}`);
  const value = readInt64BE(bytes, offset);
  if (!Number.isSafeInteger(value)) {
    throw serdeError(
      'long',
      `the long ${bytes.readBigInt64BE(offset)} is beyond ±${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER) and cannot be a JS number exactly`,
    );
  }
  return value;
}

/**
 * 64-bit signed integers, 8 bytes big-endian: Java's `Serdes.Long()` layout. Values are JS numbers, not bigints,
 * so that keys, aggregates and timestamps stay plain numbers everywhere (JSON, arithmetic, the query API). The
 * price is range: only safe integers (|v| <= 2^53 - 1) are accepted and produced; bytes from a Java producer
 * holding a larger long are rejected with a SerializationException rather than silently rounded.
 */
export const longSerde: Serde<number> = withShortcuts(
  {
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
      return readLong(bytes, 0);
    },
    fromJson(json: unknown): number {
      return integerFromJson('long', json, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    },
    toJson(value: number): unknown {
      return value;
    },
  },
  { deserializeFrom: readLong },
);
