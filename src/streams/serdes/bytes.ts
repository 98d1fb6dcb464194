import type { Serde } from './serde';
import { describeJson, serdeError } from './serde-errors';

/** Raw bytes, as Kafka's `Serdes.ByteArray()` / `Serdes.Bytes()`; base64 in JSON. */
export const bytesSerde: Serde<Buffer> = {
  name: 'bytes',
  serialize(value: Buffer): Buffer {
    // Callers from plain JS may hand a Uint8Array (or worse); the type alone does not guarantee a Buffer.
    const input: unknown = value;
    if (Buffer.isBuffer(input)) return input;
    if (input instanceof Uint8Array) return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    throw serdeError('bytes', `cannot serialize ${describeJson(input)}`);
  },
  deserialize(bytes: Buffer): Buffer {
    return bytes;
  },
  fromJson(json: unknown): Buffer {
    if (typeof json !== 'string') throw serdeError('bytes', `expected a base64 string, got ${describeJson(json)}`);
    const bytes = Buffer.from(json, 'base64');
    // Buffer.from skips characters it does not know; re-encoding tells whether the whole string was base64.
    if (bytes.toString('base64').replace(/=+$/, '') !== json.replace(/=+$/, '')) {
      throw serdeError('bytes', `expected a base64 string, got ${describeJson(json)}`);
    }
    return bytes;
  },
  toJson(value: Buffer): unknown {
    return value.toString('base64');
  },
};
