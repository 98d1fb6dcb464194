import { type Serde, withShortcuts } from './serde';
import { describeJson, serdeError } from './serde-errors';

/** UTF-8 strings, as Kafka's `Serdes.String()`. */
export const stringSerde: Serde<string> = withShortcuts(
  {
    name: 'string',
    serialize(value: string): Buffer {
      if (typeof value !== 'string') throw serdeError('string', `cannot serialize ${describeJson(value)}`);
      return Buffer.from(value, 'utf8');
    },
    deserialize(bytes: Buffer): string {
      return bytes.toString('utf8');
    },
    fromJson(json: unknown): string {
      if (typeof json !== 'string') throw serdeError('string', `expected a JSON string, got ${describeJson(json)}`);
      return json;
    },
    toJson(value: string): unknown {
      return value;
    },
  },
  {
    serializeToUtf8(value: string): string {
      if (typeof value !== 'string') throw serdeError('string', `cannot serialize ${describeJson(value)}`);
      return value;
    },
    deserializeFrom(bytes: Buffer, offset: number, end = bytes.length): string {
      return bytes.toString('utf8', offset, end);
    },
  },
);
