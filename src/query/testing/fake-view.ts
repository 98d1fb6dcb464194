/**
 * A stand-in for a running instance, for the query layer's unit tests: real in-memory stores on chosen partitions,
 * a host map given by hand, and murmur2 placement of keys as the runtime does it. No broker, no runtime.
 */
import { partitionForKey } from '../../streams/kafka/murmur2';
import type { InstanceView, ThreadMetadata } from '../../streams/runtime/instance-view';
import type { StandbyReplica, ThreadStoreReader, ThreadStores, WorkerStorePartitions } from '../../streams/runtime/queryable-stores';
import type { KeyQueryMetadata, StreamsMetadata } from '../../streams/runtime/streams-metadata';
import type { StreamsState } from '../../streams/runtime/streams-state';
import type { Serde } from '../../streams/serdes/serde';
import { stringSerde } from '../../streams/serdes/string';
import { RecordingStoreContext } from '../../streams/state/recording-store-context';
import type { KeyValueStore, SessionStore, StateStore, TimestampedKeyValueStore, TimestampedWindowStore, VersionedKeyValueStore, WindowStore } from '../../streams/state/store';
import { Stores } from '../../streams/state/stores';
import type { TopologyDescription } from '../../streams/topology/description';

export interface FakeHost {
  /** application.server */
  endpoint: string;
  grpcEndpoint?: string;
  partitions: number[];
  /** Partitions the host holds standby replicas of. */
  standbyPartitions?: number[];
  isLocal?: boolean;
}

function hostMetadata(host: FakeHost, stores: string[]): StreamsMetadata {
  const [address, port] = host.endpoint.split(':');
  return {
    processId: `process-${host.endpoint}`,
    endpoint: host.endpoint,
    host: address,
    port: Number(port),
    grpcEndpoint: host.grpcEndpoint,
    stateStoreNames: host.partitions.length > 0 ? stores : [],
    topicPartitions: host.partitions.map((partition) => ({ topic: 'input', partition })),
    standbyStateStoreNames: (host.standbyPartitions ?? []).length > 0 ? stores : [],
    standbyTopicPartitions: (host.standbyPartitions ?? []).map((partition) => ({ topic: 'input', partition })),
    isLocal: host.isLocal ?? false,
  };
}

const context = (partition: number): RecordingStoreContext =>
  new RecordingStoreContext('/nonexistent', { taskId: `0_${partition}`, loggingEnabled: false });

/** Builds and opens one in-memory store per partition. */
export function openStores<S extends StateStore>(partitions: readonly number[], build: () => S): Map<number, S> {
  const stores = new Map<number, S>();
  for (const partition of partitions) {
    const store = build();
    store.init(context(partition));
    stores.set(partition, store);
  }
  return stores;
}

/** Every builder here is given its serdes; the defaults are never used. */
const defaults = { keySerde: stringSerde as Serde<unknown>, valueSerde: stringSerde as Serde<unknown> };

export const builders = {
  keyValue: <K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): (() => KeyValueStore<K, V>) => () =>
    Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keySerde, valueSerde).build(defaults),
  timestampedKeyValue: <K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): (() => TimestampedKeyValueStore<K, V>) => () =>
    Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keySerde, valueSerde).build(defaults),
  window: <K, V>(name: string, windowSize: number, keySerde: Serde<K>, valueSerde: Serde<V>): (() => WindowStore<K, V>) => () =>
    Stores.windowStoreBuilder(Stores.inMemoryWindowStore(name, 86_400_000, windowSize, false), keySerde, valueSerde).build(defaults),
  timestampedWindow: <K, V>(name: string, windowSize: number, keySerde: Serde<K>, valueSerde: Serde<V>): (() => TimestampedWindowStore<K, V>) => () =>
    Stores.timestampedWindowStoreBuilder(Stores.inMemoryWindowStore(name, 86_400_000, windowSize, false), keySerde, valueSerde).build(defaults),
  session: <K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): (() => SessionStore<K, V>) => () =>
    Stores.sessionStoreBuilder(Stores.inMemorySessionStore(name, 86_400_000), keySerde, valueSerde).build(defaults),
  versioned: <K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): (() => VersionedKeyValueStore<K, V>) => () =>
    Stores.versionedKeyValueStoreBuilder(Stores.inMemoryVersionedKeyValueStore(name, 86_400_000), keySerde, valueSerde).build(defaults),
};

/**
 * One application's view from one node. `stores` are this node's partitions of each store (sub-topology 0, source
 * topic `input`); `restoring` partitions are assigned but not queryable yet.
 */
export class FakeView {
  state: StreamsState = 'RUNNING';
  readonly restoring = new Set<number>();
  /** How many times queryableStores was asked (retries show as several). */
  queryableCalls = 0;
  /** This node's standby partitions per store, with their lag. */
  readonly standbys = new Map<string, Map<number, StandbyReplica>>();
  /** Stores that are global: every node holds them whole, as GLOBAL_STORE_PARTITION. */
  readonly global = new Set<string>();
  /** Partitions a stream thread in a worker holds, by the thread's name (see workerStores). */
  readonly inWorkers = new Map<number, string>();

  constructor(
    readonly applicationId: string,
    private readonly stores: ReadonlyMap<string, ReadonlyMap<number, StateStore>>,
    private readonly hosts: FakeHost[],
    private readonly numPartitions: number,
    private readonly keySerde: Serde<unknown>,
  ) {}

  /** The view as the query layer sees it. */
  asView(): InstanceView {
    return this as unknown as InstanceView;
  }

  hasStore(store: string): boolean {
    return this.stores.has(store);
  }

  isGlobalStore(store: string): boolean {
    return this.global.has(store);
  }

  queryableStores(store: string): Map<number, StateStore> {
    this.queryableCalls++;
    const result = new Map<number, StateStore>();
    if (this.state !== 'RUNNING' && this.state !== 'REBALANCING') return result;
    for (const [partition, s] of this.stores.get(store) ?? []) if (!this.restoring.has(partition) && !this.inWorkers.has(partition)) result.set(partition, s);
    return result;
  }

  queryableStore(store: string, partition?: number): StateStore | undefined {
    const queryable = this.queryableStores(store);
    return partition === undefined ? queryable.values().next().value : queryable.get(partition);
  }

  /**
   * Partitions held by stream threads "in workers": the readers run on this thread, on the same stores, and what
   * they take and hand back is structured-cloned, as between threads.
   */
  workerStores(store: string): WorkerStorePartitions[] {
    if (this.state !== 'RUNNING' && this.state !== 'REBALANCING') return [];
    const byThread = new Map<string, Map<number, StateStore>>();
    for (const [partition, s] of this.stores.get(store) ?? []) {
      const thread = this.inWorkers.get(partition);
      if (thread === undefined || this.restoring.has(partition)) continue;
      byThread.set(thread, (byThread.get(thread) ?? new Map()).set(partition, s));
    }
    return [...byThread].map(([thread, held]) => ({
      thread,
      partitions: [...held.keys()],
      run: (module: string, exportName: string, args: readonly unknown[]) => runAsInWorker({ queryableStores: (name) => (name === store ? new Map(held) : new Map()) }, module, exportName, args),
    }));
  }

  standbyReplicas(store: string): Map<number, StandbyReplica> {
    if (this.state !== 'RUNNING' && this.state !== 'REBALANCING') return new Map();
    return new Map(this.standbys.get(store) ?? []);
  }

  allMetadata(): StreamsMetadata[] {
    return this.hosts.map((host) => hostMetadata(host, [...this.stores.keys()]));
  }

  metadataForStore(store: string): StreamsMetadata[] {
    return this.allMetadata().filter((host) => host.stateStoreNames.includes(store));
  }

  keyQueryMetadata(store: string, keyBytes: Buffer): KeyQueryMetadata | undefined {
    if (!this.stores.has(store)) return undefined;
    const partition = partitionForKey(keyBytes, this.numPartitions);
    const activeHost = this.metadataForStore(store).find((host) => host.topicPartitions.some((tp) => tp.partition === partition));
    const standbyHosts = this.allMetadata().filter((host) => host.standbyTopicPartitions.some((tp) => tp.partition === partition));
    return { activeHost, standbyHosts, partition };
  }

  sourceTopicsForStore(store: string): string[] | undefined {
    return this.stores.has(store) ? ['input'] : undefined;
  }

  storePartitionCount(store: string): number | undefined {
    return this.stores.has(store) && !this.global.has(store) ? this.numPartitions : undefined;
  }

  /** The partition of a key, as the runtime places it. */
  partitionOf(key: unknown): number {
    return partitionForKey(this.keySerde.serialize(key), this.numPartitions);
  }

  threads(): ThreadMetadata[] {
    const local = this.hosts.find((host) => host.isLocal);
    return [
      {
        name: `${this.applicationId}-StreamThread-1`,
        state: 'RUNNING',
        activeTasks: (local?.partitions ?? []).map((partition) => ({ taskId: `0_${partition}`, topicPartitions: [{ topic: 'input', partition }] })),
        standbyTasks: [],
        clients: { consumerClientId: 'c', producerClientIds: ['p'], restoreConsumerClientId: 'r', adminClientId: 'a' },
      },
    ];
  }

  describe(): TopologyDescription {
    return {
      subTopologies: [
        {
          id: 0,
          nodes: [
            { type: 'SOURCE', name: 'source', predecessors: [], successors: ['processor'], topics: ['input'] },
            { type: 'PROCESSOR', name: 'processor', predecessors: ['source'], successors: [], stores: [...this.stores.keys()] },
          ],
        },
      ],
      globalStores: [],
    };
  }
}

/** A ThreadStoreReader run as a worker runs it: module loaded by path, arguments and values structured-cloned. */
async function* runAsInWorker(stores: ThreadStores, module: string, exportName: string, args: readonly unknown[]): AsyncGenerator<unknown, unknown, undefined> {
  const reader = (require(module) as Record<string, ThreadStoreReader>)[exportName]!(stores, ...(structuredClone(args) as never[]));
  for (let next = await reader.next(); ; next = await reader.next()) {
    if (next.done) return structuredClone(next.value);
    yield structuredClone(next.value);
  }
}
