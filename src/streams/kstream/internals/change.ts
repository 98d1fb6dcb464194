import type { Serde, SerdeHeaders } from '../../serdes/serde';

/** A table update: the new and the old value of a key (old only when a downstream operation needs it). */
export interface Change<V> {
  newValue: V | null;
  oldValue: V | null;
  /**
   * False for an out-of-order update of a versioned table (older than the key's latest version): it went to the
   * table's history, and the operations that keep a current state of their own (groupBy, table joins) skip it, as
   * Kafka Streams' `Change.isLatest`. Absent: true.
   */
  isLatest?: boolean;
}

/** Whether an update is the latest of its key (every update but a versioned table's out-of-order ones). */
export function isLatest(change: Change<unknown>): boolean {
  return change.isLatest !== false;
}

const HAS_NEW = 1;
const HAS_OLD = 2;

/**
 * Serde for table updates sent through a repartition topic (KTable.groupBy). Layout: one flag byte (bit 0:
 * a new value is present, bit 1: an old value is present), the 4-byte length of the new value, the new value,
 * the old value.
 */
export function changeSerde<V>(inner: Serde<V>): Serde<Change<V>> {
  const serde: Serde<Change<V>> = {
    name: `change(${inner.name})`,
    serialize: (change) => serializeChange(inner, undefined, undefined, change),
    deserialize: (bytes) => deserializeChange(inner, undefined, undefined, bytes),
    fromJson(json) {
      return { newValue: inner.fromJson(json), oldValue: null };
    },
    toJson(change) {
      return change.newValue === null ? null : inner.toJson(change.newValue);
    },
  };
  // Kafka Streams' ChangedSerializer hands the repartition topic and the headers on to the value's serde.
  if (inner.serializeTopic) serde.serializeTopic = (topic, headers, change) => serializeChange(inner, topic, headers, change);
  if (inner.deserializeTopic) serde.deserializeTopic = (topic, headers, bytes) => deserializeChange(inner, topic, headers, bytes);
  if (inner.prepare) serde.prepare = (topic, config) => inner.prepare!(topic, config);
  return serde;
}

/** `topic` undefined: the inner serde is called without it. */
function serializeChange<V>(inner: Serde<V>, topic: string | undefined, headers: SerdeHeaders | undefined, change: Change<V>): Buffer {
  const newBytes = change.newValue === null ? undefined : serializeValue(inner, topic, headers, change.newValue);
  const oldBytes = change.oldValue === null ? undefined : serializeValue(inner, topic, headers, change.oldValue);
  const header = Buffer.alloc(5);
  header[0] = (newBytes ? HAS_NEW : 0) | (oldBytes ? HAS_OLD : 0);
  header.writeInt32BE(newBytes ? newBytes.length : 0, 1);
  return Buffer.concat([header, newBytes ?? Buffer.alloc(0), oldBytes ?? Buffer.alloc(0)]);
}

function deserializeChange<V>(inner: Serde<V>, topic: string | undefined, headers: SerdeHeaders | undefined, bytes: Buffer): Change<V> {
  const flags = bytes[0]!;
  const newLength = bytes.readInt32BE(1);
  return {
    newValue: flags & HAS_NEW ? deserializeValue(inner, topic, headers, bytes.subarray(5, 5 + newLength)) : null,
    oldValue: flags & HAS_OLD ? deserializeValue(inner, topic, headers, bytes.subarray(5 + newLength)) : null,
  };
}

function serializeValue<V>(inner: Serde<V>, topic: string | undefined, headers: SerdeHeaders | undefined, value: V): Buffer {
  return topic === undefined ? inner.serialize(value) : inner.serializeTopic!(topic, headers, value);
}

function deserializeValue<V>(inner: Serde<V>, topic: string | undefined, headers: SerdeHeaders | undefined, bytes: Buffer): V {
  return topic === undefined ? inner.deserialize(bytes) : inner.deserializeTopic!(topic, headers, bytes);
}
