import type { Logger } from 'pino';
import type { MemberAssignment } from '../../kafka';
import type { StreamsConfig } from '../streams-config';
import { parseTaskId } from '../task-id';
import type { TopologyMetadata } from '../topology-metadata';
import { withTimeout } from '../with-timeout';
import { type AssignmentInfo, encodeAssignment } from './assignment-info';
import { decodeSubscription } from './subscription-info';
import { assignStandbyTasks, assignTasks, compareTaskIds, holdBackColdMoves, type MemberSubscription, type TaskDefinition, tasksFor } from './task-assignor';

/** How long the leader waits for the changelogs' end offsets it places stateful tasks by. */
const END_OFFSETS_FOR_ASSIGNMENT_MS = 5_000;

export interface StreamsPartitionAssignorOptions {
  readonly metadata: TopologyMetadata;
  readonly config: StreamsConfig;
  readonly logger: Logger;
  /** Low and high watermark per partition of a topic. */
  endOffsets(topic: string): Promise<Map<number, { low: number; high: number }>>;
  /** Warmed-up tasks may move: this node's threads join the group again. `warmups`: the last assignment's. */
  onProbingRebalance(warmups: readonly string[]): void;
}

/**
 * The leader's side of the group protocol (Kafka Streams' `StreamsPartitionAssignor`): reads the members'
 * subscriptions, decides with the task assignor, and writes each member's assignment.
 */
export class StreamsPartitionAssignor {
  private probingTimer: NodeJS.Timeout | undefined;
  /** The warm-ups the probing rebalance due is for. */
  private warmups: readonly string[] = [];

  constructor(private readonly options: StreamsPartitionAssignorOptions) {}

  /**
   * The leader's decision: tasks from the partition counts, spread by the Sluice assignor; a stateful task stays
   * where it is caught up while its new owner warms it up (KIP-441), and a probing rebalance is due if any does.
   */
  async assign(
    members: { memberId: string; userData: Buffer }[],
    partitionCount: (topic: string) => number,
    topics: readonly string[],
  ): Promise<Map<string, MemberAssignment>> {
    const { metadata, config, logger } = this.options;
    const subscriptions: MemberSubscription[] = members.map((m) => ({ memberId: m.memberId, info: decodeSubscription(m.userData, m.memberId) }));
    const requester = subscriptions.find((m) => m.info.shutdownRequested === true);
    if (requester) {
      logger.error({ requestedBy: requester.info.processId }, 'a node asked the application to shut down; every member is told so');
      const assignment: AssignmentInfo = { version: 1, standbyTasks: [], shutdownRequestedBy: requester.info.processId };
      return new Map(subscriptions.map((m) => [m.memberId, { partitions: [], userData: encodeAssignment(assignment) }]));
    }
    const subtopologies = metadata.subtopologies.map((sub) => ({
      id: sub.id,
      sourceTopics: metadata.sourceTopicsAmong(sub, topics),
      stateful: sub.stores.length > 0,
    }));
    const tasks = tasksFor(subtopologies, partitionCount);
    const balanced = assignTasks(subscriptions, tasks);
    const { active, warmups } = holdBackColdMoves(subscriptions, tasks, balanced, {
      acceptableRecoveryLag: config.acceptableRecoveryLag,
      maxWarmupReplicas: config.maxWarmupReplicas,
      endOffsetSums: await this.changelogEndOffsetSums(tasks, subscriptions),
    });
    const standbys = assignStandbyTasks(subscriptions, tasks, active, config.numStandbyReplicas);
    for (const [client, taskIds] of warmups) standbys.set(client, [...new Set([...(standbys.get(client) ?? []), ...taskIds])].sort(compareTaskIds));
    if (warmups.size > 0) this.scheduleProbingRebalance([...warmups.values()].flat());
    const processOf = new Map(subscriptions.map((m) => [m.memberId, m.info.processId]));
    const partitionsOf = new Map(tasks.map((t) => [t.taskId, t.partitions]));
    return new Map(
      [...active.entries()].map(([member, taskIds]) => {
        // Every member of a process carries the process's standbys: whoever reads the group finds them on any.
        const process = processOf.get(member)!;
        const warming = warmups.get(process);
        const assignment: AssignmentInfo = { version: 1, standbyTasks: standbys.get(process) ?? [], ...(warming?.length ? { warmupTasks: warming } : {}) };
        return [member, { partitions: taskIds.flatMap((id) => partitionsOf.get(id) ?? []), userData: encodeAssignment(assignment) }];
      }),
    );
  }

  /** No probing rebalance from now on (the instance stops). */
  close(): void {
    if (this.probingTimer) clearTimeout(this.probingTimer);
  }

  /**
   * Per stateful task, the sum of its changelogs' end offsets: what a node's offset sum is measured against. Only
   * when a stateful task may move (more than one process); empty when the broker cannot say, and tasks then move
   * at once, as without warm-ups.
   */
  private async changelogEndOffsetSums(tasks: readonly TaskDefinition[], members: readonly MemberSubscription[]): Promise<Map<string, number>> {
    const { metadata, logger } = this.options;
    if (new Set(members.map((m) => m.info.processId)).size < 2) return new Map();
    const read = async (): Promise<Map<string, number>> => {
      const sums = new Map<string, number>();
      for (const task of tasks) {
        const id = parseTaskId(task.taskId);
        const sub = task.stateful && id ? metadata.subtopology(id.subtopology) : undefined;
        const changelogs = (sub?.stores ?? []).map((store) => store.changelog).filter((t) => t !== undefined);
        if (changelogs.length === 0) continue;
        let sum = 0;
        for (const topic of changelogs) sum += (await this.options.endOffsets(topic)).get(id!.partition)?.high ?? 0;
        sums.set(task.taskId, sum);
      }
      return sums;
    };
    // Bounded: the group waits for the leader's assignment.
    const sums = await withTimeout(read(), END_OFFSETS_FOR_ASSIGNMENT_MS).catch((error: unknown) => {
      logger.warn({ err: error }, "reading the changelogs' end offsets failed; stateful tasks move without warming up in this rebalance");
      return new Map<string, number>();
    });
    if (sums !== undefined) return sums;
    logger.warn(`no changelog end offsets within ${END_OFFSETS_FOR_ASSIGNMENT_MS} ms; stateful tasks move without warming up in this rebalance`);
    return new Map();
  }

  /** After `probing.rebalance.interval.ms` this node's threads join the group again: the leader's join rebalances it. */
  private scheduleProbingRebalance(warmups: readonly string[]): void {
    const { config, logger } = this.options;
    logger.info({ warmups, inMs: config.probingRebalanceIntervalMs }, 'stateful tasks warm up before they move; a probing rebalance will follow');
    this.warmups = warmups;
    if (this.probingTimer !== undefined) return;
    this.probingTimer = setTimeout(() => {
      this.probingTimer = undefined;
      this.options.onProbingRebalance(this.warmups);
    }, config.probingRebalanceIntervalMs);
    this.probingTimer.unref();
  }
}
