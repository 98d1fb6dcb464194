import type { StreamPartitioner, TimestampExtractor } from '../processor/processor';
import type { Serde } from '../serdes/serde';
import type { KeyValueBytesStoreSupplier } from '../state/store-suppliers';

/** The fields given: a factory's result spread into another options object overrides only what it sets. */
export function given<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

/** How a source topic is read (Kafka Streams' `Consumed`). */
export interface Consumed<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  timestampExtractor?: TimestampExtractor;
  offsetReset?: 'earliest' | 'latest';
  name?: string;
}

/** Kafka Streams' `Consumed` factories, for code written the Java way; plain objects work as well. */
export const Consumed = {
  with<K, V>(keySerde?: Serde<K>, valueSerde?: Serde<V>, timestampExtractor?: TimestampExtractor, offsetReset?: 'earliest' | 'latest'): Consumed<K, V> {
    return given({ keySerde, valueSerde, timestampExtractor, offsetReset });
  },
  as<K, V>(name: string): Consumed<K, V> {
    return { name };
  },
  withTimestampExtractor<K, V>(timestampExtractor: TimestampExtractor): Consumed<K, V> {
    return { timestampExtractor };
  },
  withOffsetResetPolicy<K, V>(offsetReset: 'earliest' | 'latest'): Consumed<K, V> {
    return { offsetReset };
  },
};

/** How a sink topic is written (Kafka Streams' `Produced`). */
export interface Produced<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  partitioner?: StreamPartitioner<K, V>;
  name?: string;
}

/** Kafka Streams' `Produced` factories. */
export const Produced = {
  with<K, V>(keySerde?: Serde<K>, valueSerde?: Serde<V>, partitioner?: StreamPartitioner<K, V>): Produced<K, V> {
    return given({ keySerde, valueSerde, partitioner });
  },
  as<K, V>(name: string): Produced<K, V> {
    return { name };
  },
  keySerde<K, V>(keySerde: Serde<K>): Produced<K, V> {
    return { keySerde };
  },
  valueSerde<K, V>(valueSerde: Serde<V>): Produced<K, V> {
    return { valueSerde };
  },
  streamPartitioner<K, V>(partitioner: StreamPartitioner<K, V>): Produced<K, V> {
    return { partitioner };
  },
};

/** Serdes and name of a grouping; the name names the repartition topic (Kafka Streams' `Grouped`). */
export interface Grouped<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  name?: string;
}

/** Kafka Streams' `Grouped` factories: `with(keySerde, valueSerde)` or, as in Java, `with(name, keySerde, valueSerde)`. */
export const Grouped = {
  as<K, V>(name: string): Grouped<K, V> {
    return { name };
  },
  with<K, V>(...args: [keySerde?: Serde<K>, valueSerde?: Serde<V>] | [name: string, keySerde?: Serde<K>, valueSerde?: Serde<V>]): Grouped<K, V> {
    const [name, keySerde, valueSerde] = typeof args[0] === 'string' ? (args as [string, Serde<K>?, Serde<V>?]) : [undefined, ...(args as [Serde<K>?, Serde<V>?])];
    return given({ name, keySerde, valueSerde });
  },
  keySerde<K, V>(keySerde: Serde<K>): Grouped<K, V> {
    return { keySerde };
  },
  valueSerde<K, V>(valueSerde: Serde<V>): Grouped<K, V> {
    return { valueSerde };
  },
};

/** An explicit repartition (Kafka Streams' `Repartitioned`). */
export interface Repartitioned<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  name?: string;
  numberOfPartitions?: number;
  partitioner?: StreamPartitioner<K, V>;
}

/** Kafka Streams' `Repartitioned` factories. */
export const Repartitioned = {
  as<K, V>(name: string): Repartitioned<K, V> {
    return { name };
  },
  with<K, V>(keySerde?: Serde<K>, valueSerde?: Serde<V>): Repartitioned<K, V> {
    return given({ keySerde, valueSerde });
  },
  numberOfPartitions<K, V>(numberOfPartitions: number): Repartitioned<K, V> {
    return { numberOfPartitions };
  },
  streamPartitioner<K, V>(partitioner: StreamPartitioner<K, V>): Repartitioned<K, V> {
    return { partitioner };
  },
};

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

/**
 * Kafka Streams' `Materialized` factories: `as` a materialization named after a store, or built by a store supplier;
 * `with` its serdes.
 */
export const Materialized = {
  as<K, V>(nameOrSupplier: string | KeyValueBytesStoreSupplier): Materialized<K, V> {
    return typeof nameOrSupplier === 'string'
      ? { storeName: nameOrSupplier }
      : { storeName: nameOrSupplier.name, storeSupplier: nameOrSupplier };
  },
  with<K, V>(keySerde?: Serde<K>, valueSerde?: Serde<V>): Materialized<K, V> {
    return given({ keySerde, valueSerde });
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
    return given({ keySerde, valueSerde, otherValueSerde });
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

/** Kafka Streams' `StreamJoined` factories: `as` names the join stores (and so their changelogs), `withName` the processors. */
export const StreamJoined = {
  with<K, V, VO>(keySerde?: Serde<K>, valueSerde?: Serde<V>, otherValueSerde?: Serde<VO>): StreamJoined<K, V, VO> {
    return given({ keySerde, valueSerde, otherValueSerde });
  },
  as<K, V, VO>(storeName: string): StreamJoined<K, V, VO> {
    return { storeName };
  },
  withName<K, V, VO>(name: string): StreamJoined<K, V, VO> {
    return { name };
  },
};

/** A processor name chosen by the user (Kafka Streams' `Named`). */
export interface Named {
  name?: string;
}

/** Kafka Streams' `Named.as`. */
export const Named = {
  as(name: string): Named {
    return { name };
  },
};

/**
 * Options of a foreign-key table join: its name (Kafka Streams' `TableJoined.as`, the base of its internal topics,
 * store and nodes) and the materialization of its result.
 */
export interface ForeignKeyJoined<K, VR> {
  name?: string;
  materialized?: Materialized<K, VR>;
}
