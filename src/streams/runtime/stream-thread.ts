import { EventEmitter } from 'node:events';
import { StreamsException } from '../../errors';
import { ChangelogReader, isTransientKafkaError, type StableOffsetReader, type TopicPartition } from '../kafka';
import { createThreadMemoryMetrics, createThreadMetrics, type MetricsScope, type ThreadMetrics } from '../metrics/streams-metrics';
import { ChangelogRestorer } from './changelog-restorer';
import { Committer } from './committer';
import type { ThreadState } from './instance-view';
import { encodeSubscription, type SubscriptionInfo } from './assignment/subscription-info';
import { PartitionPositions } from './partition-positions';
import type { MemoryInUse, MemoryLimits } from './memory-budget';
import { ProduceBuffer } from './produce-buffer';
import { LookupOutages } from './serde-lookups';
import { TaskCheckpoints } from './task-checkpoints';
import { streamTaskFactory } from './task-factory';
import { taskIdToString } from './task-id';
import { TaskExecutor } from './task-executor';
import { type ActiveTask, TaskManager } from './task-manager';
import type { ThreadBatch, ThreadClients } from './thread-clients';
import type { StreamThreadContext, StreamThreadEvents } from './stream-thread-context';
import { isLive, type StreamThreadHandle, type ThreadPartitionPosition, type ThreadStorePosition, type ThreadTask } from './stream-thread-handle';
import type { StateStore } from '../state/store';
import { ThreadCache } from '../state/thread-cache';

/** Offsets a restoring changelog must move before a commit checkpoints it again (Kafka Streams' threshold). */
const RESTORE_CHECKPOINT_PROGRESS = 10_000;

/**
 * A stream thread: a loop over one consumer in the application's group. Batches go to the tasks the task manager
 * runs; every commit interval the committer commits them. Processing, punctuation, assignments and commits run one
 * at a time (a promise chain), so a commit never sees half-processed input.
 */
export class StreamThread extends EventEmitter<StreamThreadEvents> implements StreamThreadHandle {
  readonly name: string;
  private threadState: ThreadState = 'CREATED';
  private readonly clients: ThreadClients;
  private readonly metrics: ThreadMetrics;
  /** Restores the tasks' changelogs; `position` tells how far a changelog partition being restored has been read. */
  readonly restorer: ChangelogRestorer;
  /** Consumed and committed offsets per input partition (the offsets resource adds the log's). */
  private readonly inputPositions = new PartitionPositions();
  private readonly executor: TaskExecutor;
  private readonly committer: Committer;
  private readonly memoryMetrics: MetricsScope;
  private readonly produceBuffer: ProduceBuffer;
  /** The changelog reader of its restores, whose fetches the memory budget resizes. */
  private readonly restoreReader: ChangelogReader;
  /** What its group consumer may bring in one fetch, fixed when made. */
  private readonly groupFetchBytes: number;
  readonly caches = true;
  readonly produces = true;
  /** Its group consumer and its restore consumer. */
  readonly consumers = 2;
  /** The record cache its tasks' caching stores share. */
  private readonly cache: ThreadCache;
  readonly tasks: TaskManager;
  private exclusive: Promise<void> = Promise.resolve();
  private lastCommitMs = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  private stopping = false;
  /** A transient consumer restart was told since the last assignment. */
  private toldTransientRestart = false;
  /** Set while the consumer is stopped to take new topics. */
  private resubscribing = false;
  private preparing: Promise<void> | undefined;
  private assignmentVersion = 0;

  constructor(private readonly ctx: StreamThreadContext) {
    super();
    this.name = `${ctx.clientId}-StreamThread-${ctx.number}`;
    const logger = ctx.logger.child({ thread: this.name });
    const exactlyOnce = ctx.config.processingGuarantee === 'exactly_once_v2';
    this.metrics = createThreadMetrics(ctx.metrics, this.name, Date.now());
    const outages = new LookupOutages(logger);
    const buffer = new ProduceBuffer(ctx.config.producerBufferBytes);
    this.produceBuffer = buffer;
    this.executor = new TaskExecutor(this.inputPositions, this.metrics, ctx.metrics, this.name, outages, buffer);
    this.groupFetchBytes = Math.min(ctx.config.fetchMaxBytes, ctx.fetchBytes ?? Number.POSITIVE_INFINITY);
    this.clients = ctx.clients({
      userData: () => encodeSubscription(this.subscription()),
      beforeJoin: () => this.commitBeforeJoin(),
      active: () => !this.stopping && !this.failed,
      onGroupWait: (reason) => this.emit('groupWait', reason),
      logger,
    }, ctx.index + 1, this.groupFetchBytes);
    this.restoreReader = new ChangelogReader(ctx.kafka.restoreConsumer, { readCommitted: exactlyOnce, ...ctx.config.restoreConsumer });
    this.restorer = new ChangelogRestorer(
      this.restoreReader,
      {
        onProgress: (changelog, progress, span) => {
          this.tasks.restoreProgress(changelog, progress, span);
          this.emit('restore', changelog.store, progress);
        },
        onTaskRestored: (taskId) => void this.runExclusive(() => this.finishRestoring(taskId)).catch((error) => this.fail(error)),
        onTaskCorrupted: (taskId, error) => void this.runExclusive(() => this.tasks.reviveCorrupted(taskId, error)).catch((e) => this.fail(e)),
        onError: (error) => this.fail(new StreamsException(`restoring changelogs failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
      },
      { retryForMs: ctx.config.taskTimeoutMs, logger },
    );
    this.cache = new ThreadCache(ctx.cacheBytes);
    this.memoryMetrics = createThreadMemoryMetrics(ctx.metrics, this.name, buffer, this.cache);
    const checkpoints = new TaskCheckpoints(ctx.stateDirectory, exactlyOnce, logger);
    const consumer = this.clients.consumer;
    this.committer = new Committer((offsets) => consumer.commitOffsets(offsets), this.inputPositions, checkpoints, { exactlyOnce, taskTimeoutMs: ctx.config.taskTimeoutMs, logger });
    this.tasks = new TaskManager({
      metadata: ctx.metadata,
      stateDirectory: ctx.stateDirectory,
      checkpoints,
      committer: this.committer,
      restorer: this.restorer,
      logger,
      ...(ctx.standbys ? { standbys: ctx.standbys } : {}),
      owner: this.name,
      lockWaitMs: ctx.config.taskTimeoutMs,
      outages,
      onTaskPrepared: (taskId, error) =>
        error === undefined ? void this.runExclusive(() => this.finishPreparing(taskId)).catch((e) => this.fail(e)) : this.fail(error),
      createTask: streamTaskFactory({
        ...ctx,
        threadName: this.name,
        producerClient: ctx.kafka.producer,
        producer: this.clients.producer,
        produceBuffer: buffer,
        cache: this.cache,
        threadMetrics: this.metrics,
      }),
    });
  }

  get state(): ThreadState {
    return this.threadState;
  }

  /** Neither closing nor closed: a thread that can still be removed or carry a request to the group. */
  get live(): boolean {
    return isLive(this.threadState);
  }

  /** The thread's slot (from 0), which a replacement takes over. */
  get slot(): number {
    return this.ctx.index;
  }

  activeTasks(): ThreadTask[] {
    return [...this.tasks.all()].map((t) => ({ taskId: t.name, partitions: t.partitions, running: t.state === 'running' }));
  }

  holds(taskId: string): boolean {
    return this.tasks.holds(taskId);
  }

  /** This thread's partitions of a store that can be queried now (their tasks restored, the store open), as found. */
  *queryablePartitions(store: string): Generator<[number, StateStore], void, undefined> {
    for (const active of this.tasks.all()) {
      const s = active.state === 'running' ? active.task.stores.get(store) : undefined;
      if (s?.isOpen()) yield [active.partition, s];
    }
  }

  /** Those partitions, by partition. */
  queryableStores(store: string): Map<number, StateStore> {
    return new Map(this.queryablePartitions(store));
  }

  /** The tasks this thread holds, open or still closing (a worker reports them to the instance). */
  heldTasks(): string[] {
    return this.tasks.heldTaskIds();
  }

  positions(): Promise<ThreadPartitionPosition[]> {
    return Promise.resolve(this.inputPositions.snapshot());
  }

  storePositions(): Promise<ThreadStorePosition[]> {
    return Promise.resolve(this.tasks.storePositions(this.restorer));
  }

  prepare(): Promise<void> {
    this.preparing ??= (async () => {
      this.setState('STARTING');
      await this.clients.producer?.connect();
      const { topics, patterns } = this.ctx.metadata.subscription();
      await this.clients.consumer.connect([...topics, ...patterns]);
    })();
    return this.preparing;
  }

  async start(): Promise<void> {
    await this.prepare();
    await this.clients.consumer.start({
      onBatch: (payload) => this.runExclusive(() => this.onBatch(payload)),
      onRebalancing: () => this.setState('PARTITIONS_REVOKED'),
      onAssignment: (assigned, lost, generation) => {
        // A join that completes while the thread closes brings no tasks: they would outlive the thread. A failed
        // thread's join carried a shutdown request: its tasks stay as they are until it closes.
        if (this.stopping || this.failed) return Promise.resolve();
        return this.runExclusive(() => this.onAssignment(assigned, lost, generation)).catch((error) => this.fail(error));
      },
      onFatal: (error) => this.fail(error),
      onRestart: (error) => this.onConsumerRestart(error),
    });
    const tick = (): Promise<void> => (this.failed || this.stopping || this.resubscribing ? Promise.resolve() : this.maybePunctuateAndCommit(false));
    this.timer = setInterval(() => void this.runExclusive(tick).catch((error) => this.fail(error)), Math.min(1000, Math.max(10, this.ctx.config.commitIntervalMs)));
    this.timer.unref();
  }

  /**
   * kafkajs restarts a consumer that crashed on a retriable error. A transient one (a broker or coordinator not ready,
   * routine at start-up) is one short line until the thread is assigned again, its repeats at debug; any other is a warning.
   */
  private onConsumerRestart(error: Error): void {
    if (!isTransientKafkaError(error)) {
      this.ctx.logger.warn({ err: error, thread: this.name }, 'consumer crashed; kafkajs restarts it');
      return;
    }
    const level = this.toldTransientRestart ? 'debug' : 'info';
    this.toldTransientRestart = true;
    this.ctx.logger[level]({ thread: this.name, reason: error.message }, 'the group is not ready yet; the consumer joins again');
  }

  /** Adds topics (new matches of a source pattern) to the subscription, after committing: the group rebalances. */
  async subscribeTo(topics: string[]): Promise<void> {
    if (this.stopping || this.failed) return;
    await this.runExclusive(async () => {
      await this.commit();
      this.resubscribing = true;
    });
    try {
      await this.clients.consumer.addTopics(topics, () => !this.stopping);
    } finally {
      this.resubscribing = false;
    }
  }

  /** Joins the group again (a probing rebalance when this thread's consumer leads the group). */
  requestRejoin(): void {
    if (!this.stopping && !this.failed) this.clients.consumer.requestRejoin();
  }

  /**
   * Resizes the record cache between batches, as Kafka Streams' thread does in its loop: what a smaller share
   * evicts goes downstream as a commit's flush would.
   */
  resizeCache(maxBytes: number): void {
    void this.runExclusive(async () => this.cache.resize(maxBytes)).catch((error) => this.fail(error));
  }

  limitMemory(limits: MemoryLimits): void {
    if (limits.produceBufferBytes !== undefined) this.produceBuffer.limitTo(limits.produceBufferBytes);
    this.restoreReader.limitFetch(limits.fetchBytes);
    const cacheBytes = limits.cacheBytes;
    // Evicting forwards records downstream: it is processing, which runs one thing at a time.
    if (cacheBytes !== undefined) void this.runExclusive(async () => this.cache.limit(cacheBytes)).catch((error) => this.fail(error));
  }

  memoryInUse(): MemoryInUse {
    return { cacheBytes: this.cache.sizeBytes, produceBufferBytes: this.produceBuffer.usedBytes, fetchBytes: this.groupFetchBytes + this.restoreReader.fetchBytes };
  }

  /**
   * Joins the group again to carry the instance's shutdown request (SHUTDOWN_APPLICATION), even when this
   * thread failed: its consumer is still a member until the thread closes.
   */
  sendShutdownRequest(): void {
    if (!this.stopping) this.clients.consumer.requestShutdown();
  }

  /** Subscription userData for the next join. */
  subscription(): SubscriptionInfo {
    return this.ctx.subscription([...this.tasks.all()].map((t) => t.name));
  }

  private runExclusive(fn: () => Promise<void>): Promise<void> {
    const next = this.exclusive.then(fn);
    this.exclusive = next.catch(() => undefined);
    return next;
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isStale, pause }: ThreadBatch): Promise<void> {
    if (this.failed || this.stopping || isStale()) return;
    const taskId = this.ctx.metadata.taskOf(batch);
    const active = taskId && this.tasks.running(taskIdToString(taskId));
    if (batch.isEmpty()) {
      // Only transaction markers or aborted records: nothing to process, but the position moves past them.
      if (active) this.executor.skipHidden(active, batch);
      return;
    }
    if (!active) {
      // Not ours yet (restoring, or the assignment is still being applied): re-read after resume.
      pause();
      return;
    }
    try {
      if (!(await this.executor.execute(active, batch, () => this.failed))) return;
    } catch (error) {
      this.fail(error);
      return;
    }
    resolveOffset(batch.lastOffset());
    // As the timer's: a commit that fails here fails the thread. Thrown to kafkajs, it would be a batch error that
    // kafkajs retries, and a later commit could pass what the failed one did not write.
    await this.maybePunctuateAndCommit(active.task.takeCommitRequest()).catch((error: unknown) => this.fail(error));
    // A rebalance reported here makes kafkajs re-join, which commits first (commitBeforeJoin).
    await heartbeat();
  }

  /**
   * Kafka Streams' onPartitionsRevoked: everything processed is committed before this member re-joins, while
   * the group still accepts this generation's commits, so neither a kept nor a moved task is re-read.
   */
  private async commitBeforeJoin(): Promise<void> {
    await this.runExclusive(async () => {
      if (!this.failed && !this.resubscribing) await this.commit();
    }).catch((error: unknown) => this.ctx.logger.warn({ err: error, thread: this.name }, 'commit before re-joining failed'));
  }

  private async maybePunctuateAndCommit(requested: boolean): Promise<void> {
    const now = Date.now();
    let commitRequested: boolean;
    try {
      commitRequested = this.executor.punctuate(this.tasks.runningTasks(), now) || requested;
    } catch (error) {
      this.fail(error);
      return;
    }
    if (commitRequested || now - this.lastCommitMs >= this.ctx.config.commitIntervalMs) {
      await this.commit();
      await this.tasks.checkpointRestoring(RESTORE_CHECKPOINT_PROGRESS);
    }
  }

  private async commit(): Promise<void> {
    const start = performance.now();
    await this.committer.commit(this.tasks.runningTasks());
    this.lastCommitMs = Date.now();
    this.metrics.commit.record(performance.now() - start);
  }

  /** Applies a new assignment; after the group dropped this member every task is closed dirty first (handleLostAll). */
  private async onAssignment(assigned: TopicPartition[], lost: boolean, generation: number): Promise<void> {
    const version = ++this.assignmentVersion;
    this.toldTransientRestart = false;
    this.setState('PARTITIONS_ASSIGNED');
    if (lost) this.executor.forget(await this.tasks.closeAll(false));
    const stableOffsets = this.clients.stableOffsets;
    if (!stableOffsets) {
      await this.inputPositions
        .seed(assigned, this.ctx.committedOffsets)
        .catch((error: unknown) =>
          this.ctx.logger.warn({ ...(isTransientKafkaError(error) ? { reason: (error as Error).message } : { err: error }), thread: this.name }, 'reading committed offsets failed'),
        );
    }
    const { created, closedPartitions } = await this.tasks.handleAssignment(assigned);
    this.executor.forget(closedPartitions);
    if (stableOffsets) await this.startFromStableOffsets(created, stableOffsets);
    this.emit('assignment', { generation, lost });
    if (!this.tasks.restoring && version === this.assignmentVersion) this.setState('RUNNING');
  }

  /**
   * Under exactly-once, where new tasks start: the group's committed offsets, read once the tasks' producers have
   * fenced their previous owners' (no transaction of theirs can commit offsets any more) and once no transaction
   * holds offsets of these partitions pending. kafkajs read them at its first fetch after the join, without waiting for
   * a previous owner's last commit to complete: the consumer is moved to these, and the consumed positions with them.
   * The tasks process nothing before: they run after this, in the thread's order.
   */
  private async startFromStableOffsets(created: readonly ActiveTask[], reader: StableOffsetReader): Promise<void> {
    const committed = (await reader.committed(created.flatMap((t) => t.partitions))).filter((c) => c.offset >= 0);
    for (const { topic, partition, offset } of committed) this.inputPositions.startAt(topic, partition, offset);
    this.clients.consumer.seek(committed);
  }

  /** A task restored: it processes from here (once its serdes are prepared), and its partitions are read again. */
  private async finishRestoring(taskId: string): Promise<void> {
    this.resume(await this.tasks.finishRestoring(taskId));
  }

  /** A task whose serdes waited out an outage is prepared: as finishRestoring. */
  private async finishPreparing(taskId: string): Promise<void> {
    this.resume(await this.tasks.finishPreparing(taskId));
  }

  private resume(partitions: readonly TopicPartition[] | undefined): void {
    if (!partitions) return;
    this.clients.consumer.resume(partitions);
    if (!this.tasks.restoring && this.threadState === 'PARTITIONS_ASSIGNED') this.setState('RUNNING');
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    const err = error instanceof Error ? error : new StreamsException(String(error));
    this.ctx.logger.error({ err, thread: this.name }, 'stream thread failed');
    this.emit('fatal', err);
  }

  /** Stops consuming, commits (unless the thread failed), closes tasks and leaves the group (a static member: if `leaveGroup`). */
  async close(leaveGroup = false): Promise<void> {
    if (this.threadState === 'DEAD') return;
    this.stopping = true;
    this.setState('PENDING_SHUTDOWN');
    if (this.timer) clearInterval(this.timer);
    let clean = !this.failed;
    // A failed thread leaves the group first: kafkajs would restart its crashed consumer, a member holding partitions nobody processes.
    if (!clean) await this.clients.consumer.disconnect().catch(() => undefined);
    await this.runExclusive(async () => {
      if (!clean) return;
      try {
        await this.commit();
      } catch (error) {
        clean = false;
        this.ctx.logger.warn({ err: error, thread: this.name }, 'final commit failed');
      }
    });
    await this.clients.consumer.disconnect(leaveGroup).catch(() => undefined);
    // Tasks first: a restoring task checkpoints how far it got, which the restorer knows until it closes.
    this.executor.forget(await this.tasks.closeAll(clean));
    await this.restorer.close();
    await this.clients.producer?.disconnect().catch(() => undefined);
    await this.clients.stableOffsets?.close().catch(() => undefined);
    this.metrics.unregister();
    this.memoryMetrics.unregister();
    this.setState('DEAD');
  }

  private setState(state: ThreadState): void {
    if (this.threadState === state || this.threadState === 'DEAD') return;
    if (this.stopping && state !== 'PENDING_SHUTDOWN' && state !== 'DEAD') return;
    this.threadState = state;
    this.emit('state', state);
  }
}

