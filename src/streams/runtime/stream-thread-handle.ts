/**
 * A stream thread as its instance drives it, wherever it runs: on the instance's own event loop (StreamThread) or
 * in a worker thread (WorkerStreamThread). Everything here is what the instance needs of a thread it cannot reach
 * synchronously: reports are snapshots, or asked for.
 */
import type { EventEmitter } from 'node:events';
import type { TopicPartition } from '../kafka';
import type { LastRestoration, RestoringSpan, ThreadState } from './instance-view';
import type { PartitionPosition } from './partition-positions';
import type { MemoryInUse, MemoryLimits } from './memory-budget';
import type { StreamThreadEvents } from './stream-thread-context';

/** An active task of a thread: its id and input partitions. */
export interface ThreadTask {
  readonly taskId: string;
  readonly partitions: readonly TopicPartition[];
  /** Restored: it processes, and its stores answer queries. */
  readonly running: boolean;
}

/** A thread's position on one of its input partitions. */
export interface ThreadPartitionPosition {
  readonly topic: string;
  readonly partition: number;
  readonly state: PartitionPosition;
}

/** One store partition of a thread's tasks: how far it holds its changelog (-1: unknown), and its last restoration. */
export interface ThreadStorePosition {
  readonly store: string;
  readonly partition: number;
  readonly changelog: string | undefined;
  readonly currentOffset: number;
  readonly lastRestoration?: LastRestoration;
  /** While its changelog is being restored: where that began and is to end. */
  readonly restoring?: RestoringSpan;
  /** Bytes on disk; absent for a store with none (in memory). */
  readonly sizeBytes?: number;
}

/** Neither closing nor closed: a thread in this state can still be removed or carry a request to the group. */
export function isLive(state: ThreadState): boolean {
  return state !== 'DEAD' && state !== 'PENDING_SHUTDOWN';
}

export interface StreamThreadHandle extends EventEmitter<StreamThreadEvents> {
  readonly name: string;
  /** The thread's slot (from 0), which a replacement takes over. */
  readonly slot: number;
  readonly state: ThreadState;
  /** Neither closing nor closed: a thread that can still be removed or carry a request to the group. */
  readonly live: boolean;
  /**
   * Connects the thread's clients, short of joining the group; start() joins. The instance prepares all its threads
   * before any joins, so that their first joins reach the group together.
   */
  prepare(): Promise<void>;
  /** Joins the group and runs (prepares first, if that was not done). */
  start(): Promise<void>;
  /** Stops consuming, commits (unless the thread failed), closes tasks and leaves the group (a static member: if `leaveGroup`). */
  close(leaveGroup?: boolean): Promise<void>;
  /** Adds topics (new matches of a source pattern) to the subscription. */
  subscribeTo(topics: string[]): Promise<void>;
  /** Joins the group again (a probing rebalance when this thread's consumer leads the group). */
  requestRejoin(): void;
  /** The thread's share of `statestore.cache.max.bytes` changed, as the instance's threads did. */
  resizeCache(maxBytes: number): void;
  /** In the node's memory budget (MemoryBudget): a record cache, a producer buffer, two consumers. */
  readonly caches: boolean;
  readonly produces: boolean;
  readonly consumers: number;
  /** The node's memory budget's shares for this thread. */
  limitMemory(limits: MemoryLimits): void;
  memoryInUse(): MemoryInUse;
  /** Joins the group again to carry the instance's shutdown request, even when the thread failed. */
  sendShutdownRequest(): void;
  /** The thread's active tasks, restoring or running. */
  activeTasks(): ThreadTask[];
  /** Whether the thread holds a task (open, or still closing). */
  holds(taskId: string): boolean;
  positions(): Promise<ThreadPartitionPosition[]>;
  storePositions(): Promise<ThreadStorePosition[]>;
}
