import type { Serde } from './serde';
import { describeJson, expectSize, serdeError } from './serde-errors';

/** IEEE 754 single-precision floats, 4 bytes big-endian: Java's `Serdes.Float()` layout (values are rounded to float). */
export const floatSerde: Serde<number> = {
  name: 'float',
  serialize(value: number): Buffer {
    if (typeof value !== 'number') throw serdeError('float', `cannot serialize ${describeJson(value)}`);
    const bytes = Buffer.allocUnsafe(4);
    bytes.writeFloatBE(value, 0);
    return bytes;
  },
  deserialize(bytes: Buffer): number {
    expectSize('float', bytes, 4);
    return bytes.readFloatBE(0);
  },
  fromJson(json: unknown): number {
    if (typeof json !== 'number') throw serdeError('float', `expected a number, got ${describeJson(json)}`);
    return json;
  },
  toJson(value: number): unknown {
    return value;
  },
};
