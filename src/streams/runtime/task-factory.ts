import type { KafkaClient, KafkaProducer } from '../kafka';
import {
  createProcessorNodeMetrics,
  createRecordCacheMetrics,
  createStateStoreMetrics,
  createTaskMetrics,
  registerProcessorNodeCount,
  registerProcessorNodeFailures,
  registerStateStoreSize,
  storeMetricsScope,
  type ProcessorNodeMetrics,
  type RecordCacheMetrics,
  type StateStoreMetrics,
  type TaskMetrics,
  type ThreadMetrics,
} from '../metrics/streams-metrics';
import type { StateStore } from '../state/store';
import type { ThreadCache } from '../state/thread-cache';
import { KafkaRecordCollector } from './kafka-record-collector';
import type { ProduceBuffer } from './produce-buffer';
import { meteredStore } from './metered-store';
import { StreamTask } from './task';
import type { TaskFactory, TaskOutput } from './task-manager';
import { taskIdToString } from './task-id';
import { TaskTransaction } from './task-transaction';
import type { TopologyMetadata } from './topology-metadata';
import type { TopologyEvent } from './instance-view';
import type { InstanceParts } from './instance-parts';

export interface TaskFactoryOptions extends Omit<InstanceParts, 'clientId'> {
  readonly threadName: string;
  readonly metadata: TopologyMetadata;
  readonly partitionCounts: ReadonlyMap<string, number>;
  /** The transactional producers' client (exactly-once). */
  readonly producerClient: KafkaClient;
  /** The thread's producer (at-least-once), shared by its tasks. */
  readonly producer: KafkaProducer | undefined;
  /** The thread's producer buffer (`buffer.memory`), which its tasks' collectors fill and the broker empties. */
  readonly produceBuffer: ProduceBuffer;
  /** The thread's record cache, which its tasks' caching stores share. */
  readonly cache: ThreadCache;
  readonly threadMetrics: ThreadMetrics;
  readonly globalStores?: ReadonlyMap<string, StateStore>;
  readonly publishEvent?: (event: TopologyEvent) => void;
}

/**
 * Makes a thread's tasks: each with its output (under exactly-once its transaction first, which settles what a
 * previous owner left open in its changelogs), its metrics, and its stores metered.
 */
export function streamTaskFactory(options: TaskFactoryOptions): TaskFactory {
  const { config, metadata, metrics, threadName, logger } = options;
  return async (id) => {
    const taskId = taskIdToString(id);
    const taskMetrics = createTaskMetrics(metrics, threadName, taskId);
    let output: TaskOutput;
    try {
      output = await openOutput(options, taskId, taskMetrics);
    } catch (error) {
      taskMetrics.unregister();
      throw error;
    }
    const storeMetrics = new Map<string, StateStoreMetrics>();
    const sourceMetrics = new Map<string, ProcessorNodeMetrics>();
    const cacheMetrics = new Map<string, RecordCacheMetrics>();
    const task = new StreamTask(id, metadata.subtopology(id.subtopology)!.definition, metadata.topology, {
      applicationId: config.applicationId,
      config: config.values,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      collector: output.collector,
      cache: options.cache,
      taskDir: options.stateDirectory.taskDir(taskId),
      resolveTopic: (t) => metadata.topicName(t),
      changelogTopic: (s) => metadata.changelogTopic(s),
      exceptionHandlers: config.exceptionHandlers,
      ...(config.deadLetterQueueTopic === undefined ? {} : { deadLetterQueueTopic: config.deadLetterQueueTopic }),
      onDropped: (reason, record, error) => {
        taskMetrics.droppedRecords.record(1);
        logger.warn({ task: taskId, record, err: error }, `record skipped: ${reason}`);
      },
      onDeadLetter: () => taskMetrics.deadLetterQueueRecords.record(1),
      ...(options.configureStore ? { configureStore: options.configureStore } : {}),
      meterStore: (store) => {
        const scope = storeMetricsScope(store.persistent, store.type);
        const storeScope = createStateStoreMetrics(metrics, threadName, taskId, scope, store.name);
        storeMetrics.set(store.name, storeScope);
        registerStateStoreSize(metrics, storeScope, store.persistent, () => (store.isOpen() ? store.stats?.() : undefined));
        return meteredStore(store, storeScope, config.timeStoreOperations);
      },
      storeFlushed: (store, ms) => storeMetrics.get(store)?.flush.record(ms),
      // At INFO a cache read costs nothing more: the stores are not told.
      ...(config.timeStoreOperations
        ? {
            cacheRead: (store: string, hit: boolean) => {
              let cache = cacheMetrics.get(store);
              if (cache === undefined) {
                cache = createRecordCacheMetrics(metrics, threadName, taskId, store);
                cacheMetrics.set(store, cache);
              }
              cache.read(hit);
            },
          }
        : {}),
      storeRestored: (store, records) => storeMetrics.get(store)?.restore.record(records),
      ...(options.globalStores ? { globalStores: options.globalStores } : {}),
      ...(options.publishEvent ? { publishEvent: options.publishEvent } : {}),
      ...(options.recordTracing ? { recordTracing: options.recordTracing } : {}),
      wallClock: Date.now,
    });
    options.threadMetrics.taskCreated.record(1);
    // The sources' counts are their process sensors' (processed, above); the other nodes count as they process.
    for (const name of metadata.subtopology(id.subtopology)!.definition.nodes) {
      if (metadata.topology.node(name)?.kind !== 'source') registerProcessorNodeCount(metrics, threadName, taskId, name, () => task.processedBy(name));
      registerProcessorNodeFailures(metrics, threadName, taskId, name, () => task.failedAt(name));
    }
    return {
      task,
      output,
      metrics: {
        restoreRemaining: (store, remaining) => storeMetrics.get(store)?.restoreRemainingRecords.record(remaining),
        processed: (sourceNode, records, count, elapsedMs, now) => {
          taskMetrics.process.record(elapsedMs / Math.max(1, count));
          if (sourceNode === undefined) return;
          let source = sourceMetrics.get(sourceNode);
          if (!source) {
            source = createProcessorNodeMetrics(metrics, threadName, taskId, sourceNode);
            sourceMetrics.set(sourceNode, source);
          }
          for (let i = 0; i < count; i++) {
            source.process.record(1, now);
            source.recordE2eLatency.record(now - records.timestampAt(i), now);
          }
        },
      },
      release: () => {
        // The task's scope holds its stores' and processor nodes' metrics too.
        taskMetrics.unregister();
        options.threadMetrics.taskClosed.record(1);
      },
    };
  };
}

async function openOutput(options: TaskFactoryOptions, taskId: string, taskMetrics: TaskMetrics): Promise<TaskOutput> {
  const { config, partitionCounts, logger } = options;
  if (!options.producer) {
    const transaction = await TaskTransaction.open(options.producerClient, config.applicationId, taskId);
    return { transaction, collector: new KafkaRecordCollector(transaction, partitionCounts, { retryForMs: 0, buffer: options.produceBuffer }) };
  }
  const collector = new KafkaRecordCollector(options.producer, partitionCounts, {
    retryForMs: config.taskTimeoutMs,
    buffer: options.produceBuffer,
    onRetry: (error, attempt) => logger.warn({ err: error, task: taskId, attempt }, 'sending records failed; retrying until task.timeout.ms'),
    onRefused: (record, error) => {
      const response = config.exceptionHandlers.production({ taskId }, record, error);
      if (response === 'CONTINUE') {
        taskMetrics.droppedRecords.record(1);
        logger.warn({ err: error, task: taskId, topic: record.topic }, `record skipped: the broker refused it for ${record.topic}`);
      }
      return response;
    },
  });
  return { collector };
}
