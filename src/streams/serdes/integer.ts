import type { Serde } from './serde';
import { integerFromJson } from './json-integer';
import { describeJson, expectSize, serdeError } from './serde-errors';

const MIN = -2147483648;
const MAX = 2147483647;

/** 32-bit signed integers, 4 bytes big-endian: Java's `Serdes.Integer()` layout. */
export const integerSerde: Serde<number> = {
  name: 'integer',
  serialize(value: number): Buffer {
    if (!Number.isInteger(value) || value < MIN || value > MAX) {
      throw serdeError('integer', `cannot serialize ${describeJson(value)}: not a 32-bit integer`);
    }
    const bytes = Buffer.allocUnsafe(4);
    bytes.writeInt32BE(value, 0);
    return bytes;
  },
  deserialize(bytes: Buffer): number {
    expectSize('integer', bytes, 4);
    return bytes.readInt32BE(0);
  },
  fromJson(json: unknown): number {
    return integerFromJson('integer', json, MIN, MAX);
  },
  toJson(value: number): unknown {
    return value;
  },
};
