import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { IllegalState, StreamsException } from '../../errors';
import { cacheMaxBytes, minFreeDiskBytes } from '../config/config-lookup';
import type { KafkaAdmin } from '../kafka';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import { createClientMetrics, createMemoryBudgetMetrics } from '../metrics/streams-metrics';
import type { ClientMetrics } from '../metrics/streams-metrics';
import type { MemoryBudget, MemoryPressure } from './memory-budget';
import { freeDiskBytes } from '../state/disk-space-guard';
import type { StateStore } from '../state/store';
import type { TopologyDescription } from '../topology/description';
import { describeAsText } from '../topology/description';
import type { Topology } from '../topology/topology';
import type {
  ConsumerOffsets,
  InstanceView,
  RestoreEvent,
  StorePartitionStatus,
  StreamsEvents,
  ThreadMetadata,
} from './instance-view';
import { InstanceGroup } from './instance-group';
import { instanceParts, type StreamsInstanceOptions, type ThreadParts } from './instance-parts';
import { InstanceStores } from './instance-stores';
import type { StandbyReplica, WorkerStorePartitions } from './queryable-stores';
import { asError, type StreamsUncaughtExceptionHandler } from './exception-handlers';
import type { GlobalStreamThread } from './global-stream-thread';
import type { StandbyTasks } from './standby-task';
import { consumerOffsets, storeStatisticsDumper, storeStatus, threadMetadata } from './instance-reports';
import { InternalTopicManager } from './internal-topic-manager';
import { OffsetReader } from './offset-reader';
import { type NodeTasks, RebalanceTimeline, type TimelineEntry } from './rebalance-timeline';
import { SLUICE_VERSION } from './sluice-version';
import type { StreamsConfig } from './streams-config';
import type { KeyQueryMetadata, StreamsMetadata } from './streams-metadata';
import type { StoreStatisticsDumper } from './store-statistics';
import { StreamsStateMachine } from './streams-state';
import type { StreamsState } from './streams-state';
import type { StreamThreadHandle } from './stream-thread-handle';
import { ThreadFactory } from './thread-factory';
import { cacheBytesPerThread } from './thread-cache-share';
import { ThreadRecovery, uncaughtResponse } from './thread-recovery';
import { withTimeout } from './with-timeout';

/**
 * A running application (Kafka Streams' `KafkaStreams`): it creates the internal topics, runs
 * `num.stream.threads` stream threads in the application's consumer group, keeps the host map, and moves
 * through Kafka Streams' states. Construction validates the configuration; `start` connects.
 */
export class StreamsInstance extends EventEmitter<StreamsEvents> implements InstanceView {
  readonly config: StreamsConfig;
  readonly applicationId: string;
  readonly metrics: MetricsRegistry;
  readonly createdAt = Date.now();
  readonly processId: string;
  readonly clientId: string;
  private readonly parts: ThreadParts;
  private readonly machine: StreamsStateMachine;
  private readonly logger: Logger;
  private readonly group: InstanceGroup;
  private readonly stores: InstanceStores;
  private readonly recovery: ThreadRecovery;
  private readonly factory: ThreadFactory;
  /** The number the next thread's name takes: 1, 2, ... for the first threads, then on for their replacements. */
  private nextThreadNumber = 1;
  private readonly clientMetrics: ClientMetrics;
  private generation = 0;
  private admin: KafkaAdmin | undefined;
  private topics: InternalTopicManager | undefined;
  private streamThreads: StreamThreadHandle[] = [];
  private readonly offsetReader: OffsetReader;
  private error: Error | undefined;
  private closing: Promise<void> | undefined;
  /** The shutdown after a fatal error, until the instance is in ERROR. */
  private failing: Promise<void> | undefined;
  /** The start under way: a close waits for it, so no thread starts after the close. */
  private starting: Promise<void> | undefined;
  private readonly statistics: StoreStatisticsDumper | undefined;
  /** Standby tasks of this node; undefined with num.standby.replicas 0. */
  private standbys: StandbyTasks | undefined;
  /** The global stores of this node; undefined when the topology has none. */
  private readonly globalThread: GlobalStreamThread | undefined;
  private uncaughtExceptionHandler: StreamsUncaughtExceptionHandler;
  private readonly rebalanceTimeline: RebalanceTimeline;
  private readonly memoryBudget: MemoryBudget | undefined;
  private readonly onMemoryPressure = (pressure: MemoryPressure): void => {
    this.logger.warn({ memory: pressure }, `memory: ${pressure.part} has stayed at its bound (${pressure.usedBytes} of ${pressure.budgetBytes} bytes) since ${new Date(pressure.since).toISOString()}`);
    this.emit('memory', pressure);
  };

  constructor(
    readonly topology: Topology,
    config: Readonly<Record<string, unknown>>,
    options: StreamsInstanceOptions = {},
  ) {
    super();
    // A refused login or an untrusted certificate fails the instance at once: no retry cures it.
    const parts = instanceParts(topology, config, options, (error) => void this.failWith(error));
    this.parts = parts;
    this.config = parts.config;
    this.metrics = parts.metrics;
    this.processId = parts.processId;
    this.clientId = parts.clientId;
    this.logger = parts.logger;
    this.applicationId = this.config.applicationId;
    this.statistics = storeStatisticsDumper(this.config, () => this.streamThreads);
    this.offsetReader = new OffsetReader(this.applicationId, () => this.admin);
    this.rebalanceTimeline = new RebalanceTimeline({ processId: this.processId, endpoint: this.config.applicationServer || undefined }, (entry) =>
      this.emit('timeline', entry),
    );
    this.group = new InstanceGroup(parts, {
      admin: () => this.admin,
      topics: () => this.topics,
      threads: () => this.streamThreads,
      standbys: () => this.standbys,
      endOffsets: (topic) => this.endOffsets(topic),
      closing: () => this.closeBegun,
      failed: () => this.error !== undefined,
      fail: (error) => void this.failWith(error),
      rebalancing: (cause) => this.rebalanceTimeline.cause(cause),
      groupRead: () => this.rebalanceTimeline.groupRead(this.group.hostMap.members(), this.nodeTasks()),
    });
    this.factory = new ThreadFactory(
      parts,
      {
        assign: (members, partitionCount, topics) => this.group.assignor.assign(members, partitionCount, topics),
        committedOffsets: (partitions) => this.offsetReader.committedOffsets(partitions),
        subscriptionFacts: () => this.group.subscriptionFacts(),
        publishEvent: (event) => this.emit('topologyEvent', event),
        onRestore: (store, progress) => this.onRestore({ store, ...progress }),
        onGlobalError: (error) => void this.failWith(error),
        heldByActive: (taskId) => this.streamThreads.some((t) => t.holds(taskId)),
        streamsEndpoints: (endpoints) => this.group.streamsEndpoints(endpoints),
        streamsShutdown: (detail) => this.group.streamsShutdown(detail),
      },
      options,
    );
    this.globalThread = topology.globalStores().length > 0 ? this.factory.globalThread(this.cacheBytesPerThread(this.config.numStreamThreads)) : undefined;
    this.memoryBudget = options.memoryBudget;
    if (this.memoryBudget !== undefined) {
      if (this.globalThread !== undefined) this.memoryBudget.join(this.globalThread);
      createMemoryBudgetMetrics(this.metrics, this.memoryBudget);
      this.memoryBudget.on('pressure', this.onMemoryPressure);
    }
    this.stores = new InstanceStores({
      metadata: this.parts.metadata,
      globalThread: this.globalThread,
      running: () => this.state === 'RUNNING' || this.state === 'REBALANCING',
      threads: () => this.streamThreads,
      standbys: () => this.standbys,
    });
    this.uncaughtExceptionHandler = this.config.exceptionHandlers.uncaught;
    this.recovery = new ThreadRecovery({ exactlyOnce: this.config.processingGuarantee === 'exactly_once_v2', taskTimeoutMs: this.config.taskTimeoutMs });
    this.machine = new StreamsStateMachine((change) => {
      this.logger.info({ from: change.previous, to: change.state }, 'state transition');
      this.emit('state', change);
    });
    this.clientMetrics = createClientMetrics(this.metrics, this.clientId, {
      version: SLUICE_VERSION,
      commitId: 'unknown',
      applicationId: this.applicationId,
      topologyDescription: () => describeAsText(this.topology.describe()),
      state: () => this.machine.state,
      aliveStreamThreads: () => this.streamThreads.filter((t) => t.state !== 'DEAD').length,
      stateDirFreeBytes: () => freeDiskBytes(this.config.stateDir),
      stateDirMinFreeBytes: minFreeDiskBytes(config),
    });
  }

  get state(): StreamsState {
    return this.machine.state;
  }

  get stateSince(): number {
    return this.machine.since;
  }

  get lastError(): Error | undefined {
    return this.error;
  }

  describe(): TopologyDescription {
    return this.topology.describe();
  }

  /** Kafka Streams' `setUncaughtExceptionHandler`: decides what a stream thread's failure does; before start only. */
  setUncaughtExceptionHandler(handler: StreamsUncaughtExceptionHandler): void {
    if (this.state !== 'CREATED') throw new IllegalState(`the uncaught-exception handler can only be set before start (state ${this.state})`);
    this.uncaughtExceptionHandler = handler;
  }

  /**
   * Kafka Streams' `addStreamThread`: one more stream thread joins the group (a rebalance spreads the tasks over
   * it). Answers its name, or undefined unless the instance is RUNNING or REBALANCING.
   */
  async addStreamThread(): Promise<string | undefined> {
    if (this.state !== 'RUNNING' && this.state !== 'REBALANCING') return undefined;
    const thread = this.createThread(this.freeThreadSlot(), this.cacheBytesForNewThread(), this.memoryBudget?.fetchBytesPerConsumer(2));
    this.streamThreads.push(thread);
    this.rebalanceTimeline.cause({ type: 'thread_added', thread: thread.name });
    this.rebalanceTimeline.joining();
    this.logger.info({ thread: thread.name }, 'stream thread added');
    this.emit('thread', { thread: thread.name, action: 'added' });
    this.onThreadStateChange();
    await thread.start().catch((e: unknown) => this.onThreadFailed(thread, asError(e)));
    return thread.name;
  }

  /**
   * Kafka Streams' `removeStreamThread`: the first live stream thread (as Kafka Streams picks it) commits, closes its tasks and leaves the group
   * (a static member too), and the others take its tasks. Answers its name, or undefined unless the instance is
   * RUNNING or REBALANCING with a thread to remove. Gives up waiting after `timeoutMs`; the thread still closes.
   */
  async removeStreamThread(timeoutMs?: number): Promise<string | undefined> {
    if (this.state !== 'RUNNING' && this.state !== 'REBALANCING') return undefined;
    const thread = this.streamThreads.find((t) => t.live);
    if (!thread) return undefined;
    this.streamThreads.splice(this.streamThreads.indexOf(thread), 1);
    this.rebalanceTimeline.cause({ type: 'thread_removed', thread: thread.name });
    this.resizeThreadCaches(this.cacheBytesPerThread(this.liveThreadCount()));
    await withTimeout(thread.close(true).catch((e: unknown) => this.logger.warn({ err: e, thread: thread.name }, 'closing the removed thread failed')), timeoutMs);
    this.logger.info({ thread: thread.name }, 'stream thread removed');
    this.emit('thread', { thread: thread.name, action: 'removed' });
    this.onThreadStateChange();
    return thread.name;
  }

  /** Each thread's share of `statestore.cache.max.bytes` with `threads` stream threads. */
  private cacheBytesPerThread(threads: number): number {
    return cacheBytesPerThread(cacheMaxBytes(this.config.values), threads, this.topology.globalStores().length > 0);
  }

  private liveThreadCount(): number {
    return this.streamThreads.filter((t) => t.live).length;
  }

  /** Every live thread's record cache, the global thread's too, resized to `bytes` (Kafka Streams' resizeThreadCache). */
  private resizeThreadCaches(bytes: number): void {
    for (const thread of this.streamThreads) if (thread.live) thread.resizeCache(bytes);
    this.globalThread?.resizeCache(bytes);
  }

  /** The share of a thread about to be added, the live threads' caches resized to it first (as Kafka Streams' addStreamThread). */
  private cacheBytesForNewThread(): number {
    const bytes = this.cacheBytesPerThread(this.liveThreadCount() + 1);
    this.resizeThreadCaches(bytes);
    return bytes;
  }

  /** The lowest slot no live thread has: it numbers the thread's static member, as Kafka Streams reuses indexes. */
  private freeThreadSlot(): number {
    const taken = new Set(this.streamThreads.map((t) => t.slot));
    let slot = 0;
    while (taken.has(slot)) slot++;
    return slot;
  }

  /** Connects, prepares the internal topics and starts the threads; the instance then rebalances and runs. */
  async start(): Promise<void> {
    if (this.state !== 'CREATED') throw new IllegalState(`the instance can only be started once (state ${this.state})`);
    this.machine.transition('REBALANCING');
    this.rebalanceTimeline.cause({ type: 'instance_started' });
    this.rebalanceTimeline.joining();
    this.starting = this.connectAndStartThreads();
    return this.starting;
  }

  private async connectAndStartThreads(): Promise<void> {
    try {
      this.admin = this.parts.kafka.admin.admin();
      this.topics = new InternalTopicManager(this.admin, this.parts.metadata, this.config, this.parts.partitionCounts, this.logger);
      await this.topics.prepare(() => this.state === 'REBALANCING');
      // Kafka Streams restores the global stores before its stream threads start: their tasks read them from the first record.
      await this.globalThread?.start(this.parts.partitionCounts);
      if (this.closeBegun) return;
      // Warm-up replicas run as standbys: a stateful topology has them even with no standby replicas configured.
      if (this.config.numStandbyReplicas > 0 || this.parts.metadata.subtopologies.some((sub) => sub.stores.length > 0)) {
        this.standbys = this.factory.standbyTasks();
        this.memoryBudget?.join(this.standbys);
      }
      const cacheBytes = this.cacheBytesPerThread(this.config.numStreamThreads);
      // Each thread's group consumer keeps the share it is made with: the share once all of them have joined.
      const fetchBytes = this.memoryBudget?.fetchBytesPerConsumer(2 * this.config.numStreamThreads);
      for (let i = 0; i < this.config.numStreamThreads; i++) this.streamThreads.push(this.createThread(i, cacheBytes, fetchBytes));
      // Every thread connects before any joins: their first joins then reach the group together. Else the first to
      // connect runs every task alone until the others' joins reach it at its next heartbeat, then gives half away.
      await Promise.all(this.streamThreads.map((t) => t.prepare()));
      await Promise.all(this.streamThreads.map((t) => t.start()));
      this.statistics?.start();
      this.group.start();
    } catch (error) {
      // A close while starting cuts the start short (its clients are disconnected under it): expected, not a failure.
      if (this.closeBegun) {
        this.logger.debug({ err: error }, 'start cut short by a close');
        return;
      }
      const err = error instanceof Error ? error : new StreamsException(String(error));
      await this.failWith(err);
      throw err;
    }
  }

  /** Whether close() has been called: what fails from then on is a consequence of the close. */
  private get closeBegun(): boolean {
    return this.state === 'PENDING_SHUTDOWN' || this.state === 'NOT_RUNNING';
  }

  /**
   * A thread in slot `index`. A replacement gets a number of its own (Kafka Streams names a replacing thread anew): the
   * failed thread may still be closing, and its metrics and its tasks' carry its name.
   */
  private createThread(index: number, cacheBytes: number, fetchBytes: number | undefined): StreamThreadHandle {
    const number = this.nextThreadNumber++;
    const thread = this.factory.streamThread(index, number, cacheBytes, fetchBytes, this.standbys, this.globalThread);
    this.memoryBudget?.join(thread);
    thread.on('state', (state) => {
      if (state === 'DEAD') this.memoryBudget?.leave(thread);
      // kafkajs tells a member of a rebalance as it is about to join again.
      if (state === 'PARTITIONS_REVOKED') this.rebalanceTimeline.joining();
      this.onThreadStateChange();
    });
    thread.on('assignment', ({ generation, lost }) => {
      const readsBefore = this.rebalanceTimeline.groupReads;
      // After the host map: it brings this node's standbys of the new assignment, and the group's members after it.
      void this.group.refresh().then(() => {
        this.rebalanceTimeline.assigned(generation, lost, this.nodeTasks(), readsBefore);
        this.emit('rebalance', { generation: ++this.generation, activeTasks: thread.activeTasks().map((t) => t.taskId), standbyTasks: [...(this.standbys?.assigned ?? [])] });
      });
    });
    thread.on('restore', (store, progress) => this.onRestore({ store, ...progress }));
    thread.on('fatal', (error) => void this.onThreadFailed(thread, error));
    thread.on('groupWait', (reason) => this.emit('state', { state: this.state, previous: this.state, since: this.stateSince, reason }));
    return thread;
  }

  /** The instance's threads no longer take a share of the node's memory budget. */
  private leaveMemoryBudget(): void {
    if (this.memoryBudget === undefined) return;
    for (const thread of this.streamThreads) this.memoryBudget.leave(thread);
    if (this.globalThread !== undefined) this.memoryBudget.leave(this.globalThread);
    if (this.standbys !== undefined) this.memoryBudget.leave(this.standbys);
    this.memoryBudget.off('pressure', this.onMemoryPressure);
  }

  private onRestore(event: RestoreEvent): void {
    this.rebalanceTimeline.restore(event);
    this.emit('restore', event);
  }

  /** The tasks this node holds now, for the timeline's before and after. */
  private nodeTasks(): NodeTasks {
    const active = this.streamThreads.filter((t) => t.live).flatMap((t) => t.activeTasks().map((task) => task.taskId));
    return { active, standby: [...(this.standbys?.assigned ?? [])], warmup: this.group.warmupTasks };
  }

  /** The rebalances this node took part in and its restores, oldest first (the last TIMELINE_CAPACITY). */
  timeline(): TimelineEntry[] {
    return this.rebalanceTimeline.entries();
  }

  private onThreadStateChange(): void {
    const state = this.machine.state;
    if (state === 'PENDING_SHUTDOWN' || state === 'NOT_RUNNING' || state === 'PENDING_ERROR' || state === 'ERROR') return;
    // With none left (removeStreamThread took the last), the instance stays RUNNING, as Kafka Streams does.
    const allRunning = this.streamThreads.every((t) => t.state === 'RUNNING');
    if (allRunning) this.recovery.recovered();
    if (allRunning && state !== 'RUNNING') this.machine.transition('RUNNING');
    else if (!allRunning && state === 'RUNNING') this.machine.transition('REBALANCING');
  }

  /** Waits for the host map refresh under way (tests and the query layer use it after a rebalance). */
  hostMapSettled(): Promise<void> {
    return this.group.settled();
  }

  /**
   * A thread failed. Under exactly-once, lost transactions and a broker out of reach replace it within
   * task.timeout.ms, as Kafka Streams recovers from them inside the thread; any other failure goes to the
   * uncaught-exception handler.
   */
  private async onThreadFailed(failed: StreamThreadHandle, error: Error): Promise<void> {
    if (this.closeBegun || this.error) return;
    this.clientMetrics.failedStreamThreads.record(1);
    const recoverable = this.recovery.recoverable(error);
    const response = recoverable ? 'REPLACE_THREAD' : uncaughtResponse(this.uncaughtExceptionHandler, error, this.logger);
    this.emit('thread', { thread: failed.name, action: 'failed', error: error.message, response });
    if (response === 'SHUTDOWN_CLIENT') return this.failWith(error);
    if (response === 'SHUTDOWN_APPLICATION') return this.shutDownApplication(failed, error);
    // Its member leaves the group as it closes: the other threads' rebalance.
    this.rebalanceTimeline.cause({ type: 'thread_failed', thread: failed.name, error: error.message });
    if (recoverable) this.logger.warn({ err: error, thread: failed.name }, 'stream thread lost its transactions; replacing it (its tasks restore from their changelogs)');
    else this.logger.warn({ err: error, thread: failed.name }, 'stream thread failed; the uncaught-exception handler replaces it');
    // Closing aborts each task's transaction, which waits out kafkajs' retries while the broker is away; the
    // replacement starts meanwhile (its producers fence the old ones), and each of its tasks opens once the failed
    // thread has closed it (the task locks are per thread).
    const closed = failed.close().catch((e: unknown) => this.logger.warn({ err: e, thread: failed.name }, 'closing the failed thread failed'));
    await withTimeout(closed, FAILED_THREAD_CLOSE_MS);
    const slot = this.streamThreads.indexOf(failed);
    if (this.closeBegun || this.error || slot < 0) return;
    const replacement = this.createThread(failed.slot, this.cacheBytesForNewThread(), this.memoryBudget?.fetchBytesPerConsumer(2));
    this.streamThreads[slot] = replacement;
    this.rebalanceTimeline.cause({ type: 'thread_replaced', thread: failed.name, replacement: replacement.name });
    this.rebalanceTimeline.joining();
    this.emit('thread', { thread: failed.name, action: 'replaced', replacement: replacement.name });
    this.onThreadStateChange();
    // A start that fails (the broker still out of reach: kafkajs has retried its connection for seconds) comes back here.
    await replacement.start().catch((e: unknown) => this.onThreadFailed(replacement, asError(e)));
  }

  /** SHUTDOWN_APPLICATION: a thread of this node (the failed one when it is the only one) asks every node to shut down. */
  private async shutDownApplication(failed: StreamThreadHandle, error: Error): Promise<void> {
    this.logger.error({ err: error, thread: failed.name }, 'stream thread failed; the uncaught-exception handler shuts the whole application down');
    await this.group.requestShutdown(error, this.streamThreads.find((t) => t !== failed && t.live) ?? failed);
    return this.failWith(error);
  }

  private async failWith(error: Error): Promise<void> {
    if (this.error) return;
    if (this.closeBegun) {
      this.logger.debug({ err: error }, 'failure while closing, a consequence of the close');
      return;
    }
    this.error = error;
    this.logger.error({ err: error }, 'instance failed');
    // Set before the transition: a state listener may call close() at PENDING_ERROR, and must wait for this.
    let failed!: () => void;
    this.failing = new Promise<void>((resolve) => (failed = resolve));
    try {
      if (!this.machine.tryTransition('PENDING_ERROR')) return;
      // An EventEmitter throws on an 'error' nobody listens to; the error is kept in lastError anyway.
      if (this.listenerCount('error') > 0) this.emit('error', error);
      await this.shutdown();
      this.machine.transition('ERROR');
    } finally {
      failed();
    }
  }

  private async shutdown(leaveGroup = false): Promise<void> {
    this.group.stop();
    this.statistics?.stop();
    await Promise.all(this.streamThreads.map((t) => t.close().catch((e) => this.logger.warn({ err: e }, 'closing a thread failed'))));
    // Static members are removed once every thread has stopped: one still running would join again, and a thread
    // still committing would meet the rebalance that the first removal starts.
    if (leaveGroup) await this.group.removeStaticMembers();
    await this.standbys?.close().catch((e: unknown) => this.logger.warn({ err: e }, 'closing the standby tasks failed'));
    // After the stream threads, whose processors read the global stores until they close.
    await this.globalThread?.close().catch((e: unknown) => this.logger.warn({ err: e }, 'closing the global stores failed'));
    this.leaveMemoryBudget();
    await this.admin?.disconnect().catch(() => undefined);
    this.group.hostMap.reset();
  }

  /**
   * Stops the threads (they commit, and leave the group unless they are static members) and closes the stores. An
   * instance that is failing (PENDING_ERROR) is not closed again: as in Kafka Streams, this waits until it is in
   * ERROR. With static membership (group.instance.id) the threads keep their place in the group for
   * session.timeout.ms, so that a restart within it moves no task, unless `leaveGroup` (Kafka Streams'
   * CloseOptions.leaveGroup): then they are removed from the group once stopped, and their partitions move at once.
   */
  async close(options: { timeoutMs?: number; leaveGroup?: boolean } = {}): Promise<void> {
    if (this.state === 'NOT_RUNNING' || this.state === 'ERROR') {
      // Closed already (a stop without leaveGroup, or a failure): its threads have stopped, their members may go.
      if (options.leaveGroup) await this.group.removeStaticMembers();
      return;
    }
    if (this.closing) return this.closing;
    if (this.state === 'PENDING_ERROR') return withTimeout(this.failing ?? Promise.resolve(), options.timeoutMs);
    this.machine.transition('PENDING_SHUTDOWN');
    this.closing = (async () => {
      // A global restore under way would hold the start, and so this close, until it ends.
      if (this.globalThread && !this.globalThread.isRestored) await this.globalThread.close();
      await this.starting?.catch(() => undefined);
      await withTimeout(this.shutdown(options.leaveGroup), options.timeoutMs);
      this.clientMetrics.unregister();
      this.machine.transition('NOT_RUNNING');
    })();
    return this.closing;
  }

  /** Removes this application's local state; only while not running. */
  cleanUp(): void {
    if (this.state !== 'CREATED' && this.state !== 'NOT_RUNNING' && this.state !== 'ERROR') {
      throw new IllegalState(`cannot clean up while the instance is ${this.state}`);
    }
    this.parts.stateDirectory.cleanUp();
  }

  threads(): ThreadMetadata[] {
    const standbys = this.standbys?.status() ?? [];
    return this.streamThreads.map((t, i) => threadMetadata(t, this.clientId, this.config.processingGuarantee === 'exactly_once_v2', i === 0 ? standbys : []));
  }

  allMetadata(): StreamsMetadata[] {
    return this.group.hostMap.allMetadata();
  }

  metadataForStore(store: string): StreamsMetadata[] {
    return this.group.hostMap.metadataForStore(store);
  }

  keyQueryMetadata(store: string, keyBytes: Buffer): KeyQueryMetadata | undefined {
    return this.group.hostMap.keyQueryMetadata(store, keyBytes);
  }

  sourceTopicsForStore(store: string): string[] | undefined {
    return this.group.hostMap.sourceTopicsForStore(store);
  }

  storePartitionCount(store: string): number | undefined {
    return this.group.hostMap.partitionCount(store);
  }

  hasStore(store: string): boolean {
    return this.stores.hasStore(store);
  }

  isGlobalStore(store: string): boolean {
    return this.stores.isGlobalStore(store);
  }

  queryableStores(store: string): Map<number, StateStore> {
    return this.stores.queryableStores(store);
  }

  queryableStore(store: string, partition?: number): StateStore | undefined {
    return this.stores.queryableStore(store, partition);
  }

  workerStores(store: string): WorkerStorePartitions[] {
    return this.stores.workerStores(store);
  }

  standbyReplicas(store: string): Map<number, StandbyReplica> {
    return this.stores.standbyReplicas(store);
  }

  standbyStores(store: string): Map<number, StateStore> {
    return this.stores.standbyStores(store);
  }

  /** Low and high watermark per partition of a topic, cached briefly. */
  endOffsets(topic: string): Promise<Map<number, { low: number; high: number }>> {
    return this.offsetReader.endOffsets(topic);
  }

  async offsets(): Promise<ConsumerOffsets> {
    const running = this.state === 'RUNNING' || this.state === 'REBALANCING';
    return consumerOffsets(this.applicationId, running ? this.streamThreads : [], (topic) => this.endOffsets(topic));
  }

  storeStatus(): Promise<StorePartitionStatus[]> {
    return storeStatus(this.streamThreads, (topic) => this.endOffsets(topic));
  }
}

/** How long a failed thread's close may delay its replacement. */
const FAILED_THREAD_CLOSE_MS = 10_000;
