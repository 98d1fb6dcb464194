import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { Logger } from 'pino';
import { IllegalState, StreamsException } from '../../errors';
import { cacheMaxBytes } from '../config/config-lookup';
import { createKafkaClients, defaultKafkaLogLevel, readableKafkaLogs, removeStaticMembers, type SluiceLogLevel, type KafkaAdmin, type KafkaClients, type OAuthBearerTokenProvider } from '../kafka';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { createClientMetrics } from '../metrics/streams-metrics';
import type { ClientMetrics } from '../metrics/streams-metrics';
import { serdeByName } from '../serdes/serde-by-name';
import type { StateStore } from '../state/store';
import type { TopologyDescription } from '../topology/description';
import { describeAsText } from '../topology/description';
import type { Topology } from '../topology/topology';
import type {
  ConsumerOffsets,
  InstanceView,
  StorePartitionStatus,
  StreamsEvents,
  ThreadMetadata,
} from './instance-view';
import { InstanceStores } from './instance-stores';
import type { StandbyReplica, WorkerStorePartitions } from './queryable-stores';
import { StreamsPartitionAssignor } from './assignment/streams-partition-assignor';
import type { SubscriptionFacts } from './assignment/subscription-info';
import { asError, type ExceptionHandlers, type StreamsUncaughtExceptionHandler, type StreamThreadExceptionResponse, THREAD_EXCEPTION_RESPONSES } from './exception-handlers';
import type { GlobalStreamThread } from './global-stream-thread';
import type { StandbyTasks } from './standby-task';
import { consumerOffsets, storeStatus, threadMetadata } from './instance-reports';
import { InternalTopicManager } from './internal-topic-manager';
import { OffsetReader } from './offset-reader';
import { StateDirectory } from './state-directory';
import type { StreamsConfig } from './streams-config';
import { parseStreamsConfig } from './streams-config';
import type { KeyQueryMetadata, StreamsMetadata } from './streams-metadata';
import { StreamsMetadataState } from './streams-metadata';
import { StreamsStateMachine } from './streams-state';
import type { StreamsState } from './streams-state';
import { StreamThread } from './stream-thread';
import type { StreamThreadHandle } from './stream-thread-handle';
import { ThreadFactory } from './thread-factory';
import { cacheBytesPerThread } from './thread-cache-share';
import type { TopologySource } from './worker/topology-source';
import { WorkerStreamThread } from './worker/worker-stream-thread';
import { ThreadRecovery } from './thread-recovery';
import { TopologyMetadata } from './topology-metadata';
import { loadStoreConfigSetter, StoreStatisticsDumper } from './store-statistics';
import { withTimeout } from './with-timeout';

export const SLUICE_VERSION = '0.1.0';

export interface StreamsInstanceOptions {
  logger?: Logger;
  /** Where kafkajs' lines go, at its level (log.components.kafka); default the instance's logger, at warn. */
  kafkaLogger?: Logger;
  /** The token for SASL/OAUTHBEARER (`sasl.mechanism=OAUTHBEARER` without a `file:` token endpoint); called per login. */
  oauthBearerTokenProvider?: OAuthBearerTokenProvider;
  /** Handlers in code, in place of those the configuration names (Kafka Streams takes a class name; Sluice also a function). */
  exceptionHandlers?: Partial<ExceptionHandlers>;
  /**
   * A module that builds the same topology: the stream threads past the first each run in a worker thread, which
   * builds the topology from it, so that `num.stream.threads` threads use as many cores. Without it every thread
   * shares this event loop.
   */
  topologySource?: TopologySource;
}

/**
 * A running application (Kafka Streams' `KafkaStreams`): it creates the internal topics, runs
 * `num.stream.threads` stream threads in the application's consumer group, keeps the host map, and moves
 * through Kafka Streams' states. Construction validates the configuration; `start` connects.
 */
export class StreamsInstance extends EventEmitter<StreamsEvents> implements InstanceView {
  readonly config: StreamsConfig;
  readonly applicationId: string;
  readonly metrics = new MetricsRegistry();
  readonly createdAt = Date.now();
  readonly processId: string;
  private readonly machine: StreamsStateMachine;
  private readonly logger: Logger;
  private readonly stateDirectory: StateDirectory;
  private readonly metadataState: StreamsMetadataState;
  private readonly stores: InstanceStores;
  private readonly recovery: ThreadRecovery;
  private readonly factory: ThreadFactory;
  /** The number the next thread's name takes: 1, 2, ... for the first threads, then on for their replacements. */
  private nextThreadNumber = 1;
  private readonly clientMetrics: ClientMetrics;
  private readonly kafka: KafkaClients;
  private readonly metadata: TopologyMetadata;
  private patternTimer: NodeJS.Timeout | undefined;
  private generation = 0;
  private admin: KafkaAdmin | undefined;
  private topics: InternalTopicManager | undefined;
  private streamThreads: StreamThreadHandle[] = [];
  private partitionCounts = new Map<string, number>();
  private readonly offsetReader: OffsetReader;
  private error: Error | undefined;
  private closing: Promise<void> | undefined;
  /** The shutdown after a fatal error, until the instance is in ERROR. */
  private failing: Promise<void> | undefined;
  /** The start under way: a close waits for it, so no thread starts after the close. */
  private starting: Promise<void> | undefined;
  private hostMapRefresh: Promise<void> = Promise.resolve();
  private hostMapTimer: NodeJS.Timeout | undefined;
  private readonly assignor: StreamsPartitionAssignor;
  private readonly statistics: StoreStatisticsDumper | undefined;
  /** Standby tasks of this node; undefined with num.standby.replicas 0. */
  private standbys: StandbyTasks | undefined;
  /** The global stores of this node; undefined when the topology has none. */
  private readonly globalThread: GlobalStreamThread | undefined;
  private uncaughtExceptionHandler: StreamsUncaughtExceptionHandler;
  /** The failure this node asked the application to shut down for (SHUTDOWN_APPLICATION); every join carries it. */
  private shutdownRequest: Error | undefined;

  constructor(
    readonly topology: Topology,
    config: Readonly<Record<string, unknown>>,
    options: StreamsInstanceOptions = {},
  ) {
    super();
    const parsed = parseStreamsConfig(config);
    this.config = { ...parsed, exceptionHandlers: { ...parsed.exceptionHandlers, ...options.exceptionHandlers } };
    this.applicationId = this.config.applicationId;
    this.logger = (options.logger ?? pino({ level: 'info' })).child({ applicationId: this.applicationId });
    const kafkaLogger = options.kafkaLogger?.child({ applicationId: this.applicationId }) ?? this.logger.child({}, { level: defaultKafkaLogLevel(this.logger.level) });
    if (this.config.notApplied.length > 0) {
      this.logger.warn({ keys: this.config.notApplied }, `configuration not applied by Sluice (accepted for Kafka Streams compatibility): ${this.config.notApplied.join(', ')}`);
    }
    const defaultKeySerde = serdeByName(this.config.defaultKeySerde);
    const defaultValueSerde = serdeByName(this.config.defaultValueSerde);
    this.stateDirectory = new StateDirectory(this.config.stateDir, this.applicationId);
    const configureStore = this.config.embeddedStoreConfigSetter ? loadStoreConfigSetter(this.config.embeddedStoreConfigSetter) : undefined;
    this.statistics = this.config.statsEnable
      ? new StoreStatisticsDumper({
          logDir: this.config.logDir,
          applicationId: this.applicationId,
          periodSec: this.config.statsDumpPeriodSec,
          maxFileSize: this.config.logMaxFileSize,
          stores: () =>
            this.inProcessThreads().flatMap((t) => [...t.tasks.all()].flatMap((active) => [...active.task.stores.values()].map((store) => ({ taskId: active.name, store })))),
        })
      : undefined;
    this.offsetReader = new OffsetReader(this.applicationId, () => this.admin);
    this.processId = this.stateDirectory.processId([...topology.stores()].some((s) => s.persistent));
    this.kafka = createKafkaClients(
      {
        bootstrapServers: this.config.bootstrapServers,
        clientId: this.clientId,
        logger: readableKafkaLogs(kafkaLogger),
        logLevel: kafkaLogger.level as SluiceLogLevel,
        ...(options.oauthBearerTokenProvider ? { oauthBearerTokenProvider: options.oauthBearerTokenProvider } : {}),
        // A refused login or an untrusted certificate fails the instance at once: no retry cures it.
        onSecurityFailure: (error) => void this.failWith(error),
      },
      this.config.security,
    );
    this.metadata = new TopologyMetadata(topology, this.applicationId);
    this.factory = new ThreadFactory(
      {
        config: this.config,
        givenConfig: config,
        clientId: this.clientId,
        metadata: this.metadata,
        kafka: this.kafka,
        stateDirectory: this.stateDirectory,
        defaultKeySerde,
        defaultValueSerde,
        configureStore,
        partitionCounts: this.partitionCounts,
        metrics: this.metrics,
        logger: this.logger,
        kafkaLogger,
      },
      {
        assign: (members, partitionCount, topics) => this.assignor.assign(members, partitionCount, topics),
        committedOffsets: (partitions) => this.offsetReader.committedOffsets(partitions),
        subscriptionFacts: () => this.subscriptionFacts(),
        publishEvent: (event) => this.emit('topologyEvent', event),
        onRestore: (store, progress) => this.emit('restore', { store, ...progress }),
        onGlobalError: (error) => void this.failWith(error),
        heldByActive: (taskId) => this.streamThreads.some((t) => t.holds(taskId)),
      },
      options,
    );
    this.globalThread = topology.globalStores().length > 0 ? this.factory.globalThread(this.cacheBytesPerThread(this.config.numStreamThreads)) : undefined;
    this.metadataState = new StreamsMetadataState(this.metadata, this.processId);
    this.assignor = new StreamsPartitionAssignor({
      metadata: this.metadata,
      config: this.config,
      logger: this.logger,
      endOffsets: (topic) => this.endOffsets(topic),
      onProbingRebalance: () => {
        if (this.closeBegun) return;
        this.logger.info('probing rebalance: joining the group again to move the warmed-up tasks');
        for (const thread of this.streamThreads) thread.requestRejoin();
      },
    });
    this.stores = new InstanceStores({
      metadata: this.metadata,
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
    });
  }

  get clientId(): string {
    return `${this.applicationId}-${this.processId}`;
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
    const thread = this.createThread(this.freeThreadSlot(), this.cacheBytesForNewThread());
    this.streamThreads.push(thread);
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
    this.starting = this.connectAndStartThreads();
    return this.starting;
  }

  private async connectAndStartThreads(): Promise<void> {
    try {
      this.admin = this.kafka.admin.admin();
      this.topics = new InternalTopicManager(this.admin, this.metadata, this.config, this.partitionCounts, this.logger);
      await this.topics.prepare(() => this.state === 'REBALANCING');
      // Kafka Streams restores the global stores before its stream threads start: their tasks read them from the first record.
      await this.globalThread?.start(this.partitionCounts);
      if (this.closeBegun) return;
      // Warm-up replicas run as standbys: a stateful topology has them even with no standby replicas configured.
      if (this.config.numStandbyReplicas > 0 || this.metadata.subtopologies.some((sub) => sub.stores.length > 0)) this.standbys = this.factory.standbyTasks();
      const cacheBytes = this.cacheBytesPerThread(this.config.numStreamThreads);
      for (let i = 0; i < this.config.numStreamThreads; i++) this.streamThreads.push(this.createThread(i, cacheBytes));
      // Every thread connects before any joins: their first joins then reach the group together. Else the first to
      // connect runs every task alone until the others' joins reach it at its next heartbeat, then gives half away.
      await Promise.all(this.streamThreads.map((t) => t.prepare()));
      await Promise.all(this.streamThreads.map((t) => t.start()));
      this.statistics?.start();
      this.hostMapTimer = setInterval(() => this.refreshHostMap(), 10_000);
      this.hostMapTimer.unref();
      if (this.metadata.hasPatterns) {
        // Kafka Streams picks up new topics that match a source pattern when its consumer refreshes metadata.
        this.patternTimer = setInterval(() => void this.subscribeNewPatternTopics(), this.config.metadataMaxAgeMs);
        this.patternTimer.unref();
      }
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
  private createThread(index: number, cacheBytes: number): StreamThreadHandle {
    const number = this.nextThreadNumber++;
    const thread = this.factory.streamThread(index, number, cacheBytes, this.standbys, this.globalThread);
    thread.on('state', () => this.onThreadStateChange());
    thread.on('assignment', () => {
      // After the host map: it brings this node's standbys of the new assignment.
      void this.refreshHostMap().then(() =>
        this.emit('rebalance', { generation: ++this.generation, activeTasks: thread.activeTasks().map((t) => t.taskId), standbyTasks: [...(this.standbys?.assigned ?? [])] }),
      );
    });
    thread.on('restore', (store, progress) => this.emit('restore', { store, ...progress }));
    thread.on('fatal', (error) => void this.onThreadFailed(thread, error));
    thread.on('groupWait', (reason) => this.emit('state', { state: this.state, previous: this.state, since: this.stateSince, reason }));
    return thread;
  }

  /** What the threads in workers subscribe with changed: they are told (kafkajs asks for a subscription synchronously). */
  private factsChanged(): void {
    const facts = this.subscriptionFacts();
    for (const thread of this.streamThreads) if (thread instanceof WorkerStreamThread) thread.updateFacts(facts);
  }

  /** What every thread's subscription says of this process. */
  private subscriptionFacts(): SubscriptionFacts {
    return {
      processId: this.processId,
      ...(this.config.applicationServer ? { endpoint: this.config.applicationServer } : {}),
      ...(this.config.grpcEndpoint ? { grpcEndpoint: this.config.grpcEndpoint } : {}),
      standbyTasks: [...(this.standbys?.assigned ?? [])],
      shutdownRequested: this.shutdownRequest !== undefined,
    };
  }

  /** Every thread adds the topics created since that match a source pattern to its subscription. */
  private async subscribeNewPatternTopics(): Promise<void> {
    const topics = this.topics;
    if (!topics || this.state === 'PENDING_SHUTDOWN' || this.state === 'NOT_RUNNING') return;
    try {
      const fresh = await topics.newPatternTopics();
      if (fresh.length === 0) return;
      for (const thread of this.streamThreads) if (thread instanceof WorkerStreamThread) thread.updatePartitionCounts(this.partitionCounts);
      this.logger.info({ topics: fresh }, 'new topics match a source pattern; subscribing');
      await Promise.all(this.streamThreads.map((thread) => thread.subscribeTo(fresh)));
    } catch (error) {
      this.logger.warn({ err: error }, 'subscribing to new topics of a source pattern failed; trying again at the next metadata refresh');
    }
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

  /** Reads the group: the host map, this node's standbys, or a shutdown request; one read at a time. */
  private refreshHostMap(): Promise<void> {
    const admin = this.admin;
    if (!admin) return this.hostMapRefresh;
    this.hostMapRefresh = this.hostMapRefresh.then(async () => {
      try {
        const news = await this.metadataState.refresh(admin, this.applicationId, this.partitionCounts);
        if (news?.shutdownRequestedBy !== undefined) {
          void this.failWith(this.shutdownRequest ?? new StreamsException(`node ${news.shutdownRequestedBy} shut the application down (SHUTDOWN_APPLICATION)`));
          return;
        }
        if (news?.localStandbyTasks && this.standbys && !this.closeBegun) {
          void this.standbys.apply(news.localStandbyTasks);
          this.factsChanged();
        }
      } catch (error) {
        this.logger.warn({ err: error }, 'reading the consumer group for the host map failed');
      }
    });
    return this.hostMapRefresh;
  }

  /** The threads on this event loop, whose stores are read here. */
  private inProcessThreads(): StreamThread[] {
    return this.streamThreads.filter((t) => t instanceof StreamThread);
  }

  /** Waits for the host map refresh under way (tests and the query layer use it after a rebalance). */
  async hostMapSettled(): Promise<void> {
    await this.hostMapRefresh;
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
    const response = recoverable ? 'REPLACE_THREAD' : this.uncaughtResponse(error);
    this.emit('thread', { thread: failed.name, action: 'failed', error: error.message, response });
    if (response === 'SHUTDOWN_CLIENT') return this.failWith(error);
    if (response === 'SHUTDOWN_APPLICATION') return this.shutDownApplication(failed, error);
    if (recoverable) this.logger.warn({ err: error, thread: failed.name }, 'stream thread lost its transactions; replacing it (its tasks restore from their changelogs)');
    else this.logger.warn({ err: error, thread: failed.name }, 'stream thread failed; the uncaught-exception handler replaces it');
    // Closing aborts each task's transaction, which waits out kafkajs' retries while the broker is away; the
    // replacement starts meanwhile (its producers fence the old ones), and each of its tasks opens once the failed
    // thread has closed it (the task locks are per thread).
    const closed = failed.close().catch((e: unknown) => this.logger.warn({ err: e, thread: failed.name }, 'closing the failed thread failed'));
    await withTimeout(closed, FAILED_THREAD_CLOSE_MS);
    const slot = this.streamThreads.indexOf(failed);
    if (this.closeBegun || this.error || slot < 0) return;
    const replacement = this.createThread(failed.slot, this.cacheBytesForNewThread());
    this.streamThreads[slot] = replacement;
    this.emit('thread', { thread: failed.name, action: 'replaced', replacement: replacement.name });
    this.onThreadStateChange();
    // A start that fails (the broker still out of reach: kafkajs has retried its connection for seconds) comes back here.
    await replacement.start().catch((e: unknown) => this.onThreadFailed(replacement, asError(e)));
  }

  /** The handler's response; one that throws or answers something else shuts the client down, as in Kafka Streams. */
  private uncaughtResponse(error: Error): StreamThreadExceptionResponse {
    try {
      const response = this.uncaughtExceptionHandler(error);
      if (THREAD_EXCEPTION_RESPONSES.includes(response)) return response;
      this.logger.error({ response }, 'the uncaught-exception handler answered no known response; shutting the client down');
    } catch (thrown) {
      this.logger.error({ err: thrown }, 'the uncaught-exception handler threw; shutting the client down');
    }
    return 'SHUTDOWN_CLIENT';
  }

  /**
   * SHUTDOWN_APPLICATION, through the group as Kafka Streams does it: a thread of this node joins again with the
   * request in its subscription (the failed thread itself when it is the only one: its consumer is still in the
   * group), the leader gives every member no task and the request in its assignment, and each node that reads
   * it goes to ERROR. This node goes to ERROR when it has seen the request assigned, or after
   * SHUTDOWN_REQUEST_WAIT_MS (a group out of reach, or a consumer that failed with the thread).
   */
  private async shutDownApplication(failed: StreamThreadHandle, error: Error): Promise<void> {
    this.logger.error({ err: error, thread: failed.name }, 'stream thread failed; the uncaught-exception handler shuts the whole application down');
    this.shutdownRequest = error;
    this.factsChanged();
    const messenger = this.streamThreads.find((t) => t !== failed && t.live) ?? failed;
    messenger.sendShutdownRequest();
    const deadline = Date.now() + SHUTDOWN_REQUEST_WAIT_MS;
    while (!this.error && !this.closeBegun && Date.now() < deadline) {
      await this.refreshHostMap();
      if (!this.error) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (!this.error && !this.closeBegun) this.logger.error(`the shutdown request was not seen assigned within ${SHUTDOWN_REQUEST_WAIT_MS} ms; shutting this node down`);
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
    if (this.hostMapTimer) clearInterval(this.hostMapTimer);
    this.assignor.close();
    if (this.patternTimer) clearInterval(this.patternTimer);
    this.statistics?.stop();
    await Promise.all(this.streamThreads.map((t) => t.close().catch((e) => this.logger.warn({ err: e }, 'closing a thread failed'))));
    // Static members are removed once every thread has stopped: one still running would join again, and a thread
    // still committing would meet the rebalance that the first removal starts.
    if (leaveGroup) await this.removeStaticMembers();
    await this.standbys?.close().catch((e: unknown) => this.logger.warn({ err: e }, 'closing the standby tasks failed'));
    // After the stream threads, whose processors read the global stores until they close.
    await this.globalThread?.close().catch((e: unknown) => this.logger.warn({ err: e }, 'closing the global stores failed'));
    await this.admin?.disconnect().catch(() => undefined);
    this.metadataState.reset();
  }

  /** Kafka Streams' close with leaveGroup for static members: the threads' instance ids leave the group now. */
  private async removeStaticMembers(): Promise<void> {
    const instanceId = this.config.groupInstanceId;
    if (instanceId === undefined) return;
    const ids = this.streamThreads.map((t) => `${instanceId}-${t.slot + 1}`);
    try {
      const { removed, absent } = await removeStaticMembers(this.kafka.admin, this.applicationId, ids);
      this.logger.info({ removed, absent }, 'left the group: the static members were removed, their partitions move now');
    } catch (error) {
      this.logger.warn({ err: error, members: ids }, `the static members could not be removed; their partitions move after session.timeout.ms (${this.config.sessionTimeoutMs} ms)`);
    }
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
      if (options.leaveGroup) await this.removeStaticMembers();
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
    this.stateDirectory.cleanUp();
  }

  threads(): ThreadMetadata[] {
    const standbys = this.standbys?.status() ?? [];
    return this.streamThreads.map((t, i) => threadMetadata(t, this.clientId, this.config.processingGuarantee === 'exactly_once_v2', i === 0 ? standbys : []));
  }

  allMetadata(): StreamsMetadata[] {
    return this.metadataState.allMetadata();
  }

  metadataForStore(store: string): StreamsMetadata[] {
    return this.metadataState.metadataForStore(store);
  }

  keyQueryMetadata(store: string, keyBytes: Buffer): KeyQueryMetadata | undefined {
    return this.metadataState.keyQueryMetadata(store, keyBytes);
  }

  sourceTopicsForStore(store: string): string[] | undefined {
    return this.metadataState.sourceTopicsForStore(store);
  }

  storePartitionCount(store: string): number | undefined {
    return this.metadataState.partitionCount(store);
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
/** How long a node that asked the application to shut down waits to see the request go round the group. */
const SHUTDOWN_REQUEST_WAIT_MS = 60_000;
