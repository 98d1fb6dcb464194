import type { Logger } from 'pino';
import { CorruptedTaskState } from '../../errors';
import { TopicPartitionMap } from '../kafka';
import type { Checkpoint, StateDirectory } from './state-directory';
import type { StoreMetadata } from './topology-metadata';

/** A changelog offset to record: where a restore would begin next time. */
export interface ChangelogOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** What a task's checkpoint needs to know of it. */
export interface CheckpointedTask {
  readonly name: string;
  readonly partition: number;
  readonly stores: readonly StoreMetadata[];
  /** The offset of the last record acknowledged on a changelog partition, or undefined. */
  writtenOffset(topic: string, partition: number): number | undefined;
}

/**
 * Every write of the tasks' `.checkpoint` files, in one place. A checkpoint says how far a task's local state
 * holds its changelogs, so that a restart restores only the rest.
 *
 * At-least-once writes it after each commit. Exactly-once writes it only at a clean close: state written since
 * the restore may belong to a transaction that a crash aborts, so while the task runs its checkpoint lives in
 * memory and the file is gone (a crash then restores in full, as Kafka Streams does under EOS).
 */
export class TaskCheckpoints {
  /** Exactly-once: each running task's checkpoint, held until a clean close writes it. */
  private readonly held = new Map<string, Checkpoint>();

  constructor(
    private readonly stateDirectory: StateDirectory,
    private readonly exactlyOnce: boolean,
    private readonly logger?: Logger,
  ) {}

  /**
   * The checkpoint on disk, or undefined when none vouches for the task's local state. A corrupted one is deleted
   * and vouches for nothing: the task's state is then wiped and restored from its changelogs.
   */
  read(taskId: string): Checkpoint | undefined {
    try {
      return this.stateDirectory.readCheckpoint(taskId);
    } catch (error) {
      if (!(error instanceof CorruptedTaskState)) throw error;
      this.logger?.warn({ taskId, err: error }, `${error.message}; the task's state will be restored from its changelogs`);
      this.stateDirectory.deleteCheckpoint(taskId);
      return undefined;
    }
  }

  /** A restoring task's progress, durable in its stores: a restart resumes the restore there (both guarantees). */
  restoring(taskId: string, positions: readonly ChangelogOffset[]): void {
    if (positions.length === 0) return;
    this.merge(taskId, this.read(taskId) ?? new TopicPartitionMap(), positions, true);
  }

  /** A task whose restore ended at `ends` (one per changelog restored) and that now starts processing. */
  restored(task: CheckpointedTask, ends: readonly ChangelogOffset[]): void {
    const checkpoint = this.read(task.name) ?? new TopicPartitionMap();
    if (this.exactlyOnce) {
      for (const end of ends) checkpoint.set(end.topic, end.partition, end.offset);
      this.held.set(task.name, checkpoint);
      this.stateDirectory.deleteCheckpoint(task.name);
      return;
    }
    this.merge(task.name, checkpoint, [...ends, ...this.written(task)], true);
  }

  /** At-least-once: after a commit, the changelog offsets the task's output reached. */
  committed(task: CheckpointedTask): void {
    if (this.exactlyOnce) return;
    const existing = this.read(task.name);
    this.merge(task.name, existing ?? new TopicPartitionMap(), this.written(task), existing === undefined);
  }

  /** A task closes; `clean`: its last output was committed. Exactly-once writes the held checkpoint now. */
  closed(task: CheckpointedTask, clean: boolean): void {
    const held = this.held.get(task.name);
    this.held.delete(task.name);
    if (this.exactlyOnce && clean && held) this.merge(task.name, held, this.written(task), true);
  }

  /** Sets offsets that move the checkpoint forward, and writes it when something changed or `force`. */
  private merge(taskId: string, checkpoint: Checkpoint, offsets: readonly ChangelogOffset[], force: boolean): void {
    let changed = false;
    for (const o of offsets) {
      if ((checkpoint.get(o.topic, o.partition) ?? -1) >= o.offset) continue;
      checkpoint.set(o.topic, o.partition, o.offset);
      changed = true;
    }
    if (changed || force) this.stateDirectory.writeCheckpoint(taskId, checkpoint);
  }

  /** The next offset of each changelog past what the task's output wrote there. */
  private written(task: CheckpointedTask): ChangelogOffset[] {
    const offsets: ChangelogOffset[] = [];
    for (const store of task.stores) {
      if (store.changelog === undefined) continue;
      const written = task.writtenOffset(store.changelog, task.partition);
      if (written !== undefined) offsets.push({ topic: store.changelog, partition: task.partition, offset: written + 1 });
    }
    return offsets;
  }
}
