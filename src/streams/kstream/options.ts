import type { StreamPartitioner, TimestampExtractor } from '../processor/processor';
import type { Serde } from '../serdes/serde';
import type { KeyValueBytesStoreSupplier } from '../state/store-suppliers';

/** How a source topic is read (Kafka Streams' `Consumed`). */
export interface Consumed<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  timestampExtractor?: TimestampExtractor;
  offsetReset?: 'earliest' | 'latest';
  name?: string;
}

/** How a sink topic is written (Kafka Streams' `Produced`). */
export interface Produced<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  partitioner?: StreamPartitioner<K, V>;
  name?: string;
}

/** Serdes and name of a grouping; the name names the repartition topic (Kafka Streams' `Grouped`). */
export interface Grouped<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  name?: string;
}

/** An explicit repartition (Kafka Streams' `Repartitioned`). */
export interface Repartitioned<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  name?: string;
  numberOfPartitions?: number;
  partitioner?: StreamPartitioner<K, V>;
}

/** How a table or aggregation is stored (Kafka Streams' `Materialized`). */
export interface Materialized<K, V> {
  /** Store name; makes the store queryable under that name and names its changelog. */
  storeName?: string;
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /** `persistent` (LMDB, the default) or `in-memory`. */
  storeType?: 'persistent' | 'in-memory';
  /** Changelog on (default) or off. */
  loggingEnabled?: boolean;
  /** Extra configs of the changelog topic. */
  logConfig?: Record<string, string>;
  /**
   * Record cache in front of the store on (default) or off (Kafka Streams' `withCachingEnabled`): with it, updates of
   * a key are merged until the next commit (up to `statestore.cache.max.bytes`), and only the last goes downstream.
   */
  cachingEnabled?: boolean;
  /** Window and session stores: how long windows are kept. */
  retentionMs?: number;
  /**
   * The store's supplier (Kafka Streams' `Materialized.as(supplier)`); it names the store. A versioned supplier
   * (`Stores.persistentVersionedKeyValueStore`) makes a source table versioned: never cached, and read by stream
   * joins as of each stream record's timestamp.
   */
  storeSupplier?: KeyValueBytesStoreSupplier;
}

/** Kafka Streams' `Materialized.as`: a materialization named after a store, or built by a store supplier. */
export const Materialized = {
  as<K, V>(nameOrSupplier: string | KeyValueBytesStoreSupplier): Materialized<K, V> {
    return typeof nameOrSupplier === 'string'
      ? { storeName: nameOrSupplier }
      : { storeName: nameOrSupplier.name, storeSupplier: nameOrSupplier };
  },
};

/**
 * Serdes and name of a stream-table join (Kafka Streams' `Joined`). The name names the join processor and, when the
 * stream must be repartitioned first, its repartition topic (`<name>-repartition`).
 */
export interface Joined<K, V, VO> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  name?: string;
  /**
   * A grace period for the stream side (KIP-923, joins with a versioned table only): each stream record waits until
   * stream time is this far past it, so that table updates arriving out of order up to then are seen by its join.
   */
  gracePeriodMs?: number;
}

/** Kafka Streams' `Joined` factories, for code written the Java way. */
export const Joined = {
  as<K, V, VO>(name: string): Joined<K, V, VO> {
    return { name };
  },
  with<K, V, VO>(keySerde?: Serde<K>, valueSerde?: Serde<V>, otherValueSerde?: Serde<VO>): Joined<K, V, VO> {
    return { ...(keySerde ? { keySerde } : {}), ...(valueSerde ? { valueSerde } : {}), ...(otherValueSerde ? { otherValueSerde } : {}) };
  },
  withGracePeriod<K, V, VO>(gracePeriodMs: number): Joined<K, V, VO> {
    return { gracePeriodMs };
  },
};

/**
 * Serdes, names and stores of a stream-stream join (Kafka Streams' `StreamJoined`): `name` names the processors
 * (`<name>-this-join`, ...) and repartition topics (`<name>-left-repartition`, ...), `storeName` the join stores
 * (`<storeName>-this-join-store`, ...).
 */
export interface StreamJoined<K, V, VO> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  name?: string;
  storeName?: string;
  /** `persistent` (LMDB, the default) or `in-memory`. */
  storeType?: 'persistent' | 'in-memory';
  /** Changelogs of the join stores on (default) or off. */
  loggingEnabled?: boolean;
  logConfig?: Record<string, string>;
}

/** A processor name chosen by the user (Kafka Streams' `Named`). */
export interface Named {
  name?: string;
}

/**
 * Options of a foreign-key table join: its name (Kafka Streams' `TableJoined.as`, the base of its internal topics,
 * store and nodes) and the materialization of its result.
 */
export interface ForeignKeyJoined<K, VR> {
  name?: string;
  materialized?: Materialized<K, VR>;
}

/** One branch of `split()` (Kafka Streams' `Branched`). */
export interface Branched<K, V> {
  name?: string;
  /** Continues the branch; what it returns (if anything) is the branch's stream in the result map. */
  chain?: (stream: import('./kstream').KStream<K, V>) => import('./kstream').KStream<K, V> | void;
}
