import type { Logger } from 'pino';
import { SerdeNotReady } from '../../errors';
import { type FetchedRecordList, type TopicPartition, TopicPartitionMap } from '../kafka';
import { lmdbStoreBytes } from '../state/lmdb-storage';
import type { ChangelogRestorer, ChangelogToRestore, RestoredPosition, RestoreProgress, RestoreSpan } from './changelog-restorer';
import type { CommittableTask, Committer } from './committer';
import type { LastRestoration } from './instance-view';
import type { KafkaRecordCollector } from './kafka-record-collector';
import { type LookupOutages, prepareSerdes } from './serde-lookups';
import type { StateDirectory } from './state-directory';
import type { StreamTask } from './task';
import type { ChangelogOffset, TaskCheckpoints } from './task-checkpoints';
import { taskIdToString, type TaskId } from './task-id';
import type { ThreadStorePosition } from './stream-thread-handle';
import { changelogsOf, checkpointRestore, openTaskStores } from './task-stores';
import type { OffsetToCommit, TaskTransaction } from './task-transaction';
import type { StoreMetadata, TopologyMetadata } from './topology-metadata';

/** Where a task's output goes: its collector, over the thread's producer or over the task's own transaction. */
export interface TaskOutput {
  readonly collector: KafkaRecordCollector;
  readonly transaction?: TaskTransaction;
}

/** What the runtime records of a task, into its metrics. */
export interface TaskRecorder {
  /** How many records a store still has to restore. */
  restoreRemaining(store: string, remaining: number): void;
  /** A processed batch: the task's mean time per record, and what its source node read (end-to-end latency from the records' timestamps). */
  processed(sourceNode: string | undefined, records: FetchedRecordList, count: number, elapsedMs: number, now: number): void;
}

/** A task as its thread's factory makes it: the task, its output, and what it registered (metrics). */
export interface CreatedTask {
  readonly task: StreamTask;
  readonly output: TaskOutput;
  readonly metrics: TaskRecorder;
  /** Undoes what creating the task registered; called once the task is closed. */
  release(): void;
}

export type TaskFactory = (id: TaskId) => Promise<CreatedTask>;

/** The part of the ChangelogRestorer the task manager drives. */
export interface TaskRestorer {
  register(taskId: string, changelogs: readonly ChangelogToRestore[]): void;
  unregister(taskId: string): void;
  takeCheckpoint(taskId: string, minProgress: number): RestoredPosition[];
}

/** How often a new task looks whether the thread that had it has closed it. */
const LOCK_RETRY_MS = 20;

export interface TaskManagerOptions {
  readonly metadata: TopologyMetadata;
  readonly stateDirectory: StateDirectory;
  readonly checkpoints: TaskCheckpoints;
  readonly committer: Committer;
  readonly restorer: TaskRestorer;
  readonly createTask: TaskFactory;
  readonly logger: Logger;
  /** The node's standby tasks, which give a task up before it becomes active here. */
  readonly standbys?: { release(taskId: string): Promise<void> };
  /** The thread the tasks are for: it holds their directories' locks. */
  readonly owner: string;
  /** How long a new task waits for another thread of this instance to close it (a task moving between threads). */
  readonly lockWaitMs: number;
  /** The thread's account of look-up outages, which a new task's serdes may meet as they prepare. */
  readonly outages?: LookupOutages;
  /** A task whose serdes waited out an outage as they prepared is ready (`finishPreparing`), or failed for good. */
  readonly onTaskPrepared?: (taskId: string, error?: unknown) => void;
}

/** An active task owned by this thread: restoring its stores, then running. */
export class ActiveTask implements CommittableTask {
  state: 'restoring' | 'running' = 'restoring';
  /** Its changelogs are restored; it runs once its serdes are prepared too. */
  restored = false;
  serdesPrepared = true;
  /** Changelog ends reached by this task's restore, for its checkpoint. */
  readonly restoredEnds: ChangelogOffset[] = [];

  constructor(
    readonly id: TaskId,
    readonly name: string,
    readonly created: CreatedTask,
    readonly stores: readonly StoreMetadata[],
    /** The input partitions assigned to the task. */
    public partitions: readonly TopicPartition[],
  ) {}

  get task(): StreamTask {
    return this.created.task;
  }

  get partition(): number {
    return this.id.partition;
  }

  writtenOffset(topic: string, partition: number): number | undefined {
    return this.created.output.collector.writtenOffset(topic, partition);
  }

  prepareCommit(): void {
    this.task.prepareCommit();
  }

  flushStores(): Promise<void> {
    return this.task.flushStores();
  }

  consumedPositions(): { topic: string; partition: number; offset: number }[] {
    return this.task.consumedPositions();
  }

  flushOutput(): Promise<void> {
    return this.created.output.collector.flush();
  }

  get commitTransaction(): ((offsets: readonly OffsetToCommit[]) => Promise<void>) | undefined {
    const transaction = this.created.output.transaction;
    return transaction && ((offsets) => transaction.commit(offsets));
  }
}

/**
 * Kafka Streams' TaskManager for one thread: creates the tasks of a new assignment (their state directory locked,
 * stores opened, restores registered), hands a task over to processing once restored, and commits and closes the
 * tasks the thread loses. Checkpoints go through TaskCheckpoints, commits through the Committer.
 */
export class TaskManager {
  private readonly tasks = new Map<string, ActiveTask>();
  /** The last completed restore of each changelog partition, as the store status shows it. */
  readonly restorations = new TopicPartitionMap<LastRestoration>();
  /** Tasks whose stores are still closing. */
  private readonly closing = new Set<string>();

  constructor(private readonly options: TaskManagerOptions) {}

  get(taskId: string): ActiveTask | undefined {
    return this.tasks.get(taskId);
  }

  /** A task that processes (restored); undefined while it restores. */
  running(taskId: string): ActiveTask | undefined {
    const task = this.tasks.get(taskId);
    return task?.state === 'running' ? task : undefined;
  }

  /** Whether the task is this thread's, its stores open or still closing (no standby may open them meanwhile). */
  holds(taskId: string): boolean {
    return this.tasks.has(taskId) || this.closing.has(taskId);
  }

  /** The tasks this thread holds: open, or still closing. */
  heldTaskIds(): string[] {
    return [...new Set([...this.tasks.keys(), ...this.closing])];
  }

  all(): IterableIterator<ActiveTask> {
    return this.tasks.values();
  }

  runningTasks(): ActiveTask[] {
    return [...this.tasks.values()].filter((t) => t.state === 'running');
  }

  get restoring(): boolean {
    for (const task of this.tasks.values()) if (task.state === 'restoring') return true;
    return false;
  }

  /**
   * Applies an assignment: commits and closes the tasks no longer assigned, creates the new ones and starts their
   * restores. Answers the created tasks and the input partitions of the closed ones.
   */
  async handleAssignment(assigned: readonly TopicPartition[]): Promise<{ created: ActiveTask[]; closedPartitions: TopicPartition[] }> {
    const wanted = new Map<string, { id: TaskId; partitions: TopicPartition[] }>();
    for (const tp of assigned) {
      const id = this.options.metadata.taskOf(tp);
      if (id === undefined) continue;
      const name = taskIdToString(id);
      const entry = wanted.get(name) ?? { id, partitions: [] };
      entry.partitions.push(tp);
      wanted.set(name, entry);
    }
    const lost = [...this.tasks.values()].filter((t) => !wanted.has(t.name));
    const closedPartitions = lost.flatMap((t) => t.partitions);
    await this.commitAndClose(lost);
    const created: ActiveTask[] = [];
    for (const [name, { id, partitions }] of wanted) {
      const kept = this.tasks.get(name);
      if (kept) kept.partitions = partitions;
      else created.push(await this.create(id, name, partitions));
    }
    for (const task of created) this.options.restorer.register(task.name, changelogsOf(task.task, task.stores, this.options.checkpoints));
    return { created, closedPartitions };
  }

  /** Commits the running tasks among `tasks`, then closes them all (cleanly when the commit succeeded). */
  private async commitAndClose(tasks: readonly ActiveTask[]): Promise<void> {
    if (tasks.length === 0) return;
    let clean = true;
    try {
      await this.options.committer.commit(tasks.filter((t) => t.state === 'running'));
    } catch (error) {
      clean = false;
      this.options.logger.warn({ err: error }, 'commit of revoked tasks failed; their input is re-read by the new owner');
    }
    for (const task of tasks) await this.close(task.name, clean);
  }

  private async create(id: TaskId, name: string, partitions: TopicPartition[]): Promise<ActiveTask> {
    const { stateDirectory, checkpoints, metadata, logger } = this.options;
    // A standby of the task on this node hands its stores over: the active restores only what it had not read.
    await this.options.standbys?.release(name);
    await this.untilNoOtherThreadHolds(name);
    const created = await this.options.createTask(id);
    let notReady: SerdeNotReady | undefined;
    try {
      await created.task.prepareSerdes().catch((error: unknown) => {
        if (!(error instanceof SerdeNotReady)) throw error;
        notReady = error;
      });
      stateDirectory.lock(name, this.options.owner);
    } catch (error) {
      await this.discardOutput(name, created);
      created.release();
      throw error;
    }
    const task = new ActiveTask(id, name, created, metadata.subtopology(id.subtopology)!.stores, partitions);
    this.tasks.set(name, task);
    await openTaskStores(created.task, stateDirectory, checkpoints, logger);
    if (notReady !== undefined) this.prepareLater(task, notReady);
    return task;
  }

  /**
   * A task whose serdes are not ready (a registry out of reach) waits, restoring meanwhile, its partitions paused,
   * while the thread processes its other tasks: its serdes are asked again as a record's look-up is, and the thread
   * told when they are ready (or failed for good).
   */
  private prepareLater(task: ActiveTask, notReady: SerdeNotReady): void {
    task.serdesPrepared = false;
    const current = () => this.tasks.get(task.name) === task;
    prepareSerdes(task.task, this.options.outages, current, notReady).then(
      (prepared) => {
        if (!prepared || !current()) return;
        task.serdesPrepared = true;
        this.options.onTaskPrepared?.(task.name);
      },
      (error: unknown) => {
        if (current()) this.options.onTaskPrepared?.(task.name, error);
      },
    );
  }

  /**
   * A task that moves between two threads of this instance is still the old thread's until it has closed it (its
   * stores flushed and closed): the new owner waits, as Kafka Streams' retries a task whose directory lock it cannot
   * take yet, rather than open the stores beside it.
   */
  private async untilNoOtherThreadHolds(taskId: string): Promise<void> {
    const { stateDirectory, owner, lockWaitMs, logger } = this.options;
    const deadline = Date.now() + lockWaitMs;
    let waited = false;
    for (let holder = stateDirectory.lockOwner(taskId); holder !== undefined && holder !== owner; holder = stateDirectory.lockOwner(taskId)) {
      if (Date.now() >= deadline) return;
      if (!waited) logger.debug({ taskId, holder }, 'waiting for the thread that had the task to close it');
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }

  /**
   * Kafka Streams' handling of a TaskCorruptedException: a restoring task whose changelog no longer holds its
   * checkpointed offset is closed dirty, its stores wiped, and created again to restore from the log start. Its
   * input partitions stay paused until that restore is done.
   */
  async reviveCorrupted(taskId: string, cause: Error): Promise<void> {
    const task = this.tasks.get(taskId);
    if (!task || task.state !== 'restoring') return;
    const { logger, stateDirectory, checkpoints, restorer } = this.options;
    logger.warn({ taskId, err: cause }, `${cause.message}; task ${taskId}'s stores are wiped and restored from the changelogs' log start`);
    const { id, partitions } = task;
    await this.close(taskId, false);
    stateDirectory.wipeTaskState(taskId);
    const revived = await this.create(id, taskId, [...partitions]);
    restorer.register(taskId, changelogsOf(revived.task, revived.stores, checkpoints));
  }

  /** A restore's progress: the store's metric, and once a changelog is done, where it ended. */
  restoreProgress(changelog: ChangelogToRestore, progress: RestoreProgress, span: RestoreSpan): void {
    const task = this.tasks.get(changelog.taskId);
    task?.created.metrics.restoreRemaining(changelog.store, progress.remaining);
    if (!progress.done) return;
    task?.restoredEnds.push({ topic: changelog.topic, partition: changelog.partition, offset: span.endingOffset });
    this.restorations.set(changelog.topic, changelog.partition, { topic: changelog.topic, partition: changelog.partition, totalRestored: progress.restored, ...span });
  }

  /**
   * A task whose changelogs are all restored: once its serdes are prepared too, its stores' writes persisted (reads
   * see them from here), its checkpoint written, its processors initialised. Answers its input partitions, to resume;
   * undefined when the task is gone, already running, or still waits for its serdes.
   */
  async finishRestoring(taskId: string): Promise<readonly TopicPartition[] | undefined> {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    task.restored = true;
    return this.start(task);
  }

  /** A task whose serdes waited out an outage is prepared: as `finishRestoring`, once it is restored too. */
  async finishPreparing(taskId: string): Promise<readonly TopicPartition[] | undefined> {
    const task = this.tasks.get(taskId);
    return task && this.start(task);
  }

  private async start(task: ActiveTask): Promise<readonly TopicPartition[] | undefined> {
    if (task.state !== 'restoring' || !task.restored || !task.serdesPrepared) return undefined;
    await task.flushStores();
    this.options.checkpoints.restored(task, task.restoredEnds);
    task.task.initializeProcessors();
    task.state = 'running';
    return task.partitions;
  }

  /** Every store partition of the tasks: how far it holds its changelog (restoring: how far `restorer` read), its size on disk. */
  storePositions(restorer: Pick<ChangelogRestorer, 'position' | 'span'>): ThreadStorePosition[] {
    const { stateDirectory } = this.options;
    const result: ThreadStorePosition[] = [];
    for (const task of this.tasks.values()) {
      const checkpoint = stateDirectory.readableCheckpoint(task.name);
      const partition = task.partition;
      for (const { name: store, changelog } of task.stores) {
        const current = changelog ? (restorer.position(changelog, partition) ?? checkpoint?.get(changelog, partition) ?? -1) : -1;
        const restoration = changelog ? this.restorations.get(changelog, partition) : undefined;
        const restoring = changelog && task.state === 'restoring' ? restorer.span(changelog, partition) : undefined;
        const sizeBytes = lmdbStoreBytes(stateDirectory.taskDir(task.name), store);
        result.push({
          store,
          partition,
          changelog,
          currentOffset: current,
          ...(restoration ? { lastRestoration: restoration } : {}),
          ...(restoring ? { restoring } : {}),
          ...(sizeBytes !== undefined ? { sizeBytes } : {}),
        });
      }
    }
    return result;
  }

  /**
   * Checkpoints how far restoring tasks got, for those whose changelogs moved `minProgress` offsets since, once
   * their stores hold it durably: a restart resumes there (Kafka Streams checkpoints restoring tasks on commit too).
   */
  async checkpointRestoring(minProgress: number): Promise<void> {
    for (const task of this.tasks.values()) if (task.state === 'restoring') await this.checkpointRestore(task, minProgress);
  }

  private async checkpointRestore(task: ActiveTask, minProgress: number): Promise<void> {
    await checkpointRestore(task, this.options.restorer.takeCheckpoint(task.name, minProgress), this.options.checkpoints);
  }

  /**
   * Closes a task. `clean`: its progress was just committed. A restoring task checkpoints how far it got; under
   * exactly-once an open transaction is aborted.
   */
  async close(taskId: string, clean: boolean): Promise<void> {
    const task = this.tasks.get(taskId);
    if (!task) return;
    const { logger, checkpoints, restorer, stateDirectory } = this.options;
    if (task.state === 'restoring') {
      await this.checkpointRestore(task, 0).catch((error: unknown) => logger.warn({ err: error, task: taskId }, 'checkpointing a restore failed'));
    }
    checkpoints.closed(task, clean && task.state === 'running');
    await this.discardOutput(taskId, task.created);
    restorer.unregister(taskId);
    this.tasks.delete(taskId);
    this.closing.add(taskId);
    try {
      await task.task.close();
    } finally {
      stateDirectory.unlock(taskId, this.options.owner);
      task.created.release();
      this.closing.delete(taskId);
    }
  }

  /** Closes every task; answers their input partitions. */
  async closeAll(clean: boolean): Promise<TopicPartition[]> {
    const partitions: TopicPartition[] = [];
    for (const task of [...this.tasks.values()]) {
      partitions.push(...task.partitions);
      await this.close(task.name, clean).catch((error: unknown) => this.options.logger.warn({ err: error, task: task.name }, 'closing a task failed'));
    }
    return partitions;
  }

  private async discardOutput(taskId: string, created: CreatedTask): Promise<void> {
    created.output.collector.discard();
    await created.output.transaction?.close().catch((error: unknown) => this.options.logger.warn({ err: error, task: taskId }, 'closing the task producer failed'));
  }
}
