import type { StateDirectory } from '../state-directory';

/** What each consumer tells the leader when it joins (carried in the subscription userData). */
export interface SubscriptionInfo {
  version: number;
  /** One id per process (instance); its consumers (threads) share it. */
  processId: string;
  /** `application.server` (HTTP host:port), if set. */
  endpoint?: string;
  /** gRPC host:port of the node's peer service, if any. */
  grpcEndpoint?: string;
  /** Active tasks this consumer ran before the rebalance. */
  previousTasks: string[];
  /** Tasks with local state in the process' state directory. */
  stateTasks: string[];
  /** Standby tasks the process held before the rebalance. */
  standbyTasks?: string[];
  /**
   * Per task with a checkpoint here, the sum of its changelog offsets (Kafka Streams' task offset sums): the
   * larger, the less a task placed here has to restore.
   */
  taskOffsetSums?: Record<string, number>;
  /** The node asks the application to shut down (SHUTDOWN_APPLICATION): the leader assigns nothing, and tells every member. */
  shutdownRequested?: boolean;
}

/**
 * What a member's subscription says about its whole process, which the instance knows: the same for each of its
 * threads, and pushed to the threads that run in workers (kafkajs asks for the userData synchronously).
 */
export interface SubscriptionFacts {
  readonly processId: string;
  readonly endpoint?: string;
  readonly grpcEndpoint?: string;
  /** The process's standby tasks. */
  readonly standbyTasks: readonly string[];
  /** This process asked the application to shut down (SHUTDOWN_APPLICATION). */
  readonly shutdownRequested: boolean;
}

/** A thread's subscription: the process's facts, the tasks the thread ran, and the state the process holds on disk. */
export function subscriptionInfo(facts: SubscriptionFacts, stateDirectory: StateDirectory, previousTasks: string[]): SubscriptionInfo {
  const stateTasks = stateDirectory.taskIdsWithState();
  return {
    version: 1,
    processId: facts.processId,
    ...(facts.endpoint ? { endpoint: facts.endpoint } : {}),
    ...(facts.grpcEndpoint ? { grpcEndpoint: facts.grpcEndpoint } : {}),
    previousTasks,
    stateTasks,
    standbyTasks: [...facts.standbyTasks],
    taskOffsetSums: taskOffsetSums(stateDirectory, stateTasks),
    ...(facts.shutdownRequested ? { shutdownRequested: true } : {}),
  };
}

/** Per task with a readable checkpoint here, the sum of its changelog offsets: how far its local state got. */
function taskOffsetSums(stateDirectory: StateDirectory, taskIds: readonly string[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const taskId of taskIds) {
    const checkpoint = stateDirectory.readableCheckpoint(taskId);
    if (checkpoint) sums[taskId] = [...checkpoint.values()].reduce((a, b) => a + b, 0);
  }
  return sums;
}

export function encodeSubscription(info: SubscriptionInfo): Buffer {
  return Buffer.from(JSON.stringify(info));
}

export function decodeSubscription(userData: Buffer, memberId: string): SubscriptionInfo {
  try {
    const info = JSON.parse(userData.toString('utf8')) as SubscriptionInfo;
    if (typeof info.processId === 'string') return info;
  } catch {
    // A member that is not a Sluice instance: treated as its own process with no state.
  }
  return { version: 0, processId: memberId, previousTasks: [], stateTasks: [] };
}
