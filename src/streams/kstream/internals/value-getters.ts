import type { ProcessorContext } from '../../processor/processor';
import type {
  KeyValueStore,
  SessionStore,
  TimestampedWindowStore,
  ValueAndTimestamp,
  VersionedKeyValueStore,
  Windowed,
} from '../../state/store';

/**
 * Reads a table's current value of a key, as a join sees it; a versioned table answers `asOf` with the value valid
 * then, other tables ignore it.
 */
export type ValueGetter<K, V> = (key: K, asOf?: number) => ValueAndTimestamp<V> | undefined;

/**
 * How a join reads the current value of a table (Kafka Streams' `KTableValueGetterSupplier`): the stores it needs
 * connected, and the getter built in the joining processor's `init`. A table that is not materialized computes its
 * values from its parent's getter. Reads go through the stores' caching layer.
 */
export interface ValueGetterSupplier<K, V> {
  readonly storeNames: readonly string[];
  /** The table is versioned (Kafka Streams' `KTableValueGetter.isVersioned`): a stream join reads it as of each record's time. */
  readonly versioned?: boolean;
  get(context: ProcessorContext<unknown, unknown>): ValueGetter<K, V>;
}

/** The getter of a table materialized in a timestamped key-value store. */
export function keyValueStoreGetter<K, V>(storeName: string): ValueGetterSupplier<K, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<KeyValueStore<K, ValueAndTimestamp<V>>>(storeName);
      return (key) => store.get(key);
    },
  };
}

/** The getter of a table materialized in a versioned store: the latest version, or the one valid at `asOf`. */
export function versionedStoreGetter<K, V>(storeName: string): ValueGetterSupplier<K, V> {
  return {
    storeNames: [storeName],
    versioned: true,
    get(context) {
      const store = context.getStateStore<VersionedKeyValueStore<K, V>>(storeName);
      return (key, asOf) => {
        const record = store.get(key, asOf);
        return record === undefined ? undefined : { value: record.value, timestamp: record.timestamp };
      };
    },
  };
}

/** The getter of a windowed aggregation's table: the window of the key. */
export function windowStoreGetter<K, V>(storeName: string): ValueGetterSupplier<Windowed<K>, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<TimestampedWindowStore<K, V>>(storeName);
      return (windowed) => store.fetch(windowed.key, windowed.window.start);
    },
  };
}

/** The getter of a session aggregation's table; sessions carry no timestamp, so the session end stands for it. */
export function sessionStoreGetter<K, V>(storeName: string): ValueGetterSupplier<Windowed<K>, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<SessionStore<K, V>>(storeName);
      return (windowed) => {
        const value = store.fetchSession(windowed.key, windowed.window.start, windowed.window.end);
        return value === undefined ? undefined : { value, timestamp: windowed.window.end };
      };
    },
  };
}

/** A getter computed from another one (filter, mapValues): `map` returns undefined for a key without value. */
export function mappedGetter<K, V, V2>(
  parent: ValueGetterSupplier<K, V>,
  map: (key: K, current: ValueAndTimestamp<V>) => ValueAndTimestamp<V2> | undefined,
): ValueGetterSupplier<K, V2> {
  return {
    storeNames: parent.storeNames,
    ...(parent.versioned ? { versioned: true } : {}),
    get(context) {
      const get = parent.get(context);
      return (key, asOf) => {
        const current = get(key, asOf);
        return current === undefined ? undefined : map(key, current);
      };
    },
  };
}
