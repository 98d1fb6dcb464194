import type { Serde } from '../../serdes/serde';

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
  return {
    name: `change(${inner.name})`,
    serialize(change) {
      const newBytes = change.newValue === null ? undefined : inner.serialize(change.newValue);
      const oldBytes = change.oldValue === null ? undefined : inner.serialize(change.oldValue);
      const header = Buffer.alloc(5);
      header[0] = (newBytes ? HAS_NEW : 0) | (oldBytes ? HAS_OLD : 0);
      header.writeInt32BE(newBytes ? newBytes.length : 0, 1);
      return Buffer.concat([header, newBytes ?? Buffer.alloc(0), oldBytes ?? Buffer.alloc(0)]);
    },
    deserialize(bytes) {
      const flags = bytes[0]!;
      const newLength = bytes.readInt32BE(1);
      return {
        newValue: flags & HAS_NEW ? inner.deserialize(bytes.subarray(5, 5 + newLength)) : null,
        oldValue: flags & HAS_OLD ? inner.deserialize(bytes.subarray(5 + newLength)) : null,
      };
    },
    fromJson(json) {
      return { newValue: inner.fromJson(json), oldValue: null };
    },
    toJson(change) {
      return change.newValue === null ? null : inner.toJson(change.newValue);
    },
  };
}
