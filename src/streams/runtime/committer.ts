import type { Logger } from 'pino';
import { isGroupMembershipError, isTransientKafkaError } from '../kafka';
import type { PartitionPositions } from './partition-positions';
import type { CheckpointedTask, TaskCheckpoints } from './task-checkpoints';
import type { OffsetToCommit } from './task-transaction';

/** What the committer needs of a running task and its output. */
export interface CommittableTask extends CheckpointedTask {
  /** Flushes the task's caches: their updates go downstream and to the changelogs now. */
  prepareCommit(): void;
  /** Persists the task's stores. */
  flushStores(): Promise<void>;
  /** Last processed offset per input partition. */
  consumedPositions(): { topic: string; partition: number; offset: number }[];
  /** Sends what the task produced and waits for every acknowledgement. */
  flushOutput(): Promise<void>;
  /** Exactly-once: commits the task's transaction with these consumed offsets. */
  commitTransaction?(offsets: readonly OffsetToCommit[]): Promise<void>;
}

/** The consumer's offset commit (at-least-once). */
export type OffsetCommit = (offsets: readonly OffsetToCommit[]) => Promise<void>;

export interface CommitterOptions {
  readonly exactlyOnce: boolean;
  /** How long offset commits may fail for transient reasons before the failure is fatal. */
  readonly taskTimeoutMs: number;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/**
 * Kafka Streams' commit protocols, each in one place.
 *
 * At-least-once, for all tasks at once: flush the caches, flush the producer, flush the stores, commit the offsets,
 * write the checkpoints. A crash between any two steps re-reads input whose output may already be out, never the
 * reverse.
 *
 * Exactly-once, task by task: flush its caches, its output and its stores, then commit its transaction together
 * with its consumed offsets; no checkpoint (see TaskCheckpoints).
 */
export class Committer {
  /** When offset commits began failing for a transient reason (undefined while they succeed). */
  private failingSince: number | undefined;
  private readonly clock: () => number;

  constructor(
    private readonly commitOffsets: OffsetCommit,
    private readonly positions: PartitionPositions,
    private readonly checkpoints: TaskCheckpoints,
    private readonly options: CommitterOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  async commit(tasks: readonly CommittableTask[]): Promise<void> {
    if (tasks.length === 0) return;
    if (this.options.exactlyOnce) await this.commitTransactions(tasks);
    else await this.commitAtLeastOnce(tasks);
  }

  private async commitAtLeastOnce(tasks: readonly CommittableTask[]): Promise<void> {
    for (const task of tasks) task.prepareCommit();
    await Promise.all(tasks.map((task) => task.flushOutput()));
    const offsets: OffsetToCommit[] = [];
    for (const task of tasks) {
      await task.flushStores();
      offsets.push(...this.positions.uncommitted(task.consumedPositions()));
    }
    if (offsets.length > 0 && (await this.tryCommitOffsets(offsets))) this.positions.markCommitted(offsets);
    for (const task of tasks) this.checkpoints.committed(task);
  }

  /**
   * Commits offsets; false when they were not committed but may be later: the group is rebalancing (the next
   * owner re-reads), or Kafka is unreachable for less than task.timeout.ms (the next commit carries the same or
   * later offsets). Anything else throws.
   */
  private async tryCommitOffsets(offsets: readonly OffsetToCommit[]): Promise<boolean> {
    const { logger, taskTimeoutMs } = this.options;
    try {
      await this.commitOffsets(offsets);
      this.failingSince = undefined;
      return true;
    } catch (error) {
      // Both routine and retried: a short line, without the stack.
      if (isGroupMembershipError(error)) {
        logger.info({ reason: (error as Error).message }, 'offsets not committed: the group is rebalancing');
        return false;
      }
      const now = this.clock();
      const first = this.failingSince === undefined;
      if (isTransientKafkaError(error) && now - (this.failingSince ??= now) < taskTimeoutMs) {
        logger[first ? 'warn' : 'debug']({ reason: (error as Error).message }, 'offsets not committed: Kafka unreachable; retrying until task.timeout.ms');
        return false;
      }
      throw error;
    }
  }

  private async commitTransactions(tasks: readonly CommittableTask[]): Promise<void> {
    for (const task of tasks) {
      if (!task.commitTransaction) continue;
      task.prepareCommit();
      await task.flushOutput();
      await task.flushStores();
      const offsets = this.positions.uncommitted(task.consumedPositions());
      await task.commitTransaction(offsets);
      this.positions.markCommitted(offsets);
    }
  }
}
