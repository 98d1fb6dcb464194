/**
 * The Sluice assignor's decision, free of Kafka: tasks (sub-topology × partition) are spread over the group's
 * clients (one per process) in proportion to their threads, sticky to the previous owner and then to the
 * client whose state on disk is furthest along, then over each client's consumers. Standby replicas of the
 * stateful tasks go to clients (processes), never to the one running the task, nor twice to one client.
 */

import type { TopicPartition } from '../../kafka';
import { parseTaskId, taskIdToString } from '../task-id';
import type { SubscriptionInfo } from './subscription-info';

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
  for (const m of members) {
    for (const t of m.info.previousTasks) {
      previousClient.set(t, m.info.processId);
      previousMember.set(t, m.memberId);
    }
  }
  const state = stateOfClients(members);

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
      if (!underLimit(client)) client = state.furthest(task.taskId, [...clients.keys()].filter(underLimit), (c) => load.get(c)! / capacityOf(c));
      if (!underLimit(client)) client = leastLoaded(clients.keys());
      load.set(client!, load.get(client!)! + 1);
      clientTasks.get(client!)!.push(task.taskId);
    }
  }

  // Within a process, each thread likewise gets its share of the stateful tasks and of the stateless ones (as Kafka
  // Streams spreads them over its threads): a thread holds state of its own, and the threads' work is alike.
  const stateful = new Set(tasks.filter((t) => t.stateful).map((t) => t.taskId));
  for (const [client, taskIds] of clientTasks) {
    const consumers = clients.get(client)!;
    const load = new Map(consumers.map((m) => [m.memberId, 0]));
    for (const group of [taskIds.filter((t) => stateful.has(t)), taskIds.filter((t) => !stateful.has(t))]) {
      const inGroup = new Map(consumers.map((m) => [m.memberId, 0]));
      const limit = Math.ceil(group.length / consumers.length);
      for (const taskId of group) {
        const previous = previousMember.get(taskId);
        let member = previous !== undefined && inGroup.has(previous) && inGroup.get(previous)! < limit ? previous : undefined;
        // The least loaded in the group, then overall (so that rounding up in each group does not pile on one thread).
        member ??= [...inGroup.keys()].reduce((a, b) => (inGroup.get(b)! < inGroup.get(a)! || (inGroup.get(b) === inGroup.get(a) && load.get(b)! < load.get(a)!) ? b : a));
        inGroup.set(member, inGroup.get(member)! + 1);
        load.set(member, load.get(member)! + 1);
        result.get(member)!.push(taskId);
      }
    }
  }
  for (const list of result.values()) list.sort(compareTaskIds);
  return result;
}

/** Which client has local state of which task, and how far along (its offset sum; -1 when unknown). */
function stateOfClients(members: readonly MemberSubscription[]) {
  const sums = new Map<string, Map<string, number>>();
  for (const { info } of members) {
    const put = (taskId: string, sum: number): void => {
      const byClient = sums.get(taskId) ?? sums.set(taskId, new Map()).get(taskId)!;
      byClient.set(info.processId, Math.max(byClient.get(info.processId) ?? -1, sum));
    };
    for (const t of info.stateTasks) put(t, -1);
    for (const [t, sum] of Object.entries(info.taskOffsetSums ?? {})) put(t, sum);
  }
  return {
    /** Among `candidates` with state of the task, the one furthest along; ties go to the least loaded. */
    furthest(taskId: string, candidates: readonly string[], loadOf: (client: string) => number): string | undefined {
      const byClient = sums.get(taskId);
      let best: string | undefined;
      for (const c of candidates) {
        const sum = byClient?.get(c);
        if (sum === undefined) continue;
        const bestSum = best === undefined ? undefined : byClient!.get(best)!;
        if (bestSum === undefined || sum > bestSum || (sum === bestSum && loadOf(c) < loadOf(best!))) best = c;
      }
      return best;
    },
  };
}

/**
 * Places `replicas` standbys of every stateful task on clients (processes) other than the one that runs it, one
 * copy per client at most; answers each client's standby task ids. Standby counts are balanced in proportion to
 * the clients' threads; a task's standby stays where it was, else goes where its state is furthest along, else to
 * the least loaded client, and copies then move from clients over their share to clients under it. With fewer
 * other clients than `replicas`, a task gets as many as there are.
 */
export function assignStandbyTasks(
  members: readonly MemberSubscription[],
  tasks: readonly TaskDefinition[],
  active: ReadonlyMap<string, readonly string[]>,
  replicas: number,
): Map<string, string[]> {
  const capacity = new Map<string, number>();
  const clientOfMember = new Map<string, string>();
  for (const m of members) {
    capacity.set(m.info.processId, (capacity.get(m.info.processId) ?? 0) + 1);
    clientOfMember.set(m.memberId, m.info.processId);
  }
  const clients = [...capacity.keys()].sort();
  const result = new Map<string, string[]>(clients.map((c) => [c, []]));
  const stateful = tasks.filter((t) => t.stateful).sort((a, b) => compareTaskIds(a.taskId, b.taskId));
  if (replicas <= 0 || clients.length < 2 || stateful.length === 0) return result;

  const activeClient = new Map<string, string>();
  for (const [memberId, taskIds] of active) for (const t of taskIds) activeClient.set(t, clientOfMember.get(memberId)!);
  const previousStandby = new Map<string, Set<string>>();
  for (const { info } of members) {
    for (const t of info.standbyTasks ?? []) (previousStandby.get(t) ?? previousStandby.set(t, new Set()).get(t)!).add(info.processId);
  }
  const state = stateOfClients(members);
  const totalCapacity = members.length;
  const copies = stateful.length * Math.min(replicas, clients.length - 1);
  const limitOf = (c: string): number => Math.ceil((copies * capacity.get(c)!) / totalCapacity);
  const load = new Map<string, number>(clients.map((c) => [c, 0]));
  const ratio = (c: string): number => load.get(c)! / capacity.get(c)!;

  // Replica by replica over all tasks, so that the first standby of every task is placed before any second one.
  const holders = new Map<string, Set<string>>(stateful.map((t) => [t.taskId, new Set([activeClient.get(t.taskId)].filter((c) => c !== undefined))]));
  for (let replica = 0; replica < replicas; replica++) {
    for (const { taskId } of stateful) {
      const held = holders.get(taskId)!;
      const eligible = clients.filter((c) => !held.has(c));
      if (eligible.length === 0) continue;
      const underLimit = eligible.filter((c) => load.get(c)! < limitOf(c));
      const pool = underLimit.length > 0 ? underLimit : eligible;
      const client =
        pool.find((c) => previousStandby.get(taskId)?.has(c)) ??
        state.furthest(taskId, pool, ratio) ??
        pool.reduce((a, b) => (ratio(b) < ratio(a) ? b : a));
      held.add(client);
      load.set(client, load.get(client)! + 1);
      result.get(client)!.push(taskId);
    }
  }
  // Those preferences can fill the clients that may hold the last tasks' copies (not their actives' clients) and
  // leave another client with none: move copies from clients over their share to clients under it that may hold them.
  for (let moved = true; moved; ) {
    moved = false;
    for (const from of clients) {
      for (const to of clients) {
        if (load.get(from)! <= limitOf(from) || load.get(to)! >= limitOf(to)) continue;
        const list = result.get(from)!;
        const index = list.findIndex((t) => !holders.get(t)!.has(to));
        if (index < 0) continue;
        const [taskId] = list.splice(index, 1);
        holders.get(taskId!)!.delete(from);
        holders.get(taskId!)!.add(to);
        result.get(to)!.push(taskId!);
        load.set(from, load.get(from)! - 1);
        load.set(to, load.get(to)! + 1);
        moved = true;
      }
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

/** What holding back a move (KIP-441) needs: how far each task's changelogs reach, and the limits. */
export interface WarmupOptions {
  /** `acceptable.recovery.lag`: a client at most this many changelog records behind may take a task at once. */
  readonly acceptableRecoveryLag: number;
  /** `max.warmup.replicas`: how many warm-up replicas the whole group may have at a time. */
  readonly maxWarmupReplicas: number;
  /** Per stateful task with changelogs, the sum of their end offsets; a task not here moves freely. */
  readonly endOffsetSums: ReadonlyMap<string, number>;
}

export interface WarmupDecision {
  /** Member id → active task ids: `active` with the held-back moves undone. */
  readonly active: Map<string, string[]>;
  /** Client (process id) → the tasks it warms up: standbys that become its actives once caught up. */
  readonly warmups: Map<string, string[]>;
}

/**
 * Kafka Streams' warm-up moves (KIP-441, HighAvailabilityTaskAssignor): a stateful task the balanced assignment
 * gives to a client more than `acceptable.recovery.lag` records behind stays with a caught-up client (the one that
 * runs it, else the most caught-up), and the target gets a warm-up replica instead, up to `max.warmup.replicas` in
 * the group. The client that runs a task is caught up; another is as far along as the offset sum of its local
 * state (none: the whole changelog behind). A task no client is caught up on moves at once: nowhere would it answer
 * sooner. A probing rebalance later
 * finds the warm-up caught up, and the balanced assignment then stands.
 */
export function holdBackColdMoves(members: readonly MemberSubscription[], tasks: readonly TaskDefinition[], active: ReadonlyMap<string, readonly string[]>, options: WarmupOptions): WarmupDecision {
  const clientOf = new Map(members.map((m) => [m.memberId, m.info.processId]));
  const membersOf = new Map<string, string[]>();
  for (const m of [...members].sort((a, b) => a.memberId.localeCompare(b.memberId))) (membersOf.get(m.info.processId) ?? membersOf.set(m.info.processId, []).get(m.info.processId)!).push(m.memberId);
  const runningOn = new Map<string, string>();
  const offsetSums = new Map<string, Map<string, number>>();
  for (const { info } of members) {
    for (const t of info.previousTasks) runningOn.set(t, info.processId);
    for (const [t, sum] of Object.entries(info.taskOffsetSums ?? {})) (offsetSums.get(t) ?? offsetSums.set(t, new Map()).get(t)!).set(info.processId, sum);
  }
  const lagOf = (taskId: string, client: string): number => {
    if (runningOn.get(taskId) === client) return 0;
    // No state, or state of unknown extent: the whole changelog to read, as in Kafka Streams.
    const sum = Math.max(0, offsetSums.get(taskId)?.get(client) ?? 0);
    return Math.max(0, options.endOffsetSums.get(taskId)! - sum);
  };

  const result = new Map<string, string[]>([...active].map(([member, taskIds]) => [member, [...taskIds]]));
  const warmups = new Map<string, string[]>();
  let warmupCount = 0;
  const stateful = new Set(tasks.filter((t) => t.stateful && options.endOffsetSums.has(t.taskId)).map((t) => t.taskId));
  for (const [member, taskIds] of [...result].sort(([a], [b]) => a.localeCompare(b))) {
    const target = clientOf.get(member)!;
    for (const taskId of [...taskIds].sort(compareTaskIds)) {
      if (!stateful.has(taskId) || lagOf(taskId, target) <= options.acceptableRecoveryLag) continue;
      const caughtUp = [...membersOf.keys()].filter((c) => lagOf(taskId, c) <= options.acceptableRecoveryLag).sort((a, b) => lagOf(taskId, a) - lagOf(taskId, b) || a.localeCompare(b));
      const keeper = caughtUp[0];
      if (keeper === undefined) continue;
      const keeperMember = membersOf.get(keeper)!.reduce((a, b) => (result.get(b)!.length < result.get(a)!.length ? b : a));
      result.set(member, result.get(member)!.filter((t) => t !== taskId));
      result.get(keeperMember)!.push(taskId);
      if (warmupCount < options.maxWarmupReplicas) {
        (warmups.get(target) ?? warmups.set(target, []).get(target)!).push(taskId);
        warmupCount++;
      }
    }
  }
  for (const list of result.values()) list.sort(compareTaskIds);
  return { active: result, warmups };
}
