/** What a stream thread gets from its instance, and what it tells it. */
import type { KafkaClients, TopicPartition } from '../kafka';
import type { StateStore } from '../state/store';
import type { RestoreProgress } from './changelog-restorer';
import type { ThreadState, TopologyEvent } from './instance-view';
import type { SubscriptionInfo } from './assignment/subscription-info';
import type { ThreadClientsFactory } from './thread-clients';
import type { TopologyMetadata } from './topology-metadata';
import type { InstanceParts } from './instance-parts';

/** What a thread gets from its instance. */
export interface StreamThreadContext extends InstanceParts {
  /** The thread's slot, from 0: its static member id is `<group.instance.id>-<index + 1>` whichever thread fills it. */
  readonly index: number;
  /** The number in the thread's name (`<client.id>-StreamThread-<number>`), never given twice. */
  readonly number: number;
  readonly metadata: TopologyMetadata;
  /** One Kafka object per client role (the restore consumer's and the transactional producers'). */
  readonly kafka: KafkaClients;
  /** The thread's consumer and producer. */
  readonly clients: ThreadClientsFactory;
  /** The thread's share of `statestore.cache.max.bytes`, which its record cache starts with (see StreamThread.resizeCache). */
  readonly cacheBytes: number;
  /** The node's memory budget's share for the thread's group consumer, fixed when it is made; none: `fetch.max.bytes`. */
  readonly fetchBytes?: number;
  readonly partitionCounts: ReadonlyMap<string, number>;
  /** This process' subscription for a thread that ran the given tasks before. */
  readonly subscription: (previousTasks: string[]) => SubscriptionInfo;
  /** The group's committed offset (the next record to read; -1: none) of each of these partitions. */
  readonly committedOffsets: (partitions: readonly TopicPartition[]) => Promise<{ tp: TopicPartition; offset: number }[]>;
  readonly configureStore?: (storeName: string, options: Record<string, unknown>) => void;
  /** The node's standby tasks, which give a task up before this thread makes it active. */
  readonly standbys?: { release(taskId: string): Promise<void> };
  /** The node's global stores, restored before the thread starts: every task's processors may read them. */
  readonly globalStores?: ReadonlyMap<string, StateStore>;
  /** Where the records the tasks' processors publish to the topology's event types go. */
  readonly publishEvent?: (event: TopologyEvent) => void;
}

/** What a thread tells its instance. */
/** The join an applied assignment came from. */
export interface AppliedAssignment {
  /** The group's generation (-1 when unknown). */
  readonly generation: number;
  /** The group had dropped this member: it joined again under a new member id. */
  readonly lost: boolean;
}

export interface StreamThreadEvents {
  state: [ThreadState];
  /** An assignment was applied: the thread's tasks changed. */
  assignment: [AppliedAssignment];
  restore: [store: string, progress: RestoreProgress];
  /** The thread failed and stops processing. */
  fatal: [Error];
  /** The thread cannot join its group yet, and why (it keeps trying). */
  groupWait: [reason: string];
}
