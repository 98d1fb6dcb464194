import type { StateStore } from '../state/store';
import type { GlobalStreamThread } from './global-stream-thread';
import { GLOBAL_STORE_PARTITION, type QueryableStores, type StandbyReplica, type WorkerStorePartitions } from './queryable-stores';
import type { StandbyTasks } from './standby-task';
import { StreamThread } from './stream-thread';
import type { StreamThreadHandle } from './stream-thread-handle';
import { parseTaskId } from './task-id';
import type { TopologyMetadata } from './topology-metadata';
import { WorkerStreamThread } from './worker/worker-stream-thread';

/** What an instance shows of itself for its stores to be found. */
export interface StoreHolders {
  readonly metadata: TopologyMetadata;
  readonly globalThread: GlobalStreamThread | undefined;
  /** Whether the instance is RUNNING or REBALANCING: only then are its stores read. */
  running(): boolean;
  threads(): readonly StreamThreadHandle[];
  standbys(): StandbyTasks | undefined;
}

/** The store lookup of one instance: where each queryable partition of a store is held on this node. */
export class InstanceStores implements QueryableStores {
  constructor(private readonly holders: StoreHolders) {}

  hasStore(store: string): boolean {
    return this.holders.metadata.topology.store(store) !== undefined;
  }

  isGlobalStore(store: string): boolean {
    return this.holders.globalThread?.stores.has(store) ?? false;
  }

  queryableStores(store: string): Map<number, StateStore> {
    return new Map(this.queryablePartitions(store));
  }

  queryableStore(store: string, partition?: number): StateStore | undefined {
    for (const [found, s] of this.queryablePartitions(store)) if (partition === undefined || found === partition) return s;
    return undefined;
  }

  workerStores(store: string): WorkerStorePartitions[] {
    const sub = this.holders.metadata.subtopologyOfStore(store);
    if (!this.holders.running() || sub === undefined) return [];
    const result: WorkerStorePartitions[] = [];
    for (const thread of this.holders.threads()) {
      if (!(thread instanceof WorkerStreamThread) || !thread.live) continue;
      const partitions = thread
        .activeTasks()
        .filter((task) => task.running)
        .map((task) => parseTaskId(task.taskId))
        .filter((id) => id?.subtopology === sub.id)
        .map((id) => id!.partition);
      if (partitions.length > 0) result.push({ thread: thread.name, partitions, run: (module, exportName, args) => thread.read(module, exportName, args) });
    }
    return result;
  }

  /** This node's standby partitions of a store, each with its lag behind its changelog. */
  standbyReplicas(store: string): Map<number, StandbyReplica> {
    if (!this.holders.running()) return new Map();
    return this.holders.standbys()?.replicas(store) ?? new Map();
  }

  /** This node's standby partitions of a store, each behind its active by its standby's lag. */
  standbyStores(store: string): Map<number, StateStore> {
    return new Map([...this.standbyReplicas(store)].map(([partition, replica]) => [partition, replica.store]));
  }

  /** The store's partitions on the main thread that can be queried now, as found: the global store's, then each thread's. */
  private *queryablePartitions(store: string): Generator<[number, StateStore], void, undefined> {
    if (!this.holders.running()) return;
    const globalThread = this.holders.globalThread;
    const global = globalThread?.isRestored ? globalThread.stores.get(store) : undefined;
    if (global?.isOpen()) yield [GLOBAL_STORE_PARTITION, global];
    for (const thread of this.holders.threads()) if (thread instanceof StreamThread) yield* thread.queryablePartitions(store);
  }
}
