import type { Logger } from 'pino';
import { StreamsException } from '../../errors';
import { withJoinHooks } from '../kafka/join-hooks';
import { createConsumer, createProducer, type KafkaClients } from '../kafka/client';
import { isGroupMembershipError, isTransientKafkaError } from '../kafka/errors';
import { groupProtocolAssigner } from '../kafka/group-protocol';
import type { GroupProtocolOptions } from '../kafka/group-protocol';
import type { EachBatchPayload, KafkaConsumer, KafkaProducer } from '../kafka/types';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import type { PartitionLagMetrics, ProcessorNodeMetrics, TaskMetrics, ThreadMetrics } from '../metrics/streams-metrics';
import {
  createPartitionLagMetrics,
  createProcessorNodeMetrics,
  createStateStoreMetrics,
  createTaskMetrics,
  createThreadMetrics,
  storeMetricsScope,
} from '../metrics/streams-metrics';
import type { StateStoreMetrics } from '../metrics/streams-metrics';
import { meteredStore } from './metered-store';
import type { Headers } from '../processor/record';
import type { Serde } from '../serdes/serde';
import type { Topology } from '../topology/topology';
import { resolveTopicName, storeChangelogTopic } from '../topology/internal-topics';
import { ChangelogReader, EARLIEST } from '../kafka/changelog-reader';
import type { ChangelogToRestore, RestoreProgress, RestoreSpan } from './changelog-restorer';
import { ChangelogRestorer } from './changelog-restorer';
import type { ConsumedRecord } from './consumed-record';
import type { LastRestoration, TaskMetadata, ThreadMetadata, ThreadState } from './instance-view';
import { KafkaRecordCollector } from './kafka-record-collector';
import type { SubscriptionInfo, TopicPartition } from './partition-assignor';
import type { Checkpoint, StateDirectory } from './state-directory';
import type { StreamsConfig } from './streams-config';
import { StreamTask } from './task';
import type { OffsetToCommit } from './task-transaction';
import { TaskTransaction } from './task-transaction';

/** What a thread gets from its instance. */
export interface StreamThreadContext {
  readonly index: number;
  readonly clientId: string;
  readonly config: StreamsConfig;
  readonly topology: Topology;
  /** One Kafka object per client role (their security settings may differ). */
  readonly kafka: KafkaClients;
  readonly stateDirectory: StateDirectory;
  readonly defaultKeySerde: Serde<unknown>;
  readonly defaultValueSerde: Serde<unknown>;
  readonly partitionCounts: ReadonlyMap<string, number>;
  readonly metrics: MetricsRegistry;
  readonly logger: Logger;
  /** The leader's decision (the same for every thread of the instance). */
  readonly assign: GroupProtocolOptions['assign'];
  /** This process' subscription for a thread that ran the given tasks before. */
  readonly subscription: (previousTasks: string[]) => SubscriptionInfo;
  /** The group's committed offsets of these topics: `topic\u0000partition` → offset (-1: none). */
  readonly committedOffsets: (topics: string[]) => Promise<Map<string, number>>;
  /** Log end / start offsets of a topic-partition (cached by the instance). */
  readonly endOffsets: (topic: string) => Promise<Map<number, { low: number; high: number }>>;
  readonly configureStore?: (storeName: string, options: Record<string, unknown>) => void;
  onStateChange(thread: StreamThread): void;
  onAssignment(thread: StreamThread, generation: number): void;
  onRestore(store: string, progress: RestoreProgress): void;
  onFatal(thread: StreamThread, error: Error): void;
  /** The thread cannot join its group yet, and why (it keeps trying). */
  onGroupWait(thread: StreamThread, reason: string): void;
}

/** Records processed between two looks at the producer's backlog. */
const PROCESS_CHUNK = 500;
/**
 * Produced records a thread may hold unsent before it stops processing until half have gone (a few MB; the
 * Java producer blocks `send` past `buffer.memory` to the same end).
 */
const MAX_UNSENT_RECORDS = 20_000;

/**
 * Offsets a restoring changelog must move before a commit checkpoints it again (Kafka Streams' threshold): each
 * checkpoint costs a flush to disk and a file write, too much for every commit interval of a long restore.
 */
const RESTORE_CHECKPOINT_PROGRESS = 10_000;

/** How often a thread tries to join a group that still holds members of another protocol. */
const FOREIGN_MEMBERS_RETRY_MS = 2_000;

/** Name of the group protocol; every member of an application uses it. */
export const ASSIGNOR_NAME = 'sluice-stream';

interface PartitionPositionState {
  consumedOffset: number;
  consumedTimestamp: number;
  committedOffset: number;
  committedTimestamp: number;
}

/**
 * A stream thread: one consumer in the application's group, one producer, and the tasks of the partitions
 * the group gave it. Processing, punctuation and commits run one at a time (a promise chain), so a commit
 * never sees half-processed input. Commit order is Kafka Streams': flush the producer, flush the stores,
 * commit the offsets, write the checkpoints.
 */
export class StreamThread {
  readonly name: string;
  private threadState: ThreadState = 'CREATED';
  private readonly consumer: KafkaConsumer;
  private readonly exactlyOnce: boolean;
  /** At-least-once: the thread's producer, shared by its tasks. Exactly-once: none, each task has its transaction. */
  private readonly sharedProducer: KafkaProducer | undefined;
  /**
   * Each task's output: a collector of its own (one batch in flight per task keeps each task's order while the
   * tasks' batches travel side by side), over the shared producer or over the task's transaction.
   */
  private readonly taskOutputs = new Map<string, { collector: KafkaRecordCollector; transaction?: TaskTransaction }>();
  /** Exactly-once: each task's checkpoint as restored, kept in memory until a clean close writes it. */
  private readonly restoredCheckpoints = new Map<string, Checkpoint>();
  private readonly tasks = new Map<string, StreamTask>();
  private readonly taskMetrics = new Map<string, TaskMetrics>();
  /** `taskId\u0000store` → the store's metrics (removed with the task's). */
  private readonly storeMetrics = new Map<string, StateStoreMetrics>();
  /** Per consumed partition (`topic\u0000partition`): consumer lag, and the metrics of the source node reading it. */
  private readonly partitionMetrics = new Map<string, { lag: PartitionLagMetrics; source: ProcessorNodeMetrics | undefined }>();
  /** Tasks created and not restored yet: they neither process nor answer queries. */
  private readonly restoring = new Set<string>();
  private readonly restorer: ChangelogRestorer;
  private readonly positions = new Map<string, PartitionPositionState>();
  readonly restorations = new Map<string, LastRestoration>();
  private readonly metrics: ThreadMetrics;
  private exclusive: Promise<void> = Promise.resolve();
  private lastCommitMs = Date.now();
  /** When commits began failing for a transient reason (undefined while they succeed). */
  private commitFailingSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private generation = 0;
  private failed = false;
  private stopping = false;
  private assignmentVersion = 0;
  /** Set while the group holds members of another protocol and this thread waits for them to go. */
  private waitingForForeignMembers = false;

  constructor(private readonly ctx: StreamThreadContext) {
    this.name = `${ctx.clientId}-StreamThread-${ctx.index + 1}`;
    this.metrics = createThreadMetrics(ctx.metrics, this.name, Date.now());
    this.exactlyOnce = ctx.config.processingGuarantee === 'exactly_once_v2';
    this.consumer = createConsumer(ctx.kafka.mainConsumer, {
      groupId: ctx.config.applicationId,
      partitionAssigners: [
        withJoinHooks(
          groupProtocolAssigner({
            name: ASSIGNOR_NAME,
            version: 1,
            userData: () => Buffer.from(JSON.stringify(this.subscription())),
            assign: ctx.assign,
          }),
          { beforeJoin: () => this.commitBeforeJoin(), onForeignProtocol: () => this.waitForForeignMembers() },
        ),
      ],
      sessionTimeoutMs: ctx.config.sessionTimeoutMs,
      heartbeatIntervalMs: ctx.config.heartbeatIntervalMs,
      maxWaitTimeMs: ctx.config.pollMaxWaitMs,
      maxBytesPerPartition: ctx.config.maxPartitionFetchBytes,
      maxBytes: ctx.config.fetchMaxBytes,
      isolationLevel: this.exactlyOnce ? 'read_committed' : 'read_uncommitted',
    });
    if (!this.exactlyOnce) this.sharedProducer = createProducer(ctx.kafka.producer, { idempotent: false });
    this.restorer = new ChangelogRestorer(
      new ChangelogReader(ctx.kafka.restoreConsumer, { readCommitted: this.exactlyOnce, ...ctx.config.restoreConsumer }),
      {
        onProgress: (changelog, progress, span) => this.onRestoreProgress(changelog, progress, span),
        onTaskRestored: (taskId) => void this.runExclusive(() => this.finishRestoring(taskId)).catch((error) => this.fail(error)),
        onError: (error) => this.fail(new StreamsException(`restoring changelogs failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
      },
      { retryForMs: ctx.config.taskTimeoutMs, logger: ctx.logger },
    );
  }

  /** Where a task's output goes. */
  private collectorOf(taskId: string): KafkaRecordCollector | undefined {
    return this.taskOutputs.get(taskId)?.collector;
  }

  private allCollectors(): KafkaRecordCollector[] {
    return [...this.taskOutputs.values()].map((output) => output.collector);
  }

  get state(): ThreadState {
    return this.threadState;
  }

  /** True when every assigned task has restored its stores and processes. */
  get isRunning(): boolean {
    return this.threadState === 'RUNNING';
  }

  activeTaskIds(): string[] {
    return [...this.tasks.keys()];
  }

  taskFor(taskId: string): StreamTask | undefined {
    return this.restoring.has(taskId) ? undefined : this.tasks.get(taskId);
  }

  allTasks(): ReadonlyMap<string, StreamTask> {
    return this.tasks;
  }

  async start(): Promise<void> {
    this.setState('STARTING');
    await this.sharedProducer?.connect();
    await this.consumer.connect();
    const topics = new Set<string>();
    const patterns: RegExp[] = [];
    for (const sub of this.ctx.topology.subtopologies()) {
      for (const t of sub.sourceTopics) topics.add(resolveTopicName(this.ctx.topology, this.ctx.config.applicationId, t));
      patterns.push(...sub.sourcePatterns);
    }
    // A partition with no committed offset starts at auto.offset.reset: earliest, Kafka Streams' default, or latest.
    await this.consumer.subscribe({ topics: [...topics, ...patterns], fromBeginning: this.ctx.config.autoOffsetReset !== 'latest' });
    this.consumer.on(this.consumer.events.REBALANCING, () => this.setState('PARTITIONS_REVOKED'));
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      // A join that completes while the thread closes brings no tasks: they would outlive the thread.
      if (this.stopping) return;
      this.generation++;
      if (this.waitingForForeignMembers) this.ctx.logger.info({ thread: this.name }, 'joined the group: the members of the other protocol are gone');
      this.waitingForForeignMembers = false;
      const assigned: TopicPartition[] = [];
      for (const [topic, partitions] of Object.entries(event.payload.memberAssignment)) {
        for (const partition of partitions) assigned.push({ topic, partition });
      }
      void this.runExclusive(() => this.onAssignment(assigned)).catch((error) => this.fail(error));
    });
    this.consumer.on(this.consumer.events.CRASH, (event) => {
      if (!event.payload.restart) this.fail(event.payload.error);
      else this.ctx.logger.warn({ err: event.payload.error, thread: this.name }, 'consumer crashed; kafkajs restarts it');
    });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.runExclusive(() => this.onBatch(payload)),
    });
    this.timer = setInterval(() => {
      void this.runExclusive(() => this.onTick()).catch((error) => this.fail(error));
    }, Math.min(1000, Math.max(10, this.ctx.config.commitIntervalMs)));
    this.timer.unref();
  }

  /** Subscription userData for the next join. */
  subscription(): SubscriptionInfo {
    return this.ctx.subscription([...this.tasks.keys()]);
  }

  private runExclusive(fn: () => Promise<void>): Promise<void> {
    const next = this.exclusive.then(fn);
    this.exclusive = next.catch(() => undefined);
    return next;
  }

  private taskIdOf(topic: string, partition: number): string | undefined {
    for (const sub of this.ctx.topology.subtopologies()) {
      for (const t of sub.sourceTopics) {
        if (resolveTopicName(this.ctx.topology, this.ctx.config.applicationId, t) === topic) return `${sub.id}_${partition}`;
      }
      if (sub.sourcePatterns.some((p) => p.test(topic))) return `${sub.id}_${partition}`;
    }
    return undefined;
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isStale, pause }: EachBatchPayload): Promise<void> {
    if (this.failed || this.stopping || isStale()) return;
    const taskId = this.taskIdOf(batch.topic, batch.partition);
    const task = taskId === undefined ? undefined : this.taskFor(taskId);
    if (batch.messages.length === 0) {
      // Only transaction markers or aborted records: nothing to process, but the position moves past them.
      if (task) this.skipHidden(task, batch.topic, batch.partition, Number(batch.lastOffset()));
      return;
    }
    if (!task) {
      // Not ours yet (restoring, or the assignment is still being applied): re-read after resume.
      pause();
      return;
    }
    const pollStart = performance.now();
    // After a re-join kafkajs fetches again from the committed offset: what this thread already processed is
    // skipped, so a task kept through a rebalance never counts a record twice.
    const alreadyConsumed = this.position(batch.topic, batch.partition).consumedOffset;
    const records: ConsumedRecord[] = [];
    for (let i = 0; i < batch.messages.length; i++) {
      const m = batch.messages[i]!;
      if (Number(m.offset) <= alreadyConsumed) continue;
      records.push({
        topic: batch.topic,
        partition: batch.partition,
        offset: Number(m.offset),
        timestamp: Number(m.timestamp),
        key: m.key,
        value: m.value,
        headers: (m.headers ?? {}) as Headers,
      });
    }
    if (records.length === 0) {
      resolveOffset(batch.lastOffset());
      return;
    }
    task.addRecords(records);
    this.metrics.poll.record(performance.now() - pollStart);
    this.metrics.pollRecords.record(records.length);
    let processed = 0;
    let elapsed = 0;
    try {
      for (;;) {
        const chunkStart = performance.now();
        const n = task.process(PROCESS_CHUNK);
        elapsed += performance.now() - chunkStart;
        processed += n;
        if (n < PROCESS_CHUNK) break;
        const collector = this.collectorOf(task.name)!;
        collector.sendBuffered();
        if (collector.buffered > MAX_UNSENT_RECORDS) await collector.drainTo(MAX_UNSENT_RECORDS / 2);
        if (this.failed) return;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.metrics.processRecords.record(processed);
    if (processed > 0) this.metrics.process.record(elapsed / processed);
    this.taskMetrics.get(task.name)?.process.record(elapsed / Math.max(1, processed));
    const last = records[records.length - 1]!;
    const now = Date.now();
    const metrics = this.partitionMetricsFor(task, batch.topic, batch.partition);
    metrics.lag.lag.record(Math.max(0, Number(batch.highWatermark) - last.offset - 1), now);
    if (metrics.source) {
      for (let i = 0; i < processed; i++) {
        metrics.source.process.record(1, now);
        metrics.source.recordE2eLatency.record(now - records[i]!.timestamp, now);
      }
    }
    const position = this.position(batch.topic, batch.partition);
    position.consumedOffset = last.offset;
    position.consumedTimestamp = last.timestamp;
    this.skipHidden(task, batch.topic, batch.partition, Number(batch.lastOffset()));
    resolveOffset(batch.lastOffset());
    this.collectorOf(task.name)?.sendBuffered();
    await this.maybePunctuateAndCommit(task.takeCommitRequest());
    // A rebalance reported here makes kafkajs re-join, which commits first (commitBeforeJoin).
    await heartbeat();
  }

  /** Past the markers and aborted records that end a fetched batch, once the task has processed what precedes them. */
  private skipHidden(task: StreamTask, topic: string, partition: number, lastOffset: number): void {
    const consumed = task.skipHiddenTo(topic, partition, lastOffset);
    const position = this.position(topic, partition);
    if (consumed !== undefined && consumed > position.consumedOffset) position.consumedOffset = consumed;
  }

  /**
   * The group still holds members of another protocol: typically a Kafka Streams application of the same
   * application.id, stopped a moment ago, whose members stay until their session times out. Sluice waits for
   * them, as the hand-over of an application from Java to Sluice needs, instead of failing.
   */
  private async waitForForeignMembers(): Promise<boolean> {
    if (this.stopping || this.failed) return false;
    if (!this.waitingForForeignMembers) {
      this.waitingForForeignMembers = true;
      const reason =
        `group ${this.ctx.config.applicationId} still has members of another group protocol (such as a Kafka Streams ` +
        'application that did not leave the group on close); waiting for them to leave or for their session.timeout.ms to expire';
      this.ctx.logger.warn({ thread: this.name }, reason);
      this.ctx.onGroupWait(this, reason);
    }
    await new Promise((resolve) => setTimeout(resolve, FOREIGN_MEMBERS_RETRY_MS));
    return !this.stopping && !this.failed;
  }

  /**
   * Kafka Streams' onPartitionsRevoked: everything processed is committed before this member re-joins, while
   * the group still accepts this generation's commits, so neither a kept nor a moved task is re-read.
   */
  private async commitBeforeJoin(): Promise<void> {
    if (this.tasks.size === 0) return;
    await this.runExclusive(async () => {
      if (this.failed) return;
      await this.commit();
    }).catch((error: unknown) => this.ctx.logger.warn({ err: error, thread: this.name }, 'commit before re-joining failed'));
  }

  private async onTick(): Promise<void> {
    if (this.failed || this.stopping) return;
    await this.maybePunctuateAndCommit(false);
  }

  private async maybePunctuateAndCommit(requested: boolean): Promise<void> {
    const now = Date.now();
    let commitRequested = requested;
    for (const [taskId, task] of this.tasks) {
      if (this.restoring.has(taskId)) continue;
      try {
        if (task.punctuateWallClock(now)) this.metrics.punctuate.record(0);
      } catch (error) {
        this.fail(error);
        return;
      }
      if (task.takeCommitRequest()) commitRequested = true;
    }
    for (const collector of this.allCollectors()) collector.sendBuffered();
    if (commitRequested || now - this.lastCommitMs >= this.ctx.config.commitIntervalMs) {
      await this.commit();
      for (const id of this.restoring) await this.checkpointRestoring(this.tasks.get(id)!, RESTORE_CHECKPOINT_PROGRESS);
    }
  }

  /**
   * Writes how far a restoring task's changelogs are restored, once its stores hold that durably, so that a
   * restart resumes the restore there rather than from the start (Kafka Streams checkpoints restoring tasks on
   * commit too). Restored records are committed records: this holds under exactly-once as well.
   */
  private async checkpointRestoring(task: StreamTask, minProgress: number): Promise<void> {
    const positions = this.restorer.takeCheckpoint(task.name, minProgress);
    if (positions.length === 0) return;
    await task.flushStores();
    const checkpoint = this.ctx.stateDirectory.readCheckpoint(task.name) ?? new Map();
    for (const p of positions) checkpoint.set(`${p.topic}\u0000${p.partition}`, p);
    this.ctx.stateDirectory.writeCheckpoint(task.name, checkpoint);
  }

  private partitionMetricsFor(task: StreamTask, topic: string, partition: number): { lag: PartitionLagMetrics; source: ProcessorNodeMetrics | undefined } {
    const key = `${topic}\u0000${partition}`;
    let metrics = this.partitionMetrics.get(key);
    if (!metrics) {
      const source = task.sourceNodeName(topic);
      metrics = {
        lag: createPartitionLagMetrics(this.ctx.metrics, `${this.name}-consumer`, topic, partition),
        source: source === undefined ? undefined : createProcessorNodeMetrics(this.ctx.metrics, this.name, task.name, source),
      };
      this.partitionMetrics.set(key, metrics);
    }
    return metrics;
  }

  private position(topic: string, partition: number): PartitionPositionState {
    const key = `${topic}\u0000${partition}`;
    let p = this.positions.get(key);
    if (!p) {
      p = { consumedOffset: -1, consumedTimestamp: -1, committedOffset: -1, committedTimestamp: -1 };
      this.positions.set(key, p);
    }
    return p;
  }

  /**
   * Commits the tasks' progress. At-least-once: flush the producer, flush the stores, commit the offsets, write
   * the checkpoints. Exactly-once, per task: flush its output, flush its stores, then commit its transaction
   * with its offsets (checkpoints only at a clean close: state written since may belong to an aborted
   * transaction).
   */
  private async commit(taskIds: Iterable<string> = this.tasks.keys()): Promise<void> {
    const start = performance.now();
    const ids = [...taskIds].filter((id) => !this.restoring.has(id));
    if (this.exactlyOnce) await this.commitTransactions(ids);
    else await this.commitAtLeastOnce(ids);
    this.lastCommitMs = Date.now();
    this.metrics.commit.record(performance.now() - start);
  }

  private async commitAtLeastOnce(ids: string[]): Promise<void> {
    for (const id of ids) this.tasks.get(id)?.prepareCommit();
    await Promise.all(ids.map((id) => this.collectorOf(id)?.flush()));
    const offsets: OffsetToCommit[] = [];
    for (const id of ids) {
      const task = this.tasks.get(id);
      if (!task) continue;
      await task.flushStores();
      offsets.push(...this.uncommittedOffsets(task));
    }
    if (offsets.length > 0) {
      try {
        await this.consumer.commitOffsets(offsets.map((o) => ({ ...o, offset: String(o.offset) })));
        this.commitFailingSince = undefined;
        this.markCommitted(offsets);
      } catch (error) {
        if (isGroupMembershipError(error)) {
          this.ctx.logger.warn({ err: error, thread: this.name }, 'offsets not committed: the group is rebalancing');
        } else if (isTransientKafkaError(error) && Date.now() - (this.commitFailingSince ??= Date.now()) < this.ctx.config.taskTimeoutMs) {
          // Kept for the next commit, which carries the same or later offsets.
          this.ctx.logger.warn({ err: error, thread: this.name }, 'offsets not committed: Kafka unreachable; retrying until task.timeout.ms');
        } else {
          throw error;
        }
      }
    }
    for (const id of ids) {
      const task = this.tasks.get(id);
      if (task) this.writeCheckpoint(task);
    }
  }

  private async commitTransactions(ids: string[]): Promise<void> {
    for (const id of ids) {
      const task = this.tasks.get(id);
      const output = this.taskOutputs.get(id);
      if (!task || !output?.transaction) continue;
      task.prepareCommit();
      await output.collector.flush();
      await task.flushStores();
      const offsets = this.uncommittedOffsets(task);
      await output.transaction.commit(offsets);
      this.markCommitted(offsets);
    }
  }

  /** The task's consumed positions not committed yet, as offsets to commit (the next record to read). */
  private uncommittedOffsets(task: StreamTask): OffsetToCommit[] {
    const offsets: OffsetToCommit[] = [];
    for (const p of task.consumedPositions()) {
      if (this.position(p.topic, p.partition).committedOffset !== p.offset + 1) offsets.push({ topic: p.topic, partition: p.partition, offset: p.offset + 1 });
    }
    return offsets;
  }

  private markCommitted(offsets: readonly OffsetToCommit[]): void {
    const now = Date.now();
    for (const o of offsets) {
      const position = this.position(o.topic, o.partition);
      position.committedOffset = o.offset;
      position.committedTimestamp = now;
    }
  }

  private writeCheckpoint(task: StreamTask): void {
    const checkpoint: Checkpoint = this.restoredCheckpoints.get(task.name) ?? this.ctx.stateDirectory.readCheckpoint(task.name) ?? new Map();
    let changed = false;
    for (const store of task.stores.keys()) {
      const changelog = storeChangelogTopic(this.ctx.topology, this.ctx.config.applicationId, store);
      if (!changelog) continue;
      const written = this.collectorOf(task.name)?.writtenOffset(changelog, task.id.partition);
      const key = `${changelog}\u0000${task.id.partition}`;
      if (written === undefined || (checkpoint.get(key)?.offset ?? -1) >= written + 1) continue;
      checkpoint.set(key, { topic: changelog, partition: task.id.partition, offset: written + 1 });
      changed = true;
    }
    if (changed || !this.ctx.stateDirectory.readCheckpoint(task.name)) this.ctx.stateDirectory.writeCheckpoint(task.name, checkpoint);
  }

  /** Applies a new assignment: commit and close lost tasks, create and restore new ones. */
  private async onAssignment(assigned: TopicPartition[]): Promise<void> {
    const version = ++this.assignmentVersion;
    this.setState('PARTITIONS_ASSIGNED');
    const wanted = new Map<string, TopicPartition[]>();
    for (const tp of assigned) {
      const id = this.taskIdOf(tp.topic, tp.partition);
      if (id === undefined) continue;
      const list = wanted.get(id) ?? [];
      list.push(tp);
      wanted.set(id, list);
    }
    await this.seedPositions(assigned);
    const lost = [...this.tasks.keys()].filter((id) => !wanted.has(id));
    if (lost.length > 0) {
      let clean = true;
      try {
        await this.commit(lost);
      } catch (error) {
        clean = false;
        this.ctx.logger.warn({ err: error, thread: this.name }, 'commit of revoked tasks failed; their input is re-read by the new owner');
      }
      for (const id of lost) await this.closeTask(id, clean);
    }
    const created: string[] = [];
    for (const id of wanted.keys()) {
      if (this.tasks.has(id)) continue;
      await this.createTask(id);
      created.push(id);
    }
    this.ctx.onAssignment(this, this.generation);
    // Restoration runs outside the exclusive section: other tasks keep processing meanwhile.
    for (const id of created) this.restorer.register(id, this.changelogsOf(this.tasks.get(id)!));
    if (this.restoring.size === 0 && version === this.assignmentVersion) this.setState('RUNNING');
  }

  /** A new task's changelog partitions, each from its checkpoint or, without one, from the log start. */
  private changelogsOf(task: StreamTask): ChangelogToRestore[] {
    const checkpoint = this.ctx.stateDirectory.readCheckpoint(task.name);
    const changelogs: ChangelogToRestore[] = [];
    for (const [store, instance] of task.stores) {
      const topic = storeChangelogTopic(this.ctx.topology, this.ctx.config.applicationId, store);
      if (!topic) continue;
      const partition = task.id.partition;
      const startOffset = checkpoint?.get(`${topic}\u0000${partition}`)?.offset ?? EARLIEST;
      changelogs.push({ taskId: task.name, store, topic, partition, startOffset, apply: (records) => instance.restore(records) });
    }
    return changelogs;
  }

  private onRestoreProgress(changelog: ChangelogToRestore, progress: RestoreProgress, span: RestoreSpan): void {
    this.storeMetrics.get(`${changelog.taskId}\u0000${changelog.store}`)?.restoreRemainingRecords.record(progress.remaining);
    this.ctx.onRestore(changelog.store, progress);
    if (!progress.done) return;
    this.restorations.set(`${changelog.store}\u0000${changelog.partition}`, { topic: changelog.topic, partition: changelog.partition, totalRestored: progress.restored, ...span });
  }

  /**
   * Positions of newly assigned partitions start at the group's committed offsets, so the offsets resource
   * shows a backlog (lag) before the first record is consumed.
   */
  private async seedPositions(assigned: TopicPartition[]): Promise<void> {
    const fresh = assigned.filter((tp) => !this.positions.has(`${tp.topic}\u0000${tp.partition}`));
    if (fresh.length === 0) return;
    try {
      const committed = await this.ctx.committedOffsets([...new Set(fresh.map((tp) => tp.topic))]);
      for (const tp of fresh) {
        const offset = committed.get(`${tp.topic}\u0000${tp.partition}`) ?? -1;
        const position = this.position(tp.topic, tp.partition);
        if (offset >= 0 && position.consumedOffset < 0) {
          position.committedOffset = offset;
          position.consumedOffset = offset - 1;
        }
      }
    } catch (error) {
      this.ctx.logger.warn({ err: error, thread: this.name }, 'reading committed offsets failed');
    }
  }

  private async createTask(taskId: string): Promise<void> {
    const [sub, partition] = taskId.split('_').map(Number) as [number, number];
    const subtopology = this.ctx.topology.subtopologies()[sub]!;
    const appId = this.ctx.config.applicationId;
    // Exactly-once: the task's transaction first, which settles what a previous owner left open in its changelogs.
    if (this.exactlyOnce) {
      const transaction = await TaskTransaction.open(this.ctx.kafka.producer, appId, taskId);
      this.taskOutputs.set(taskId, { transaction, collector: new KafkaRecordCollector(transaction, this.ctx.partitionCounts, { retryForMs: 0 }) });
    } else {
      const collector = new KafkaRecordCollector(this.sharedProducer!, this.ctx.partitionCounts, {
        retryForMs: this.ctx.config.taskTimeoutMs,
        onRetry: (error, attempt) =>
          this.ctx.logger.warn({ err: error, task: taskId, attempt }, 'sending records failed; retrying until task.timeout.ms'),
      });
      this.taskOutputs.set(taskId, { collector });
    }
    this.ctx.stateDirectory.lock(taskId);
    const task = new StreamTask({ subtopology: sub, partition }, subtopology, this.ctx.topology, {
      applicationId: appId,
      config: this.ctx.config.values,
      defaultKeySerde: this.ctx.defaultKeySerde,
      defaultValueSerde: this.ctx.defaultValueSerde,
      collector: this.collectorOf(taskId)!,
      taskDir: this.ctx.stateDirectory.taskDir(taskId),
      resolveTopic: (t) => resolveTopicName(this.ctx.topology, appId, t),
      changelogTopic: (s) => storeChangelogTopic(this.ctx.topology, appId, s),
      deserializationHandling: this.ctx.config.deserializationHandling,
      onDropped: (reason, record, error) => {
        this.taskMetrics.get(taskId)?.droppedRecords.record(1);
        this.ctx.logger.warn({ task: taskId, record, err: error }, `record skipped: ${reason}`);
      },
      ...(this.ctx.configureStore ? { configureStore: this.ctx.configureStore } : {}),
      meterStore: (store) => {
        const metrics = createStateStoreMetrics(this.ctx.metrics, this.name, taskId, storeMetricsScope(store.persistent, store.type), store.name);
        this.storeMetrics.set(`${taskId}\u0000${store.name}`, metrics);
        return meteredStore(store, metrics);
      },
      wallClock: Date.now,
    });
    // Without a checkpoint nothing says how far local state got: start empty and restore the whole changelog.
    if (this.ctx.stateDirectory.readCheckpoint(taskId) === undefined) this.ctx.stateDirectory.wipeTaskState(taskId);
    task.initializeStores();
    // Restored writes commit synchronously: whatever opening the stores wrote must commit before them.
    await task.flushStores();
    this.tasks.set(taskId, task);
    this.restoring.add(taskId);
    this.taskMetrics.set(taskId, createTaskMetrics(this.ctx.metrics, this.name, taskId));
    this.metrics.taskCreated.record(1);
  }

  /**
   * A task whose changelogs are all restored: its stores' writes committed (reads see them from here), its
   * checkpoint written, its processors initialised, its partitions resumed.
   */
  private async finishRestoring(taskId: string): Promise<void> {
    const task = this.tasks.get(taskId);
    if (!task || !this.restoring.has(taskId)) return;
    await task.flushStores();
    const checkpoint = this.ctx.stateDirectory.readCheckpoint(taskId) ?? new Map();
    let restored = false;
    for (const store of task.stores.keys()) {
      const topic = storeChangelogTopic(this.ctx.topology, this.ctx.config.applicationId, store);
      const restoration = this.restorations.get(`${store}\u0000${task.id.partition}`);
      if (!topic || !restoration) continue;
      checkpoint.set(`${topic}\u0000${task.id.partition}`, { topic, partition: task.id.partition, offset: restoration.endingOffset });
      restored = true;
    }
    if (this.exactlyOnce) {
      // From here the stores take writes that a crash would abort: no checkpoint on disk until a clean close.
      this.restoredCheckpoints.set(taskId, checkpoint);
      this.ctx.stateDirectory.deleteCheckpoint(taskId);
    } else if (restored) {
      this.ctx.stateDirectory.writeCheckpoint(taskId, checkpoint);
    } else {
      this.writeCheckpoint(task);
    }
    task.initializeProcessors();
    this.restoring.delete(taskId);
    const appId = this.ctx.config.applicationId;
    this.consumer.resume(task.subtopology.sourceTopics.map((t) => ({ topic: resolveTopicName(this.ctx.topology, appId, t), partitions: [task.id.partition] })));
    if (this.restoring.size === 0 && this.threadState === 'PARTITIONS_ASSIGNED') this.setState('RUNNING');
  }

  /**
   * Closes a task. `clean`: its progress was just committed. Under exactly-once only a clean close writes a
   * checkpoint, and an open transaction is aborted: without a checkpoint the next owner restores in full.
   */
  private async closeTask(taskId: string, clean: boolean): Promise<void> {
    const task = this.tasks.get(taskId);
    if (task && this.restoring.has(taskId)) {
      await this.checkpointRestoring(task, 0).catch((error: unknown) => this.ctx.logger.warn({ err: error, task: taskId }, 'checkpointing a restore failed'));
    }
    const output = this.taskOutputs.get(taskId);
    if (output) {
      if (output.transaction && clean && task && !this.restoring.has(taskId)) this.writeCheckpoint(task);
      output.collector.discard();
      this.taskOutputs.delete(taskId);
      this.restoredCheckpoints.delete(taskId);
      await output.transaction?.close().catch((error: unknown) => this.ctx.logger.warn({ err: error, task: taskId }, 'closing the task producer failed'));
    }
    this.restorer.unregister(taskId);
    this.tasks.delete(taskId);
    this.restoring.delete(taskId);
    this.taskMetrics.get(taskId)?.unregister();
    this.taskMetrics.delete(taskId);
    for (const key of [...this.storeMetrics.keys()]) if (key.startsWith(`${taskId}\u0000`)) this.storeMetrics.delete(key);
    for (const key of [...this.positions.keys()]) {
      if (task?.subtopology.sourceTopics.some((t) => key === `${resolveTopicName(this.ctx.topology, this.ctx.config.applicationId, t)}\u0000${task.id.partition}`)) {
        this.positions.delete(key);
        const metrics = this.partitionMetrics.get(key);
        metrics?.lag.unregister();
        metrics?.source?.unregister();
        this.partitionMetrics.delete(key);
      }
    }
    try {
      await task?.close();
    } finally {
      this.ctx.stateDirectory.unlock(taskId);
      this.metrics.taskClosed.record(1);
    }
  }

  /** How far a changelog partition being restored has been read; undefined when it is not restoring. */
  restoringOffset(changelog: string, partition: number): number | undefined {
    return this.restorer.position(changelog, partition);
  }

  /** Offsets per consumed partition (without log offsets; the instance adds those). */
  positionsSnapshot(): { topic: string; partition: number; state: PartitionPositionState }[] {
    return [...this.positions.entries()].map(([key, state]) => {
      const [topic, partition] = key.split('\u0000') as [string, string];
      return { topic, partition: Number(partition), state: { ...state } };
    });
  }

  metadata(): ThreadMetadata {
    const active: TaskMetadata[] = [...this.tasks.values()].map((t) => ({
      taskId: t.name,
      topicPartitions: t.subtopology.sourceTopics.map((topic) => ({
        topic: resolveTopicName(this.ctx.topology, this.ctx.config.applicationId, topic),
        partition: t.id.partition,
      })),
    }));
    return {
      name: this.name,
      state: this.threadState,
      activeTasks: active,
      standbyTasks: [],
      clients: {
        consumerClientId: `${this.name}-consumer`,
        producerClientIds: this.exactlyOnce ? [...this.taskOutputs.keys()].map((id) => `${this.name}-${id}-producer`) : [`${this.name}-producer`],
        restoreConsumerClientId: `${this.name}-restore-consumer`,
        adminClientId: `${this.ctx.clientId}-admin`,
      },
    };
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    const err = error instanceof Error ? error : new StreamsException(String(error));
    this.ctx.logger.error({ err, thread: this.name }, 'stream thread failed');
    this.ctx.onFatal(this, err);
  }

  /** Stops consuming, commits (unless the thread failed), closes tasks and leaves the group. */
  async close(): Promise<void> {
    if (this.threadState === 'DEAD') return;
    this.stopping = true;
    this.setState('PENDING_SHUTDOWN');
    if (this.timer) clearInterval(this.timer);
    let clean = !this.failed;
    await this.runExclusive(async () => {
      if (clean) {
        try {
          await this.commit();
        } catch (error) {
          clean = false;
          this.ctx.logger.warn({ err: error, thread: this.name }, 'final commit failed');
        }
      } else {
        for (const collector of this.allCollectors()) collector.discard();
      }
    });
    await this.consumer.disconnect().catch(() => undefined);
    // Tasks first: a restoring task checkpoints how far it got, which the restorer knows until it closes.
    for (const id of [...this.tasks.keys()]) await this.closeTask(id, clean).catch(() => undefined);
    await this.restorer.close();
    await this.sharedProducer?.disconnect().catch(() => undefined);
    this.metrics.unregister();
    this.setState('DEAD');
  }

  private setState(state: ThreadState): void {
    if (this.threadState === state || this.threadState === 'DEAD') return;
    if (this.stopping && state !== 'PENDING_SHUTDOWN' && state !== 'DEAD') return;
    this.threadState = state;
    this.ctx.onStateChange(this);
  }
}
