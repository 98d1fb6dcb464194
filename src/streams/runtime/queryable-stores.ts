import type { StateStore } from '../state/store';

/** The partition under which a global store, whole on every node, is queried. */
export const GLOBAL_STORE_PARTITION = 0;

/** A standby partition of a store, and how many records of its changelog it has yet to read (-1: not known yet). */
export interface StandbyReplica {
  store: StateStore;
  lag: number;
}

/** The stores of one stream thread, as code run in its worker reads them. */
export interface ThreadStores {
  /** The thread's partitions of a store that can be queried now (their tasks restored). */
  queryableStores(store: string): Map<number, StateStore>;
}

/**
 * What code run in a thread's worker hands back: an async generator of values, or a generator (either returns its
 * last value), as `run` gives it to the caller on the main thread.
 */
export type ThreadStoreReader = (stores: ThreadStores, ...args: never[]) => AsyncGenerator<unknown, unknown, undefined> | Generator<unknown, unknown, undefined>;

/**
 * Partitions of a store that a stream thread in a worker holds queryable. Its stores are read there, through their
 * caches, by code the caller names: the records stay in the worker until they are read, as with a peer.
 */
export interface WorkerStorePartitions {
  readonly thread: string;
  readonly partitions: readonly number[];
  /**
   * Runs function `exportName` of `module` (a ThreadStoreReader) in the thread's worker with its stores and `args`
   * (structured-cloned), and hands out what it yields, one value per call of next(), and what it returns.
   */
  run(module: string, exportName: string, args: readonly unknown[]): AsyncGenerator<unknown, unknown, undefined>;
}

/**
 * What the query layer reads of an instance's local stores (Kafka Streams' QueryableStoreProvider): the
 * partitions this node holds, active on the main thread or in workers, global, and standby.
 */
export interface QueryableStores {
  /** Whether the topology has a store of that name. */
  hasStore(store: string): boolean;
  /** Whether the store is a global store: every node holds all of it. */
  isGlobalStore(store: string): boolean;
  /**
   * Local partitions of a store that can be queried now (running, not restoring) on the main thread: those of the
   * stream threads in workers are in workerStores. A global store is one partition, GLOBAL_STORE_PARTITION, once
   * restored.
   */
  queryableStores(store: string): Map<number, StateStore>;
  /**
   * One of those: the given partition, or with none the first found. Asked by every keyed query, it makes no map.
   */
  queryableStore(store: string, partition?: number): StateStore | undefined;
  /** Local partitions of a store that stream threads in workers hold queryable now, by thread (none in queryableStores). */
  workerStores(store: string): WorkerStorePartitions[];
  /** Local standby partitions of a store, with their lag (stale reads). */
  standbyReplicas(store: string): Map<number, StandbyReplica>;
}
