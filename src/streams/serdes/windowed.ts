import type { Window, Windowed } from '../state/store';
import { readInt64BE, writeInt64BE } from './int64';
import type { Serde } from './serde';
import { describeJson, serdeError } from './serde-errors';

/**
 * Serdes of windowed keys as Kafka Streams writes them to topics (`WindowedSerdes`):
 * - time windows (`TimeWindowedSerializer`): `[key bytes][8-byte BE window start]`; the end is not carried, the
 *   deserializer adds the window size to the start;
 * - session windows (`SessionWindowedSerializer`, also the session store key, `SessionKeySchema`):
 *   `[key bytes][8-byte BE window end][8-byte BE window start]`.
 * In JSON a windowed key is `{"key", "window_start", "window_end"}`, as the query API shows it.
 */

const TIME_SUFFIX = 8;
const SESSION_SUFFIX = 16;

export function encodeTimeWindowedKey(keyBytes: Buffer, windowStart: number): Buffer {
  const bytes = Buffer.allocUnsafe(keyBytes.length + TIME_SUFFIX);
  keyBytes.copy(bytes, 0);
  writeInt64BE(bytes, windowStart, keyBytes.length);
  return bytes;
}

export function encodeSessionWindowedKey(keyBytes: Buffer, window: Window): Buffer {
  const bytes = Buffer.allocUnsafe(keyBytes.length + SESSION_SUFFIX);
  keyBytes.copy(bytes, 0);
  writeInt64BE(bytes, window.end, keyBytes.length);
  writeInt64BE(bytes, window.start, keyBytes.length + 8);
  return bytes;
}

/** Splits `[key][end][start]`; the key is a view on `bytes`, not a copy. */
export function decodeSessionWindowedKey(bytes: Buffer): { keyBytes: Buffer; window: Window } {
  const keyLength = bytes.length - SESSION_SUFFIX;
  return {
    keyBytes: bytes.subarray(0, keyLength),
    window: { start: readInt64BE(bytes, keyLength + 8), end: readInt64BE(bytes, keyLength) },
  };
}

function windowedJson<K>(inner: Serde<K>, windowed: Windowed<K>): unknown {
  return { key: inner.toJson(windowed.key), window_start: windowed.window.start, window_end: windowed.window.end };
}

function windowedFromJson<K>(serdeName: string, inner: Serde<K>, json: unknown, needsEnd: boolean): { key: K; start: number; end?: number } {
  if (typeof json !== 'object' || json === null || !('key' in json) || !('window_start' in json)) {
    throw serdeError(serdeName, `expected {"key", "window_start", "window_end"}, got ${describeJson(json)}`);
  }
  const record = json as { key: unknown; window_start: unknown; window_end?: unknown };
  const start = record.window_start;
  const end = record.window_end;
  if (typeof start !== 'number' || !Number.isSafeInteger(start)) {
    throw serdeError(serdeName, `window_start must be an epoch-ms integer, got ${describeJson(start)}`);
  }
  if ((needsEnd || end !== undefined) && (typeof end !== 'number' || !Number.isSafeInteger(end))) {
    throw serdeError(serdeName, `window_end must be an epoch-ms integer, got ${describeJson(end)}`);
  }
  return { key: inner.fromJson(record.key), start, end: end as number | undefined };
}

/** Kafka's `WindowedSerdes.timeWindowedSerdeFrom(K, windowSize)`. */
export function timeWindowedSerde<K>(inner: Serde<K>, windowSizeMs: number): Serde<Windowed<K>> {
  const name = `time-windowed:${inner.name}`;
  return {
    name,
    serialize: (windowed) => encodeTimeWindowedKey(inner.serialize(windowed.key), windowed.window.start),
    deserialize(bytes) {
      if (bytes.length < TIME_SUFFIX) throw serdeError(name, `expected at least ${TIME_SUFFIX} bytes, received ${bytes.length}`);
      const keyLength = bytes.length - TIME_SUFFIX;
      const start = readInt64BE(bytes, keyLength);
      return { key: inner.deserialize(bytes.subarray(0, keyLength)), window: { start, end: start + windowSizeMs } };
    },
    fromJson(json) {
      const { key, start } = windowedFromJson(name, inner, json, false);
      return { key, window: { start, end: start + windowSizeMs } };
    },
    toJson: (windowed) => windowedJson(inner, windowed),
  };
}

/** Kafka's `WindowedSerdes.sessionWindowedSerdeFrom(K)`. */
export function sessionWindowedSerde<K>(inner: Serde<K>): Serde<Windowed<K>> {
  const name = `session-windowed:${inner.name}`;
  return {
    name,
    serialize: (windowed) => encodeSessionWindowedKey(inner.serialize(windowed.key), windowed.window),
    deserialize(bytes) {
      if (bytes.length < SESSION_SUFFIX) throw serdeError(name, `expected at least ${SESSION_SUFFIX} bytes, received ${bytes.length}`);
      const { keyBytes, window } = decodeSessionWindowedKey(bytes);
      return { key: inner.deserialize(keyBytes), window };
    },
    fromJson(json) {
      const { key, start, end } = windowedFromJson(name, inner, json, true);
      return { key, window: { start, end: end as number } };
    },
    toJson: (windowed) => windowedJson(inner, windowed),
  };
}
