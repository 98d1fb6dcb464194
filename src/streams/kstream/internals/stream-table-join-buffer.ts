import { readInt64BE, writeInt64BE } from '../../serdes/int64';
import { deriveFromDefault } from '../../serdes/default-serde';
import type { Serde } from '../../serdes/serde';
import { serdeError } from '../../serdes/serde-errors';
import type { StateStore } from '../../state/store';
import { Stores, type StoreBuilder } from '../../state/stores';

/** Where a buffered stream record sits: its timestamp, key and a sequence number; a bound has only the time. */
export interface JoinBufferKey<K> {
  time: number;
  key?: K;
  seq?: number;
}

const TIME_BYTES = 8;
const SEQ_BYTES = 4;
const NO_KEY = Buffer.alloc(0);

/**
 * Keys of the join buffer, `[8-byte BE timestamp][key bytes][4-byte seq]` (Kafka Streams' time-first window key
 * schema), so that the store lists buffered records by time, then key, then arrival; a bound is the time alone.
 */
function bufferKeySerde<K>(inner: Serde<K>): Serde<JoinBufferKey<K>> {
  const name = `join-buffer-key(${inner.name})`;
  return {
    name,
    serialize({ time, key, seq }) {
      const keyBytes = key === undefined ? NO_KEY : inner.serialize(key);
      const bytes = Buffer.allocUnsafe(TIME_BYTES + keyBytes.length + (key === undefined ? 0 : SEQ_BYTES));
      writeInt64BE(bytes, time, 0);
      keyBytes.copy(bytes, TIME_BYTES);
      if (key !== undefined) bytes.writeUInt32BE(seq ?? 0, TIME_BYTES + keyBytes.length);
      return bytes;
    },
    deserialize(bytes) {
      return {
        time: readInt64BE(bytes, 0),
        key: inner.deserialize(bytes.subarray(TIME_BYTES, bytes.length - SEQ_BYTES)),
        seq: bytes.readUInt32BE(bytes.length - SEQ_BYTES),
      };
    },
    fromJson() {
      throw serdeError(name, 'buffered join records are not read from JSON');
    },
    toJson: ({ time, key, seq }) => ({ time, key: key === undefined ? null : inner.toJson(key), seq }),
  };
}

/**
 * The store of a stream-table join's grace period (Kafka Streams' `RocksDBTimeOrderedKeyValueBuffer`, store
 * `<join>-Buffer`): the stream records waiting for stream time to pass their timestamp plus the grace, in LMDB with a
 * changelog, so that a restart finds them again. Headers are kept in memory only: a record buffered over a restart
 * is joined without them.
 */
export function joinBufferBuilder(name: string, keySerde: Serde<unknown> | undefined, valueSerde: Serde<unknown> | undefined): StoreBuilder<StateStore> {
  const keys = keySerde ? bufferKeySerde(keySerde) : deriveFromDefault('join-buffer-key(default)', (inner) => bufferKeySerde(inner));
  return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), keys, valueSerde) as unknown as StoreBuilder<StateStore>;
}
