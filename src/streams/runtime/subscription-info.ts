import type { SubscriptionInfo } from './partition-assignor';
import type { StateDirectory } from './state-directory';

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
