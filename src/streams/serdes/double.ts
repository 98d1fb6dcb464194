import type { Serde } from './serde';
import { describeJson, expectSize, serdeError } from './serde-errors';

/** IEEE 754 doubles, 8 bytes big-endian: Java's `Serdes.Double()` layout. */
export const doubleSerde: Serde<number> = {
  name: 'double',
  serialize(value: number): Buffer {
    if (typeof value !== 'number') throw serdeError('double', `cannot serialize ${describeJson(value)}`);
    const bytes = Buffer.allocUnsafe(8);
    bytes.writeDoubleBE(value, 0);
    return bytes;
  },
  deserialize(bytes: Buffer): number {
    expectSize('double', bytes, 8);
    return bytes.readDoubleBE(0);
  },
  fromJson(json: unknown): number {
    if (typeof json !== 'number') throw serdeError('double', `expected a number, got ${describeJson(json)}`);
    return json;
  },
  toJson(value: number): unknown {
    return value;
  },
};
