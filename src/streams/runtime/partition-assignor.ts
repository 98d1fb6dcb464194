/**
 * The Sluice assignor's decision, free of Kafka: tasks (sub-topology × partition) are spread over the group's
 * clients (one per process) in proportion to their threads, sticky to the previous owner and then to a
 * client that has the task's state on disk, then over each client's consumers.
 */

import type { TopicPartition } from '../kafka';
import { parseTaskId, taskIdToString } from './task-id';

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
}

export interface TaskDefinition {
  taskId: string;
  partitions: TopicPartition[];
  stateful: boolean;
}

export interface MemberSubscription {
  memberId: string;
  info: SubscriptionInfo;
}

/** Task id → partitions, for every sub-topology, from the partition counts of its source topics. */
export function tasksFor(
  subtopologies: readonly { id: number; sourceTopics: readonly string[]; stateful: boolean }[],
  partitionCount: (topic: string) => number,
): TaskDefinition[] {
  const tasks: TaskDefinition[] = [];
  for (const sub of subtopologies) {
    const counts = sub.sourceTopics.map((t) => partitionCount(t));
    const max = Math.max(0, ...counts);
    for (let p = 0; p < max; p++) {
      const partitions = sub.sourceTopics.filter((_t, i) => p < counts[i]!).map((topic) => ({ topic, partition: p }));
      tasks.push({ taskId: taskIdToString({ subtopology: sub.id, partition: p }), partitions, stateful: sub.stateful });
    }
  }
  return tasks;
}

/** Assigns tasks to members; returns each member's task ids. Deterministic for the same input. */
export function assignTasks(members: readonly MemberSubscription[], tasks: readonly TaskDefinition[]): Map<string, string[]> {
  const result = new Map<string, string[]>(members.map((m) => [m.memberId, []]));
  if (members.length === 0) return result;

  const clients = new Map<string, MemberSubscription[]>();
  for (const member of [...members].sort((a, b) => a.memberId.localeCompare(b.memberId))) {
    const list = clients.get(member.info.processId) ?? [];
    list.push(member);
    clients.set(member.info.processId, list);
  }
  const totalCapacity = members.length;
  const capacityOf = (client: string): number => clients.get(client)!.length;
  const previousClient = new Map<string, string>();
  const previousMember = new Map<string, string>();
  const stateClients = new Map<string, Set<string>>();
  for (const m of members) {
    for (const t of m.info.previousTasks) {
      previousClient.set(t, m.info.processId);
      previousMember.set(t, m.memberId);
    }
    for (const t of m.info.stateTasks) {
      const set = stateClients.get(t) ?? new Set<string>();
      set.add(m.info.processId);
      stateClients.set(t, set);
    }
  }

  // Stateful and stateless tasks are balanced each on their own, so a process that joins gets its share of
  // the state (and of the keys it answers queries for), not only stateless work.
  const clientTasks = new Map<string, string[]>([...clients.keys()].map((c) => [c, []]));
  const sorted = [...tasks].sort((a, b) => compareTaskIds(a.taskId, b.taskId));
  for (const group of [sorted.filter((t) => t.stateful), sorted.filter((t) => !t.stateful)]) {
    const load = new Map<string, number>([...clients.keys()].map((c) => [c, 0]));
    const limitOf = (client: string): number => Math.ceil((group.length * capacityOf(client)) / totalCapacity);
    const underLimit = (c: string | undefined): c is string => c !== undefined && clients.has(c) && load.get(c)! < limitOf(c);
    const leastLoaded = (candidates: Iterable<string>): string | undefined => {
      let best: string | undefined;
      let bestRatio = Infinity;
      for (const c of candidates) {
        const ratio = load.get(c)! / capacityOf(c);
        if (ratio < bestRatio) {
          best = c;
          bestRatio = ratio;
        }
      }
      return best;
    };
    for (const task of group) {
      let client = previousClient.get(task.taskId);
      if (!underLimit(client)) client = leastLoaded([...(stateClients.get(task.taskId) ?? [])].filter(underLimit));
      if (!underLimit(client)) client = leastLoaded(clients.keys());
      load.set(client!, load.get(client!)! + 1);
      clientTasks.get(client!)!.push(task.taskId);
    }
  }

  for (const [client, taskIds] of clientTasks) {
    const consumers = clients.get(client)!;
    const load = new Map(consumers.map((m) => [m.memberId, 0]));
    const limit = Math.ceil(taskIds.length / consumers.length);
    for (const taskId of taskIds) {
      const previous = previousMember.get(taskId);
      let member = previous !== undefined && load.has(previous) && load.get(previous)! < limit ? previous : undefined;
      if (member === undefined) {
        member = [...load.entries()].reduce((a, b) => (b[1] < a[1] ? b : a))[0];
      }
      load.set(member, load.get(member)! + 1);
      result.get(member)!.push(taskId);
    }
  }
  for (const list of result.values()) list.sort(compareTaskIds);
  return result;
}

/** Task ids in Kafka Streams' order: by sub-topology, then partition. */
export function compareTaskIds(a: string, b: string): number {
  const x = parseTaskId(a)!;
  const y = parseTaskId(b)!;
  return x.subtopology - y.subtopology || x.partition - y.partition;
}
