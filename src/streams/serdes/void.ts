import type { Serde } from './serde';
import { describeJson, serdeError } from './serde-errors';

/**
 * No data, as Kafka's `Serdes.Void()`: the only value is null, carried as zero bytes. Kafka's VoidDeserializer
 * rejects any data, so does this one.
 */
export const voidSerde: Serde<null> = {
  name: 'void',
  serialize(value: null): Buffer {
    if (value !== null && value !== undefined) throw serdeError('void', `cannot serialize ${describeJson(value)}`);
    return Buffer.alloc(0);
  },
  deserialize(bytes: Buffer): null {
    if (bytes.length !== 0) throw serdeError('void', `expected no data, received ${bytes.length} bytes`);
    return null;
  },
  fromJson(json: unknown): null {
    if (json !== null) throw serdeError('void', `expected null, got ${describeJson(json)}`);
    return null;
  },
  toJson(): unknown {
    return null;
  },
};
