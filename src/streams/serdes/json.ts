import type { Serde } from './serde';
import { serdeError } from './serde-errors';

/** Any JSON value, as UTF-8 text of `JSON.stringify` (what Java's Jackson-based JSON serdes read and write). */
export const jsonSerde: Serde<unknown> = {
  name: 'json',
  serialize(value: unknown): Buffer {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      throw serdeError('json', `cannot serialize value: ${(error as Error).message}`);
    }
    // JSON.stringify answers undefined for undefined, functions and symbols: there is no JSON for them.
    if (text === undefined) throw serdeError('json', `cannot serialize a value of type ${typeof value}`);
    return Buffer.from(text, 'utf8');
  },
  deserialize(bytes: Buffer): unknown {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw serdeError('json', `invalid JSON (${bytes.length} bytes): ${(error as Error).message}`);
    }
  },
  fromJson(json: unknown): unknown {
    return json;
  },
  toJson(value: unknown): unknown {
    return value;
  },
};
