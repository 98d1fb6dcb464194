import { type Serde, withShortcuts } from './serde';
import { serdeError } from './serde-errors';

function parseJson(bytes: Buffer, offset: number, end = bytes.length): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', offset, end));
  } catch (error) {
    throw serdeError('json', `invalid JSON (${end - offset} bytes): ${(error as Error).message}`);
  }
}

function jsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw serdeError('json', `cannot serialize value: ${(error as Error).message}`);
  }
  // JSON.stringify answers undefined for undefined, functions and symbols: there is no JSON for them.
  if (text === undefined) throw serdeError('json', `cannot serialize a value of type ${typeof value}`);
  return text;
}

/** Any JSON value, as UTF-8 text of `JSON.stringify` (what Java's Jackson-based JSON serdes read and write). */
export const jsonSerde: Serde<unknown> = withShortcuts(
  {
    name: 'json',
    serialize(value: unknown): Buffer {
      return Buffer.from(jsonText(value), 'utf8');
    },
    deserialize(bytes: Buffer): unknown {
      return parseJson(bytes, 0);
    },
    fromJson(json: unknown): unknown {
      return json;
    },
    toJson(value: unknown): unknown {
      return value;
    },
  },
  { serializeToUtf8: jsonText, deserializeFrom: parseJson },
);
