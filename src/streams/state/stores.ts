import type { Serde } from '../serdes/serde';
import type {
  KeyValueStore,
  SessionStore,
  TimestampedKeyValueStore,
  TimestampedWindowStore,
  VersionedKeyValueStore,
  WindowStore,
} from './store';
import { CachingKeyValueStore } from './caching-key-value-store';
import { CachingSessionStore } from './caching-session-store';
import { CachingWindowStore } from './caching-window-store';
import { ConfigurableStoreBuilder, type StoreBuilder, VersionedStoreBuilder } from './store-builders';
import {
  type KeyValueBytesStoreSupplier,
  keyValueSupplier,
  type SessionBytesStoreSupplier,
  sessionSupplier,
  type VersionedBytesStoreSupplier,
  versionedSupplier,
  type WindowBytesStoreSupplier,
  windowSupplier,
} from './store-suppliers';
import { plainValues, timestampedValues } from './stored-value-format';
import { TypedKeyValueStore } from './typed-key-value-store';
import { TypedSessionStore } from './typed-session-store';
import { TypedVersionedKeyValueStore } from './versioned-key-value-store';
import { TypedWindowStore } from './typed-window-store';

export type { StoreBuilder, StoreSerdeDefaults } from './store-builders';
export type {
  KeyValueBytesStoreSupplier,
  SessionBytesStoreSupplier,
  VersionedBytesStoreSupplier,
  WindowBytesStoreSupplier,
} from './store-suppliers';

/** A store that keeps every duplicate (a join's) has no single value per window to cache: it stays uncached. */
function cachingWindowStore<S extends WindowStore<K, V, VS>, K, V, VS>(store: S, supplier: WindowBytesStoreSupplier): S {
  return supplier.retainDuplicates ? store : (new CachingWindowStore(store, supplier.segmentInterval) as unknown as S);
}

/**
 * Kafka Streams' `Stores`: suppliers (where and how long a store keeps its data) and builders (typed stores with
 * serdes and changelog settings). Persistent stores are LMDB environments below the task directory; in-memory
 * stores are restored from their changelog after every start. Times are in ms.
 */
export const Stores = {
  persistentKeyValueStore: (name: string): KeyValueBytesStoreSupplier => keyValueSupplier(name, true),
  persistentTimestampedKeyValueStore: (name: string): KeyValueBytesStoreSupplier => keyValueSupplier(name, true),
  inMemoryKeyValueStore: (name: string): KeyValueBytesStoreSupplier => keyValueSupplier(name, false),

  persistentWindowStore: (name: string, retentionMs: number, windowSizeMs: number, retainDuplicates: boolean): WindowBytesStoreSupplier =>
    windowSupplier(name, true, retentionMs, windowSizeMs, retainDuplicates),
  persistentTimestampedWindowStore: (
    name: string,
    retentionMs: number,
    windowSizeMs: number,
    retainDuplicates: boolean,
  ): WindowBytesStoreSupplier => windowSupplier(name, true, retentionMs, windowSizeMs, retainDuplicates),
  inMemoryWindowStore: (name: string, retentionMs: number, windowSizeMs: number, retainDuplicates: boolean): WindowBytesStoreSupplier =>
    windowSupplier(name, false, retentionMs, windowSizeMs, retainDuplicates),

  persistentSessionStore: (name: string, retentionMs: number): SessionBytesStoreSupplier => sessionSupplier(name, true, retentionMs),
  inMemorySessionStore: (name: string, retentionMs: number): SessionBytesStoreSupplier => sessionSupplier(name, false, retentionMs),

  /**
   * A versioned key-value store (KIP-889) in LMDB that keeps past versions for `historyRetentionMs` of stream time,
   * in segments of `segmentIntervalMs` (default as Kafka Streams chooses it).
   */
  persistentVersionedKeyValueStore: (name: string, historyRetentionMs: number, segmentIntervalMs?: number): VersionedBytesStoreSupplier =>
    versionedSupplier(name, true, historyRetentionMs, segmentIntervalMs),
  /** The same in memory (Sluice's; Kafka Streams has only the persistent one): restored from its changelog after every start. */
  inMemoryVersionedKeyValueStore: (name: string, historyRetentionMs: number, segmentIntervalMs?: number): VersionedBytesStoreSupplier =>
    versionedSupplier(name, false, historyRetentionMs, segmentIntervalMs),

  keyValueStoreBuilder<K, V>(
    supplier: KeyValueBytesStoreSupplier,
    keySerde?: Serde<K>,
    valueSerde?: Serde<V>,
  ): StoreBuilder<KeyValueStore<K, V>> {
    return new ConfigurableStoreBuilder<KeyValueStore<K, V>, K, V>(supplier.name, 'key_value', supplier.persistent, undefined, keySerde, valueSerde, (ks, vs) =>
      new TypedKeyValueStore<K, V>(supplier.name, 'key_value', supplier.createStorage(), ks, vs, plainValues(vs)),
      (store) => new CachingKeyValueStore(store),
    );
  },

  timestampedKeyValueStoreBuilder<K, V>(
    supplier: KeyValueBytesStoreSupplier,
    keySerde?: Serde<K>,
    valueSerde?: Serde<V>,
  ): StoreBuilder<TimestampedKeyValueStore<K, V>> {
    const type = 'timestamped_key_value';
    return new ConfigurableStoreBuilder<TimestampedKeyValueStore<K, V>, K, V>(supplier.name, type, supplier.persistent, undefined, keySerde, valueSerde, (ks, vs) =>
      new TypedKeyValueStore(supplier.name, type, supplier.createStorage(), ks, vs, timestampedValues(vs)),
      (store) => new CachingKeyValueStore(store),
    );
  },

  versionedKeyValueStoreBuilder<K, V>(
    supplier: VersionedBytesStoreSupplier,
    keySerde?: Serde<K>,
    valueSerde?: Serde<V>,
  ): StoreBuilder<VersionedKeyValueStore<K, V>> {
    return new VersionedStoreBuilder<VersionedKeyValueStore<K, V>, K, V>(supplier.name, supplier.persistent, supplier.historyRetentionMs, keySerde, valueSerde, (ks, vs) =>
      new TypedVersionedKeyValueStore<K, V>(supplier.name, supplier.createStorage(), ks, vs, supplier.historyRetentionMs, supplier.segmentIntervalMs),
    );
  },

  windowStoreBuilder<K, V>(supplier: WindowBytesStoreSupplier, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<WindowStore<K, V>> {
    return new ConfigurableStoreBuilder<WindowStore<K, V>, K, V>(supplier.name, 'window', supplier.persistent, supplier.retentionPeriod, keySerde, valueSerde, (ks, vs) =>
      new TypedWindowStore<K, V>(supplier.name, 'window', supplier.createStorage(), ks, vs, plainValues(vs), supplier),
      (store) => cachingWindowStore(store, supplier),
    );
  },

  timestampedWindowStoreBuilder<K, V>(
    supplier: WindowBytesStoreSupplier,
    keySerde?: Serde<K>,
    valueSerde?: Serde<V>,
  ): StoreBuilder<TimestampedWindowStore<K, V>> {
    const type = 'timestamped_window';
    return new ConfigurableStoreBuilder<TimestampedWindowStore<K, V>, K, V>(supplier.name, type, supplier.persistent, supplier.retentionPeriod, keySerde, valueSerde, (ks, vs) =>
      new TypedWindowStore(supplier.name, type, supplier.createStorage(), ks, vs, timestampedValues(vs), supplier),
      (store) => cachingWindowStore(store, supplier),
    );
  },

  sessionStoreBuilder<K, V>(supplier: SessionBytesStoreSupplier, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<SessionStore<K, V>> {
    return new ConfigurableStoreBuilder<SessionStore<K, V>, K, V>(supplier.name, 'session', supplier.persistent, supplier.retentionPeriod, keySerde, valueSerde, (ks, vs) =>
      new TypedSessionStore<K, V>(supplier.name, supplier.createStorage(), ks, vs, supplier.retentionPeriod, supplier.segmentInterval),
      (store) => new CachingSessionStore(store, supplier.segmentInterval),
    );
  },
} as const;
