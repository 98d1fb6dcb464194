import type { ProcessorContext } from '../../processor/processor';
import type {
  KeyValueStore,
  SessionStore,
  StateStore,
  TimestampedWindowStore,
  ValueAndTimestamp,
  Windowed,
} from '../../state/store';

/** Reads a table's current value of a key, as a join sees it. */
export type ValueGetter<K, V> = (key: K) => ValueAndTimestamp<V> | undefined;

/**
 * How a join reads the current value of a table (Kafka Streams' `KTableValueGetterSupplier`): the stores it needs
 * connected, and the getter built in the joining processor's `init`. A table that is not materialized computes its
 * values from its parent's getter.
 */
export interface ValueGetterSupplier<K, V> {
  readonly storeNames: readonly string[];
  get(context: ProcessorContext<unknown, unknown>): ValueGetter<K, V>;
}

/**
 * What an aggregation's record cache holds for a key of its store: the cached value, null for a cached deletion,
 * undefined when the key is not cached. Getters read through it, as Kafka Streams' caching stores do.
 */
type CacheReader = (key: unknown) => ValueAndTimestamp<unknown> | null | undefined;

const cacheReaders = new WeakMap<StateStore, CacheReader>();

/** Lets getters of `store` (one task's instance) see the updates its aggregation still caches. */
export function registerCacheReader<K, V>(store: StateStore, reader: (key: K) => ValueAndTimestamp<V> | null | undefined): void {
  cacheReaders.set(store, reader as CacheReader);
}

function throughCache<K, V>(store: StateStore, read: ValueGetter<K, V>): ValueGetter<K, V> {
  return (key) => {
    const cached = cacheReaders.get(store)?.(key) as ValueAndTimestamp<V> | null | undefined;
    if (cached !== undefined) return cached ?? undefined;
    return read(key);
  };
}

/** The getter of a table materialized in a timestamped key-value store. */
export function keyValueStoreGetter<K, V>(storeName: string): ValueGetterSupplier<K, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<KeyValueStore<K, ValueAndTimestamp<V>>>(storeName);
      return throughCache(store, (key) => store.get(key));
    },
  };
}

/** The getter of a windowed aggregation's table: the window of the key. */
export function windowStoreGetter<K, V>(storeName: string): ValueGetterSupplier<Windowed<K>, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<TimestampedWindowStore<K, V>>(storeName);
      return throughCache(store, (windowed) => store.fetch(windowed.key, windowed.window.start));
    },
  };
}

/** The getter of a session aggregation's table; sessions carry no timestamp, so the session end stands for it. */
export function sessionStoreGetter<K, V>(storeName: string): ValueGetterSupplier<Windowed<K>, V> {
  return {
    storeNames: [storeName],
    get(context) {
      const store = context.getStateStore<SessionStore<K, V>>(storeName);
      return throughCache(store, (windowed) => {
        const value = store.fetchSession(windowed.key, windowed.window.start, windowed.window.end);
        return value === undefined ? undefined : { value, timestamp: windowed.window.end };
      });
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
    get(context) {
      const get = parent.get(context);
      return (key) => {
        const current = get(key);
        return current === undefined ? undefined : map(key, current);
      };
    },
  };
}
