import { StreamsException } from '../../errors';
import { ChangelogReader, type StreamsEndpointPartitions, type TopicPartition } from '../kafka';
import type { StreamsPartitionAssignor } from './assignment/streams-partition-assignor';
import { type SubscriptionFacts, subscriptionInfo } from './assignment/subscription-info';
import type { RestoreProgress } from './changelog-restorer';
import { GlobalStreamThread } from './global-stream-thread';
import type { StreamsInstanceOptions, ThreadParts } from './instance-parts';
import type { TopologyEvent } from './instance-view';
import { StandbyTasks, standbyTaskFactory } from './standby-task';
import { StreamThread } from './stream-thread';
import type { StreamThreadHandle } from './stream-thread-handle';
import { TaskCheckpoints } from './task-checkpoints';
import { streamsGroupThreadClients } from './streams-group-member';
import { kafkaThreadClients, type ThreadClientsFactory } from './thread-clients';
import type { TopologySource } from './worker/topology-source';
import { WorkerStreamThread } from './worker/worker-stream-thread';
import type { WorkerTracing } from './worker/worker-tracing';

/** What the threads ask of their instance. */
export interface ThreadInstance {
  /** The leader's assignment, when a thread's consumer leads the group. */
  readonly assign: StreamsPartitionAssignor['assign'];
  committedOffsets(partitions: readonly TopicPartition[]): Promise<{ tp: TopicPartition; offset: number }[]>;
  /** What every thread's subscription says of this process. */
  subscriptionFacts(): SubscriptionFacts;
  publishEvent(event: TopologyEvent): void;
  /** The global stores' restoration. */
  onRestore(store: string, progress: RestoreProgress): void;
  /** The global stores failed: the instance fails. */
  onGlobalError(error: Error): void;
  /** Whether a stream thread of the instance holds the task active. */
  heldByActive(taskId: string): boolean;
  /** Under the streams protocol, where every member's partitions are, as a thread's heartbeat last told. */
  streamsEndpoints(endpoints: readonly StreamsEndpointPartitions[]): void;
  /** Under the streams protocol, a member asked the application to shut down. */
  streamsShutdown(detail: string): void;
}

/**
 * Builds an instance's threads: each stream thread, on this event loop or in a worker of its own, the global
 * stream thread, and the standby tasks' updater.
 */
export class ThreadFactory {
  /** Where the threads in workers build the topology from; undefined: every thread runs on this event loop. */
  private readonly workerTopology: TopologySource | undefined;

  constructor(
    private readonly parts: ThreadParts & { readonly processId: string },
    private readonly instance: ThreadInstance,
    given: StreamsInstanceOptions,
  ) {
    this.workerTopology = given.topologySource && this.workerThreadsAllowed(given) ? given.topologySource : undefined;
    const traced = given.traceRecords;
    this.workerTracing = traced?.workerTracer === undefined ? undefined : { startRatio: traced.startRatio, tracer: traced.workerTracer };
    // Each stream thread's heap its share of the memory budget's heap part: a worker's V8 heap is its own.
    const heap = given.memoryBudget?.heapBytes().budget;
    this.workerHeapMb = heap === undefined ? undefined : Math.max(16, Math.floor(heap / parts.config.numStreamThreads / 1024 / 1024));
  }

  /** The V8 heap limit of each worker under the node's memory budget; none without one. */
  private readonly workerHeapMb: number | undefined;

  /** How each worker traces its records; none when the instance's records are not traced. */
  private readonly workerTracing: WorkerTracing | undefined;

  /**
   * The stream thread in slot `index`, named by `number`; the first always on this event loop. `fetchBytes`: the
   * memory budget's share for its group consumer.
   */
  streamThread(index: number, number: number, cacheBytes: number, fetchBytes: number | undefined, standbys: StandbyTasks | undefined, globalThread: GlobalStreamThread | undefined): StreamThreadHandle {
    return index > 0 && this.workerTopology
      ? this.workerThread(index, number, cacheBytes, fetchBytes, this.workerTopology, standbys)
      : this.inProcessThread(index, number, cacheBytes, fetchBytes, standbys, globalThread);
  }

  /** The node's global stores: a reader of their topics of its own, as Kafka Streams' global consumer. */
  globalThread(cacheBytes: number): GlobalStreamThread {
    const { config, metadata, stateDirectory, kafka, clientId } = this.parts;
    const logger = this.parts.logger.child({ thread: `${clientId}-GlobalStreamThread` });
    const exactlyOnce = config.processingGuarantee === 'exactly_once_v2';
    return new GlobalStreamThread({
      config,
      topology: metadata.topology,
      stateDirectory,
      cacheBytes,
      // Never transactional: a global store's checkpoint is written under both guarantees.
      checkpoints: new TaskCheckpoints(stateDirectory, false, logger),
      source: new ChangelogReader(kafka.globalConsumer, { readCommitted: exactlyOnce, ...config.globalConsumer }),
      defaultKeySerde: this.parts.defaultKeySerde,
      defaultValueSerde: this.parts.defaultValueSerde,
      ...(this.parts.configureStore ? { configureStore: this.parts.configureStore } : {}),
      metrics: this.parts.metrics,
      clientId,
      logger,
      onRestore: (store, progress) => this.instance.onRestore(store, progress),
      onError: (error) => this.instance.onGlobalError(error instanceof Error ? error : new StreamsException(String(error))),
    });
  }

  /** The node's standby tasks: one changelog reader for all of them, their stores opened as the stream threads' are. */
  standbyTasks(): StandbyTasks {
    const { config, metadata, stateDirectory, kafka, clientId, partitionCounts } = this.parts;
    const logger = this.parts.logger.child({ thread: `${clientId}-StandbyUpdater` });
    const exactlyOnce = config.processingGuarantee === 'exactly_once_v2';
    return new StandbyTasks({
      metadata,
      stateDirectory,
      checkpoints: new TaskCheckpoints(stateDirectory, exactlyOnce, logger),
      source: new ChangelogReader(kafka.restoreConsumer, { readCommitted: exactlyOnce, ...config.restoreConsumer }),
      createTask: standbyTaskFactory({
        config,
        metadata,
        stateDirectory,
        defaultKeySerde: this.parts.defaultKeySerde,
        defaultValueSerde: this.parts.defaultValueSerde,
        ...(this.parts.configureStore ? { configureStore: this.parts.configureStore } : {}),
      }),
      heldByActive: (taskId) => this.instance.heldByActive(taskId),
      partitionsOf: (taskId) => metadata.partitionsOfTask(taskId, partitionCounts),
      checkpointIntervalMs: Math.max(100, config.commitIntervalMs),
      retryForMs: config.taskTimeoutMs,
      metrics: this.parts.metrics,
      clientId,
      logger,
    });
  }

  private inProcessThread(index: number, number: number, cacheBytes: number, fetchBytes: number | undefined, standbys: StandbyTasks | undefined, globalThread: GlobalStreamThread | undefined): StreamThread {
    const { config, kafka, stateDirectory } = this.parts;
    return new StreamThread({
      index,
      number,
      cacheBytes,
      ...(fetchBytes === undefined ? {} : { fetchBytes }),
      clientId: this.parts.clientId,
      config,
      metadata: this.parts.metadata,
      kafka,
      clients: this.threadClients(),
      stateDirectory,
      defaultKeySerde: this.parts.defaultKeySerde,
      defaultValueSerde: this.parts.defaultValueSerde,
      partitionCounts: this.parts.partitionCounts,
      metrics: this.parts.metrics,
      logger: this.parts.logger,
      subscription: (previousTasks) => subscriptionInfo(this.instance.subscriptionFacts(), stateDirectory, previousTasks),
      committedOffsets: (partitions) => this.instance.committedOffsets(partitions),
      ...(this.parts.configureStore ? { configureStore: this.parts.configureStore } : {}),
      ...(this.parts.recordTracing ? { recordTracing: this.parts.recordTracing } : {}),
      ...(standbys ? { standbys } : {}),
      ...(globalThread ? { globalStores: globalThread.stores } : {}),
      publishEvent: (event) => this.instance.publishEvent(event),
    });
  }

  /** A thread in a worker of its own: its records, tasks and stores stay there; its metrics are listed with the instance's. */
  private workerThread(index: number, number: number, cacheBytes: number, fetchBytes: number | undefined, topology: TopologySource, standbys: StandbyTasks | undefined): WorkerStreamThread {
    const { stateDirectory, metrics, config } = this.parts;
    const thread = new WorkerStreamThread(
      {
        topology,
        config: this.parts.givenConfig,
        clientId: this.parts.clientId,
        index,
        number,
        cacheBytes,
        ...(fetchBytes === undefined ? {} : { fetchBytes }),
        logLevel: this.parts.logger.level,
        kafkaLogLevel: this.parts.kafkaLogger.level,
        partitionCounts: [...this.parts.partitionCounts],
        facts: this.instance.subscriptionFacts(),
        standbys: standbys !== undefined,
        processRun: stateDirectory.processRun,
        ...(this.workerHeapMb === undefined ? {} : { heapLimitMb: this.workerHeapMb }),
        ...(this.workerTracing === undefined ? {} : { tracing: this.workerTracing }),
      },
      {
        logger: this.parts.logger,
        kafkaLogger: this.parts.kafkaLogger,
        assign: this.instance.assign,
        committedOffsets: (partitions) => this.instance.committedOffsets(partitions),
        releaseStandby: (taskId) => standbys?.release(taskId) ?? Promise.resolve(),
        publishEvent: (event) => this.instance.publishEvent(event),
        fetchMaxBytes: { group: config.fetchMaxBytes, restore: config.restoreConsumer.maxBytes },
        onExit: (threadId) => {
          removeMetrics();
          stateDirectory.releaseLocksOfThread(threadId);
        },
      },
    );
    const removeMetrics = metrics.addSource(() => thread.metrics());
    return thread;
  }

  /**
   * Whether threads may run in workers: a worker rebuilds the instance from its configuration and the topology
   * module, so what exists only in code here (handlers given as functions, a token provider) and global stores
   * (restored on this thread, and read by every task) keep every thread on this event loop.
   */
  /** A thread's consumer and producer: a classic group's consumer, or under the streams protocol a streams group's member. */
  private threadClients(): ThreadClientsFactory {
    const { config, kafka, metadata, partitionCounts, processId } = this.parts;
    if (config.groupProtocol === 'classic') return kafkaThreadClients(kafka, config, this.instance.assign);
    return streamsGroupThreadClients(kafka, {
      config,
      metadata,
      partitionCounts,
      processId,
      committedOffsets: (partitions) => this.instance.committedOffsets(partitions),
      onEndpoints: (endpoints) => this.instance.streamsEndpoints(endpoints),
      onShutdownRequested: (detail) => this.instance.streamsShutdown(detail),
    });
  }

  private workerThreadsAllowed(given: StreamsInstanceOptions): boolean {
    const handlersInCode = Object.keys(given.exceptionHandlers ?? {}).filter((key) => key !== 'uncaught');
    const reason =
      // A worker's thread would need the instance's host map pushed from its heartbeats: not built yet.
      this.parts.config.groupProtocol === 'streams' ? 'group.protocol=streams'
      : handlersInCode.length > 0 ? `exception handlers given in code (${handlersInCode.join(', ')})`
      : given.oauthBearerTokenProvider ? 'an OAuth token provider given in code'
      : this.parts.metadata.topology.globalStores().length > 0 ? 'global stores'
      : !cloneable(this.parts.givenConfig) ? 'configuration values that are code'
      : undefined;
    if (reason !== undefined && this.parts.config.numStreamThreads > 1) this.parts.logger.info(`the stream threads share one event loop: the topology's workers cannot have ${reason}`);
    return reason === undefined;
  }
}

/** Whether a value can be handed to a worker (structured cloning): no functions, no class instances of code. */
function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}
