import { IllegalState } from '../../errors';
import { EARLIEST, type ChangelogRecordList, NULL_KEY, RecordArray } from '../kafka';
import { createStateStoreMetrics, storeMetricsScope, type StateStoreMetrics } from '../metrics/streams-metrics';
import type { StateStore } from '../state/store';
import { ThreadCache } from '../state/thread-cache';
import type { GlobalStoreDefinition, Topology } from '../topology/topology';
import { ChangelogRestorer, type ChangelogSource, type ChangelogToRestore, type RestoreProgress } from './changelog-restorer';
import type { ConsumedRecord } from './consumed-record';
import { meteredStore } from './metered-store';
import type { RecordCollector } from './record-collector';
import { LookupOutages, prepareSerdes } from './serde-lookups';
import { StreamTask } from './task';
import type { TaskCheckpoints } from './task-checkpoints';
import { openTaskStores } from './task-stores';
import type { InstanceParts } from './instance-parts';
import type { MemoryInUse, MemoryLimits } from './memory-budget';

/** The global stores' directory under the application's (Kafka Streams' `global`), and their task's name. */
export const GLOBAL_TASK = 'global';

export interface GlobalStreamThreadOptions extends InstanceParts {
  readonly topology: Topology;
  /** The thread's share of `statestore.cache.max.bytes` (Kafka Streams counts the global thread among the threads). */
  readonly cacheBytes: number;
  readonly checkpoints: TaskCheckpoints;
  /** Reads the global stores' topics, with no consumer group (Kafka Streams' global consumer). */
  readonly source: ChangelogSource;
  /** Restore progress of a global store's topic partition, until the store is restored. */
  readonly onRestore: (store: string, progress: RestoreProgress) => void;
  /** Reading or processing the topics failed for good, after the start: the instance cannot go on. */
  readonly onError: (error: unknown) => void;
}

/** A global store's processor writes nothing out (what it forwards goes nowhere). */
const NO_OUTPUT: RecordCollector = {
  send: () => {
    throw new IllegalState('a global store\'s processor writes to no topic');
  },
  partitionCount: () => undefined,
};

/**
 * Kafka Streams' GlobalStreamThread with its GlobalStateManager: one task holds every global store of the topology in
 * `<state.dir>/<application.id>/global`. `start` restores them from every partition of their topics, from the
 * checkpoint or the log start to the end offset the first fetch reports, and resolves then; the topics are then
 * followed for as long as the instance runs. Every record, restored or followed, goes through the store's source
 * and processor (the topic is the store's changelog, but only the processor knows how a record becomes an entry).
 * The topics' positions are checkpointed every `commit.interval.ms` and at close, in both processing guarantees: a
 * global store is never written by a transaction.
 */
export class GlobalStreamThread {
  private readonly definitions: readonly GlobalStoreDefinition[];
  private readonly storeMetrics = new Map<string, StateStoreMetrics>();
  private readonly task: StreamTask;
  /** The record cache of the global stores that are cached. */
  private readonly cache: ThreadCache;
  private readonly restorer: ChangelogRestorer;
  /** The stores, open once `start` has opened them: what the stream tasks' processors and queries read. */
  readonly stores = new Map<string, StateStore>();
  private restoredAt: number | undefined;
  private started: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private locked = false;
  private closing: Promise<void> | undefined;
  private partitionCounts: ReadonlyMap<string, number> = new Map();
  private processing = false;

  constructor(private readonly options: GlobalStreamThreadOptions) {
    const { config, topology } = options;
    this.definitions = topology.globalStores();
    const threadId = `${options.clientId}-GlobalStreamThread`;
    this.cache = new ThreadCache(options.cacheBytes);
    this.task = new StreamTask(
      { subtopology: -1, partition: -1 },
      {
        id: -1,
        nodes: this.definitions.flatMap((g) => [g.sourceName, g.processorName]),
        sourceTopics: this.definitions.map((g) => g.topic),
        sourcePatterns: [],
        stores: this.definitions.map((g) => g.storeName),
      },
      topology,
      {
        applicationId: config.applicationId,
        taskName: GLOBAL_TASK,
        config: config.values,
        defaultKeySerde: options.defaultKeySerde,
        defaultValueSerde: options.defaultValueSerde,
        collector: NO_OUTPUT,
        cache: this.cache,
        taskDir: options.stateDirectory.taskDir(GLOBAL_TASK),
        resolveTopic: (t) => t,
        changelogTopic: () => undefined,
        exceptionHandlers: config.exceptionHandlers,
        onDropped: (reason, record, error) => options.logger.warn({ record, err: error }, `global store record skipped: ${reason}`),
        ...(options.configureStore ? { configureStore: options.configureStore } : {}),
        meterStore: (store) => {
          // Opened again after a wipe: the store's metrics start over.
          this.storeMetrics.get(store.name)?.unregister();
          const scope = createStateStoreMetrics(options.metrics, threadId, GLOBAL_TASK, storeMetricsScope(store.persistent, store.type), store.name);
          this.storeMetrics.set(store.name, scope);
          return meteredStore(store, scope, config.timeStoreOperations);
        },
        storeFlushed: (store, ms) => this.storeMetrics.get(store)?.flush.record(ms),
        globalStores: this.stores,
        wallClock: Date.now,
      },
    );
    this.restorer = new ChangelogRestorer(
      options.source,
      {
        onProgress: (changelog, progress) => this.progress(changelog, progress),
        onTaskRestored: () => this.restored(),
        onTaskCorrupted: (_taskId, error) => void this.restoreAnew(error).catch((e: unknown) => this.failed(e)),
        onError: (error) => this.failed(error),
      },
      { retryForMs: config.taskTimeoutMs, logger: options.logger },
    );
  }

  /** Whether every global store has been restored to the end its topic had at the start. */
  get isRestored(): boolean {
    return this.restoredAt !== undefined;
  }

  /**
   * Opens the global stores and restores them; resolves once they are restored (the topics are followed on), rejects
   * when restoring fails. `partitionCounts` gives each topic's partitions. A close meanwhile resolves it.
   */
  async start(partitionCounts: ReadonlyMap<string, number>): Promise<void> {
    if (this.closing) return;
    const { stateDirectory, logger } = this.options;
    stateDirectory.lock(GLOBAL_TASK, GLOBAL_TASK);
    this.locked = true;
    this.partitionCounts = partitionCounts;
    if (!(await prepareSerdes(this.task, new LookupOutages(logger), () => !this.closing))) return;
    await this.openStores();
    const startedAt = Date.now();
    const restored = new Promise<void>((resolve, reject) => (this.started = { resolve, reject }));
    if (this.closing) return;
    this.register();
    await restored;
    if (this.closing) return;
    logger.info({ stores: [...this.stores.keys()], durationMs: this.restoredAt! - startedAt }, 'global stores restored; following their topics');
    this.timer = setInterval(() => void this.checkpoint().catch((error: unknown) => logger.warn({ err: error }, 'checkpointing the global stores failed')), this.options.config.commitIntervalMs);
    this.timer.unref();
  }

  private async openStores(): Promise<void> {
    const { stateDirectory, checkpoints, logger } = this.options;
    await openTaskStores(this.task, stateDirectory, checkpoints, logger);
    for (const [name, store] of this.task.stores) this.stores.set(name, store);
  }

  /** Has the topics read into the stores, each partition from the checkpoint or the log start. */
  private register(): void {
    const checkpoint = this.options.checkpoints.read(GLOBAL_TASK);
    const changelogs: ChangelogToRestore[] = this.definitions.flatMap(({ storeName, topic }) =>
      Array.from({ length: this.partitionCounts.get(topic) ?? 0 }, (_, partition) => ({
        taskId: GLOBAL_TASK,
        store: storeName,
        topic,
        partition,
        startOffset: checkpoint?.get(topic, partition) ?? EARLIEST,
        apply: (records: ChangelogRecordList) => this.process(topic, partition, records),
      })),
    );
    this.restorer.register(GLOBAL_TASK, changelogs, { follow: true });
    const partitions = changelogs.map((c) => ({ topic: c.topic, partition: c.partition, from: c.startOffset }));
    this.options.logger.info({ stores: [...this.stores.keys()], partitions }, 'restoring the global stores');
  }

  /**
   * A topic truncated past the checkpoint while the instance was down (Kafka Streams' GlobalStateManager wipes and
   * re-bootstraps then): the stores are wiped and restored from the log start. Once restored and followed, the stream
   * tasks read the stores: a topic truncated under them fails the instance, as in Kafka Streams.
   */
  private async restoreAnew(error: Error): Promise<void> {
    // The processors hold the stores they were initialized with: once a record went through, the stores stay.
    if (this.processing || this.closing) return this.failed(error);
    this.options.logger.warn({ err: error }, `${error.message}; the global stores are wiped and restored from their topics' log start`);
    await this.task.closeStores();
    this.options.stateDirectory.wipeTaskState(GLOBAL_TASK);
    await this.openStores();
    if (!this.closing) this.register();
  }

  /** The thread's share of `statestore.cache.max.bytes` changed; records are processed synchronously, never under it. */
  resizeCache(maxBytes: number): void {
    this.cache.resize(maxBytes);
  }

  readonly caches = true;
  readonly produces = false;
  readonly consumers = 1;

  limitMemory(limits: MemoryLimits): void {
    if (limits.cacheBytes !== undefined) this.cache.limit(limits.cacheBytes);
    this.options.source.limitFetch(limits.fetchBytes);
  }

  memoryInUse(): MemoryInUse {
    return { cacheBytes: this.cache.sizeBytes, produceBufferBytes: 0, fetchBytes: this.options.source.fetchBytes };
  }

  /** Checkpoints where the topics are read, and closes the stores. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    // A start still restoring ends: the instance is closing.
    this.started?.resolve();
    const positions = this.restorer.takeCheckpoint(GLOBAL_TASK, 0);
    await this.restorer.close();
    if (!this.locked) return;
    try {
      if (this.stores.size > 0) await this.persist(positions);
      await this.task.close();
    } finally {
      for (const m of this.storeMetrics.values()) m.unregister();
      this.options.stateDirectory.unlock(GLOBAL_TASK, GLOBAL_TASK);
    }
  }

  /** Runs a fetch of a topic partition through its global store's source and processor. */
  private process(topic: string, partition: number, records: ChangelogRecordList): void {
    // Initialized at the first record, not at the start: a truncated topic shows at the first fetch, and its stores are
    // then opened anew.
    this.processing = true;
    this.task.initializeProcessors();
    const batch: ConsumedRecord[] = [];
    for (const r of records) {
      batch.push({ topic, partition, offset: r.offset, timestamp: r.timestamp, key: r.key === NULL_KEY ? null : r.key, value: r.value, headers: {} });
    }
    this.task.addRecords(new RecordArray(topic, partition, batch));
    this.task.process();
  }

  private progress(changelog: ChangelogToRestore, progress: RestoreProgress): void {
    if (this.isRestored) return;
    this.storeMetrics.get(changelog.store)?.restoreRemainingRecords.record(progress.remaining);
    this.options.onRestore(changelog.store, progress);
  }

  private restored(): void {
    this.restoredAt = Date.now();
    this.started?.resolve();
  }

  private failed(error: unknown): void {
    if (this.closing) return;
    if (this.isRestored) this.options.onError(error);
    else this.started?.reject(error);
  }

  private async checkpoint(): Promise<void> {
    if (this.closing) return;
    await this.persist(this.restorer.takeCheckpoint(GLOBAL_TASK, 1));
  }

  /** Makes the stores durable up to `positions`, then says so in the checkpoint. */
  private async persist(positions: ReturnType<ChangelogRestorer['takeCheckpoint']>): Promise<void> {
    this.task.prepareCommit();
    await this.task.flushStores();
    this.options.checkpoints.restoring(GLOBAL_TASK, positions);
  }
}
