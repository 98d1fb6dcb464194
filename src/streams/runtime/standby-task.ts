import type { Logger } from 'pino';
import { StreamsException } from '../../errors';
import type { TopicPartition } from '../kafka';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import { createPartitionLagMetrics, type PartitionLagMetrics } from '../metrics/streams-metrics';
import type { StandbyReplica } from './queryable-stores';
import { ThreadCache } from '../state/thread-cache';
import { ChangelogRestorer, type ChangelogSource, type ChangelogToRestore, type RestoreProgress } from './changelog-restorer';
import type { StateDirectory } from './state-directory';
import type { BudgetedThread, MemoryInUse, MemoryLimits } from './memory-budget';
import { ProcessorStateManager } from './state-manager';
import type { TaskCheckpoints } from './task-checkpoints';
import { parseTaskId, taskIdToString, type TaskId } from './task-id';
import { changelogsOf, checkpointRestore, openTaskStores } from './task-stores';
import type { StoreMetadata, TopologyMetadata } from './topology-metadata';
import type { InstanceParts } from './instance-parts';

/** Who holds a standby task's directory lock among the instance's threads. */
const STANDBY_LOCK_OWNER = 'standby';

/** A standby's progress on one changelog partition. */
export interface StandbyChangelog {
  store: string;
  topic: string;
  partition: number;
  /** The next offset to apply; -1 until the first fetch. */
  position: number;
  /** The changelog's end as last fetched (under exactly-once its last stable offset); -1 until the first fetch. */
  endOffset: number;
}

/** A standby task of this node, as reports show it. */
export interface StandbyTaskStatus {
  taskId: string;
  /** The task's input partitions (as the active's), for the host map and `/status`. */
  topicPartitions: TopicPartition[];
  changelogs: StandbyChangelog[];
  /** Records the standby's stores are behind their changelogs, summed; -1 until every changelog was fetched once. */
  lag: number;
}

/** Kafka Streams' StandbyTask: a task's stores, kept up to date from their changelogs, that never processes input. */
class StandbyTask {
  readonly changelogs = new Map<string, StandbyChangelog>();
  readonly lagMetrics = new Map<string, PartitionLagMetrics>();

  constructor(
    readonly state: ProcessorStateManager,
    readonly stores: readonly StoreMetadata[],
  ) {}

  get name(): string {
    return this.state.name;
  }

  get lag(): number {
    let lag = 0;
    for (const c of this.changelogs.values()) {
      if (c.endOffset < 0) return -1;
      lag += Math.max(c.endOffset - c.position, 0);
    }
    return lag;
  }
}

export interface StandbyTasksOptions {
  readonly metadata: TopologyMetadata;
  readonly stateDirectory: StateDirectory;
  readonly checkpoints: TaskCheckpoints;
  /** The node's changelog reader for standbys (one per node, beside each thread's restore reader). */
  readonly source: ChangelogSource;
  /** A standby task's stores, which only restore (`standbyTaskFactory`). */
  readonly createTask: (id: TaskId) => ProcessorStateManager;
  /** Whether a stream thread of this node holds the task as active (its stores open or still closing). */
  readonly heldByActive: (taskId: string) => boolean;
  /** The task's input partitions. */
  readonly partitionsOf: (taskId: string) => TopicPartition[];
  readonly checkpointIntervalMs: number;
  readonly retryForMs: number;
  readonly metrics: MetricsRegistry;
  readonly clientId: string;
  readonly logger: Logger;
}

/**
 * The standby tasks of a node. Standbys are placed per node (process), not per thread, so that one changelog
 * reader serves them all and a thread that takes a task over as active finds it on the same state directory:
 * `release` hands a standby's stores over (checkpointed where it stopped), and the active restores only the tail.
 * Every change to the set runs one at a time; a standby of a task a thread still holds is opened at the next
 * `apply` (after each rebalance and every host map refresh).
 */
export class StandbyTasks implements BudgetedThread {
  /** In the node's memory budget for its changelog reader's fetches. */
  readonly caches = false;
  readonly produces = false;
  readonly consumers = 1;
  private readonly tasks = new Map<string, StandbyTask>();
  private readonly restorer: ChangelogRestorer;
  private exclusive: Promise<void> = Promise.resolve();
  private assignedTasks: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: StandbyTasksOptions) {
    this.restorer = new ChangelogRestorer(
      options.source,
      {
        onProgress: (changelog, progress) => this.progress(changelog, progress),
        onTaskRestored: () => undefined,
        onTaskCorrupted: (taskId, error) => void this.runExclusive(() => this.reviveCorrupted(taskId, error)),
        onError: (error) => void this.runExclusive(() => this.recover(error)),
      },
      { retryForMs: options.retryForMs, logger: options.logger },
    );
    options.metrics.gauge('stream-state-updater-metrics', this.updaterTags, { name: 'standby-updating-tasks', description: 'The number of standby tasks this node updates' }, () => this.tasks.size);
  }

  limitMemory(limits: MemoryLimits): void {
    this.options.source.limitFetch(limits.fetchBytes);
  }

  memoryInUse(): MemoryInUse {
    return { cacheBytes: 0, produceBufferBytes: 0, fetchBytes: this.options.source.fetchBytes };
  }

  /** The standby tasks the last assignment gave this node. */
  get assigned(): readonly string[] {
    return this.assignedTasks;
  }

  /** Opens the standbys of `taskIds` not yet open, and closes those no longer assigned. */
  apply(taskIds: readonly string[]): Promise<void> {
    this.assignedTasks = [...taskIds].sort();
    return this.runExclusive(async () => {
      const wanted = new Set(taskIds);
      for (const name of [...this.tasks.keys()]) if (!wanted.has(name)) await this.closeTask(name);
      for (const name of wanted) {
        if (this.tasks.has(name) || this.options.heldByActive(name)) continue;
        await this.open(name).catch((error: unknown) => this.options.logger.warn({ err: error, taskId: name }, `opening standby task ${name} failed; trying again at the next assignment`));
      }
      this.timer ??= setInterval(() => void this.checkpoint(), this.options.checkpointIntervalMs).unref();
    });
  }

  /** Gives a standby's stores up to an active task of this node: checkpointed where the standby stopped, closed. */
  release(taskId: string): Promise<void> {
    return this.runExclusive(() => this.closeTask(taskId));
  }

  /** Checkpoints every standby where it is: a restart, or a promotion, reads its changelogs only from there. */
  checkpoint(): Promise<void> {
    return this.runExclusive(async () => {
      for (const task of this.tasks.values()) await this.checkpointTask(task);
    });
  }

  /**
   * The open standby partitions of a store, each with the records its changelog holds that it has not read yet
   * (-1 before the changelog's end was first fetched).
   */
  replicas(storeName: string): Map<number, StandbyReplica> {
    const result = new Map<number, StandbyReplica>();
    for (const t of this.tasks.values()) {
      const store = t.state.stores.get(storeName);
      if (!store?.isOpen()) continue;
      const topic = t.stores.find((s) => s.name === storeName)?.changelog;
      const changelog = topic === undefined ? undefined : t.changelogs.get(topic);
      const lag = changelog === undefined || changelog.endOffset < 0 ? -1 : Math.max(changelog.endOffset - changelog.position, 0);
      result.set(t.state.id.partition, { store, lag });
    }
    return result;
  }

  status(): StandbyTaskStatus[] {
    return [...this.tasks.values()].map((t) => ({
      taskId: t.name,
      topicPartitions: this.options.partitionsOf(t.name),
      changelogs: [...t.changelogs.values()].map((c) => ({ ...c })),
      lag: t.lag,
    }));
  }

  /** Checkpoints and closes every standby, and the changelog reader. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.runExclusive(async () => {
      this.closed = true;
      for (const name of [...this.tasks.keys()]) await this.closeTask(name);
    });
    await this.restorer.close();
    this.options.metrics.removeMetrics(this.updaterTags);
  }

  /** Kafka Streams' state updater thread, whose metrics group this follows: here one per node. */
  private get updaterTags(): { 'thread-id': string } {
    return { 'thread-id': `${this.options.clientId}-StandbyUpdater` };
  }

  private runExclusive(fn: () => Promise<void>): Promise<void> {
    const next = this.exclusive.then(() => (this.closed ? undefined : fn()));
    this.exclusive = next.catch((error: unknown) => this.options.logger.warn({ err: error }, 'a standby task operation failed'));
    return this.exclusive;
  }

  private async open(name: string): Promise<void> {
    const id = parseTaskId(name);
    const sub = id && this.options.metadata.subtopology(id.subtopology);
    if (!id || !sub) throw new StreamsException(`standby task ${name} is not a task of this topology`);
    const { stateDirectory, checkpoints, logger } = this.options;
    stateDirectory.lock(name, STANDBY_LOCK_OWNER);
    const task = new StandbyTask(this.options.createTask(id), sub.stores);
    try {
      await openTaskStores(task.state, stateDirectory, checkpoints, logger);
    } catch (error) {
      await task.state.close().catch(() => undefined);
      stateDirectory.unlock(name, STANDBY_LOCK_OWNER);
      throw error;
    }
    const changelogs = changelogsOf(task.state, task.stores, checkpoints);
    for (const c of changelogs) {
      task.changelogs.set(c.topic, { store: c.store, topic: c.topic, partition: c.partition, position: -1, endOffset: -1 });
      task.lagMetrics.set(c.topic, createPartitionLagMetrics(this.options.metrics, `${this.options.clientId}-standby-restore-consumer`, c.topic, c.partition));
    }
    this.tasks.set(name, task);
    this.restorer.register(name, changelogs, { follow: true });
    logger.info({ taskId: name, changelogs: changelogs.map((c) => ({ topic: c.topic, from: c.startOffset })) }, `standby task ${name} opened`);
  }

  private progress(changelog: ChangelogToRestore, progress: RestoreProgress): void {
    const task = this.tasks.get(changelog.taskId);
    const entry = task?.changelogs.get(changelog.topic);
    if (!task || !entry) return;
    entry.position = this.restorer.position(changelog.topic, changelog.partition) ?? entry.position;
    entry.endOffset = entry.position + progress.remaining;
    task.lagMetrics.get(changelog.topic)?.lag.record(progress.remaining);
  }

  private checkpointTask(task: StandbyTask): Promise<void> {
    return checkpointRestore(task.state, this.restorer.takeCheckpoint(task.name, 0), this.options.checkpoints);
  }

  /** Closes a standby, checkpointed where it is unless its position is no longer worth keeping. */
  private async closeTask(name: string, checkpoint = true): Promise<void> {
    const task = this.tasks.get(name);
    if (!task) return;
    try {
      if (checkpoint) await this.checkpointTask(task);
    } finally {
      this.restorer.unregister(name);
      this.tasks.delete(name);
      for (const m of task.lagMetrics.values()) m.unregister();
      try {
        await task.state.close();
      } finally {
        this.options.stateDirectory.unlock(name, STANDBY_LOCK_OWNER);
      }
    }
  }

  /**
   * A changelog no longer holds what the standby read up to (truncated under it: Kafka Streams' TaskCorruptedException):
   * that standby alone is wiped and reads its changelogs again from the log start; the others go on.
   */
  private async reviveCorrupted(taskId: string, cause: Error): Promise<void> {
    if (!this.tasks.has(taskId)) return;
    this.options.logger.warn({ taskId, err: cause }, `${cause.message}; standby task ${taskId}'s stores are wiped and read again from the changelogs' log start`);
    await this.closeTask(taskId, false);
    this.options.stateDirectory.wipeTaskState(taskId);
    if (this.assignedTasks.includes(taskId) && !this.options.heldByActive(taskId)) await this.open(taskId);
  }

  /** Reading the changelogs failed for good: every standby closes, checkpointed, and opens again at the next apply. */
  private async recover(error: unknown): Promise<void> {
    this.options.logger.warn({ err: error }, 'reading changelogs into standby tasks failed; they open again at the next assignment');
    for (const name of [...this.tasks.keys()]) {
      await this.closeTask(name).catch((closeError: unknown) => this.options.logger.warn({ err: closeError, taskId: name }, 'closing a standby task failed'));
    }
  }
}

/** What a standby's stores need: their configuration, never an output. */
export interface StandbyTaskFactoryOptions extends Pick<InstanceParts, 'config' | 'stateDirectory' | 'defaultKeySerde' | 'defaultValueSerde' | 'configureStore'> {
  readonly metadata: TopologyMetadata;
}

/** Makes a standby task's state manager: the stores of the task, which only restore, and log nothing. */
export function standbyTaskFactory(options: StandbyTaskFactoryOptions): (id: TaskId) => ProcessorStateManager {
  const { config, metadata } = options;
  // A standby only restores, past its stores' caches: they get no budget (Kafka Streams' StandbyTaskCreator's dummy cache).
  const cache = new ThreadCache(0);
  return (id) => {
    const name = taskIdToString(id);
    return new ProcessorStateManager(id, name, metadata.subtopology(id.subtopology)!.definition.stores, metadata.topology, {
      applicationId: config.applicationId,
      config: config.values,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      cache,
      taskDir: options.stateDirectory.taskDir(name),
      changelogTopic: (s) => metadata.changelogTopic(s),
      ...(options.configureStore ? { configureStore: options.configureStore } : {}),
    });
  };
}
