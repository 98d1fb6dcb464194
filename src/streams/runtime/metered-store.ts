import type { StateStoreMetrics } from '../metrics/streams-metrics';
import type { Sensor } from '../metrics/sensor';
import type { StateStore } from '../state/store';

/** Store operations → the `stream-state-metrics` sensor that times them (Kafka Streams' metered stores). */
const TIMED: Record<string, keyof StateStoreMetrics> = {
  put: 'put',
  putIfAbsent: 'putIfAbsent',
  putAll: 'putAll',
  get: 'get',
  fetch: 'fetch',
  fetchRange: 'fetch',
  backwardFetchRange: 'fetch',
  fetchKeyRange: 'fetch',
  backwardFetchKeyRange: 'fetch',
  fetchAll: 'fetch',
  backwardFetchAll: 'fetch',
  fetchSession: 'fetch',
  findSessions: 'fetch',
  delete: 'delete',
  remove: 'remove',
  range: 'range',
  reverseRange: 'range',
  prefixScan: 'prefixScan',
  all: 'all',
  reverseAll: 'all',
  backwardAll: 'all',
  resumableScan: 'fetch',
};

/**
 * The store as processors and queries see it: with `timeOperations` (`metrics.recording.level` DEBUG or TRACE) every
 * operation is timed into the store's metrics (range and all: the time to open the iterator); without, the store
 * itself. Flushes and restored batches are recorded by the task at every level.
 */
export function meteredStore<S extends StateStore>(store: S, metrics: StateStoreMetrics, timeOperations: boolean): S {
  if (!timeOperations) return store;
  const wrappers = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let wrapper = wrappers.get(property);
      if (wrapper === undefined) {
        wrapper = wrap(target, property, value as (...args: unknown[]) => unknown, metrics);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

function wrap(target: StateStore, property: PropertyKey, fn: (...args: unknown[]) => unknown, metrics: StateStoreMetrics): unknown {
  const sensorName = typeof property === 'string' ? TIMED[property] : undefined;
  if (sensorName === undefined) return fn.bind(target);
  const sensor = metrics[sensorName] as Sensor;
  return (...args: unknown[]) => {
    const start = performance.now();
    const result = fn.apply(target, args);
    sensor.record(performance.now() - start);
    return result;
  };
}
