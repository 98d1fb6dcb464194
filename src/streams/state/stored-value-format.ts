import { readInt64BE, writeInt64BE } from '../serdes/int64';
import type { Serde } from '../serdes/serde';
import { serdeError } from '../serdes/serde-errors';
import type { ValueAndTimestamp } from './store';

/**
 * How a store turns its values into stored bytes and changelog records: plain values as their serde's bytes;
 * timestamped values (Kafka Streams' `ValueAndTimestampSerializer`) as `[8-byte BE timestamp][value bytes]`, logged
 * as the raw value bytes with the value's timestamp as the record timestamp and given their prefix back on restore
 * (`ChangeLoggingTimestampedKeyValueBytesStore`, `rawValueToTimestampedValue`).
 */
export interface StoredValueFormat<V> {
  serialize(value: V): Buffer;
  deserialize(stored: Buffer): V;
  /** Changelog value and timestamp for a write of `stored` (null: a delete) made while processing a record. */
  changelog(stored: Buffer | null, recordTimestamp: () => number): { value: Buffer | null; timestamp: number };
  /** Stored bytes for a changelog record (null: a tombstone). */
  restored(value: Buffer | null, timestamp: number): Buffer | null;
}

export function plainValues<V>(serde: Serde<V>): StoredValueFormat<V> {
  return {
    serialize: (value) => serde.serialize(value),
    deserialize: (stored) => serde.deserialize(stored),
    changelog: (stored, recordTimestamp) => ({ value: stored, timestamp: recordTimestamp() }),
    restored: (value) => value,
  };
}

const TIMESTAMP_BYTES = 8;

function withTimestamp(timestamp: number, valueBytes: Buffer): Buffer {
  const stored = Buffer.allocUnsafe(TIMESTAMP_BYTES + valueBytes.length);
  writeInt64BE(stored, timestamp, 0);
  valueBytes.copy(stored, TIMESTAMP_BYTES);
  return stored;
}

export function timestampedValues<V>(serde: Serde<V>): StoredValueFormat<ValueAndTimestamp<V>> {
  const name = `timestamped:${serde.name}`;
  return {
    serialize(value) {
      if (!Number.isSafeInteger(value.timestamp)) throw serdeError(name, `invalid timestamp ${String(value.timestamp)}`);
      return withTimestamp(value.timestamp, serde.serialize(value.value));
    },
    deserialize(stored) {
      if (stored.length < TIMESTAMP_BYTES) throw serdeError(name, `stored value of ${stored.length} bytes has no timestamp`);
      const value = serde.deserializeFrom ? serde.deserializeFrom(stored, TIMESTAMP_BYTES) : serde.deserialize(stored.subarray(TIMESTAMP_BYTES));
      return { value, timestamp: readInt64BE(stored, 0) };
    },
    changelog(stored, recordTimestamp) {
      if (stored === null) return { value: null, timestamp: recordTimestamp() };
      return { value: stored.subarray(TIMESTAMP_BYTES), timestamp: readInt64BE(stored, 0) };
    },
    restored: (value, timestamp) => (value === null ? null : withTimestamp(timestamp, value)),
  };
}
