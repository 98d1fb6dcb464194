/**
 * The built-in metric families of Kafka Streams, with its group, metric and tag names, so that dashboards made
 * for Kafka Streams read Sluice unchanged. Each builder registers one scope's metrics (client, thread, task,
 * processor node, state store, consumed partition) and hands back its sensors as named fields, so that the
 * runtime records with e.g. `threadMetrics.commit.record(latencyMs)`.
 *
 * Every scope's `unregister()` removes the metrics whose tags include the scope's tags: a thread takes its tasks'
 * metrics with it, a task those of its processor nodes and stores.
 */

import type { StoreStats, StoreType } from '../state/store';
import type { MetricsRegistry, MetricTags, StatDefinition } from './metrics-registry';
import type { Sensor } from './sensor';

export const CLIENT_GROUP = 'stream-metrics';
export const THREAD_GROUP = 'stream-thread-metrics';
export const TASK_GROUP = 'stream-task-metrics';
export const PROCESSOR_NODE_GROUP = 'stream-processor-node-metrics';
export const STATE_STORE_GROUP = 'stream-state-metrics';
export const CONSUMER_FETCH_GROUP = 'consumer-fetch-manager-metrics';
export const PRODUCER_GROUP = 'producer-metrics';
export const RECORD_CACHE_GROUP = 'stream-record-cache-metrics';
export const MEMORY_GROUP = 'sluice-memory-metrics';

/** The metrics of one scope, removable together. */
export interface MetricsScope {
  readonly tags: MetricTags;
  unregister(): void;
}

function scope(registry: MetricsRegistry, tags: MetricTags): MetricsScope {
  return { tags, unregister: () => void registry.removeMetrics(tags) };
}

/** Kafka's `invocationRateAndCountAndAvgAndMaxLatencySensor`: record the latency of each call, in ms. */
function latencyStats(operation: string, what: string, rateDescription: string): StatDefinition[] {
  return [
    { name: `${operation}-latency-avg`, description: `The average latency of ${what}`, stat: 'avg' },
    { name: `${operation}-latency-max`, description: `The maximum latency of ${what}`, stat: 'max' },
    { name: `${operation}-rate`, description: rateDescription, stat: 'rate' },
    { name: `${operation}-total`, description: `The total number of ${what}`, stat: 'cumulative-count' },
  ];
}

/** Kafka's `invocationRateAndCountSensor`: record() once per occurrence. */
function occurrenceStats(operation: string, rateDescription: string, totalDescription: string): StatDefinition[] {
  return [
    { name: `${operation}-rate`, description: rateDescription, stat: 'rate' },
    { name: `${operation}-total`, description: totalDescription, stat: 'cumulative-count' },
  ];
}

/** Kafka's `addRateOfSumAndSumMetricsToSensor`: record an amount; the rate and the total add the amounts up. */
function amountStats(operation: string, rateDescription: string, totalDescription: string): StatDefinition[] {
  return [
    { name: `${operation}-rate`, description: rateDescription, stat: 'sum-rate' },
    { name: `${operation}-total`, description: totalDescription, stat: 'cumulative-sum' },
  ];
}

/** Kafka's `avgAndMaxSensor`. */
function avgMaxStats(metric: string, avgDescription: string, maxDescription: string): StatDefinition[] {
  return [
    { name: `${metric}-avg`, description: avgDescription, stat: 'avg' },
    { name: `${metric}-max`, description: maxDescription, stat: 'max' },
  ];
}

/** Kafka's `addValueMetricToSensor`: the metric shows the last recorded value. */
function valueStat(name: string, description: string): StatDefinition[] {
  return [{ name, description, stat: 'value' }];
}

// ---- stream-metrics (client) -------------------------------------------------------------------------------

/** What the client-level metrics show; the functions are read at listing time. */
export interface ClientMetricsSources {
  readonly version: string;
  readonly commitId: string;
  readonly applicationId: string;
  readonly topologyDescription: () => string;
  readonly state: () => string;
  readonly aliveStreamThreads: () => number;
  /** Free bytes of the state directory's disk (Sluice's own: the floor below which stores refuse writes is near). */
  readonly stateDirFreeBytes: () => number;
  /** `state.dir.min.free.bytes`. */
  readonly stateDirMinFreeBytes: number;
}

export interface ClientMetrics extends MetricsScope {
  /** record() when a stream thread dies of an error. */
  readonly failedStreamThreads: Sensor;
}

export function createClientMetrics(
  registry: MetricsRegistry,
  clientId: string,
  sources: ClientMetricsSources,
): ClientMetrics {
  const tags = { 'client-id': clientId };
  const gauge = (name: string, description: string, read: () => number | string): void =>
    registry.gauge(CLIENT_GROUP, tags, { name, description }, read);
  gauge('version', 'The version of the streams client', () => sources.version);
  gauge('commit-id', 'The version control commit ID of the streams client', () => sources.commitId);
  gauge('application-id', 'The application ID of the streams client', () => sources.applicationId);
  gauge(
    'topology-description',
    'The description of the topology executed in the streams client',
    sources.topologyDescription,
  );
  gauge('state', 'The state of the streams client', sources.state);
  gauge(
    'alive-stream-threads',
    'The current number of alive stream threads that are running or participating in rebalance',
    sources.aliveStreamThreads,
  );
  gauge('state-dir-free-bytes', "The free bytes of the state directory's disk", sources.stateDirFreeBytes);
  gauge('state-dir-min-free-bytes', 'The free bytes below which persistent stores refuse writes (state.dir.min.free.bytes)', () => sources.stateDirMinFreeBytes);
  return {
    ...scope(registry, tags),
    // Kafka counts failed threads with a CumulativeSum under a name without "-total".
    failedStreamThreads: registry.sensor(CLIENT_GROUP, tags, [
      {
        name: 'failed-stream-threads',
        description: 'The number of failed stream threads since the start of the streams client',
        stat: 'cumulative-count',
      },
    ]),
  };
}

// ---- stream-thread-metrics ---------------------------------------------------------------------------------

export interface ThreadMetrics extends MetricsScope {
  /** record(latencyMs) per commit of all the thread's tasks. */
  readonly commit: Sensor;
  /** record(latencyMs) per poll of the consumer. */
  readonly poll: Sensor;
  /** record(latencyMs / records) per iteration that processed records: the mean latency of one record. */
  readonly processLatency: Sensor;
  /**
   * record(records) per iteration that processed records: process-rate and process-total count records, not
   * iterations, as Kafka's thread-level processRateSensor.
   */
  readonly processRate: Sensor;
  /** record(latencyMs) per punctuation. */
  readonly punctuate: Sensor;
  /** record(n) per iteration of the thread's loop: records polled. */
  readonly pollRecords: Sensor;
  /** record(n) per iteration of the thread's loop: records processed. */
  readonly processRecords: Sensor;
  /** record() per task created. */
  readonly taskCreated: Sensor;
  /** record() per task closed. */
  readonly taskClosed: Sensor;
  /** record(fraction) per iteration: share of the iteration's time spent committing. */
  readonly commitRatio: Sensor;
  readonly pollRatio: Sensor;
  readonly processRatio: Sensor;
  readonly punctuateRatio: Sensor;
}

export function createThreadMetrics(registry: MetricsRegistry, threadId: string, startTimeMs: number): ThreadMetrics {
  const tags = { 'thread-id': threadId };
  const sensor = (stats: StatDefinition[]): Sensor => registry.sensor(THREAD_GROUP, tags, stats);
  const perSecond = (what: string): string => `The average per-second number of ${what}`;
  const metrics: ThreadMetrics = {
    ...scope(registry, tags),
    commit: sensor(latencyStats('commit', 'calls to commit', perSecond('calls to commit'))),
    poll: sensor(latencyStats('poll', 'calls to poll', perSecond('calls to poll'))),
    processLatency: sensor(avgMaxStats('process-latency', 'The average latency of calls to process', 'The maximum latency of calls to process')),
    processRate: sensor(amountStats('process', perSecond('calls to process'), 'The total number of calls to process')),
    punctuate: sensor(latencyStats('punctuate', 'calls to punctuate', perSecond('calls to punctuate'))),
    pollRecords: sensor(
      avgMaxStats(
        'poll-records',
        'The average number of records polled from consumer within an iteration',
        'The maximum number of records polled from consumer within an iteration',
      ),
    ),
    processRecords: sensor(
      avgMaxStats(
        'process-records',
        'The average number of records processed within an iteration',
        'The maximum number of records processed within an iteration',
      ),
    ),
    taskCreated: sensor(
      occurrenceStats('task-created', perSecond('newly created tasks'), 'The total number of newly created tasks'),
    ),
    taskClosed: sensor(occurrenceStats('task-closed', perSecond('closed tasks'), 'The total number of closed tasks')),
    commitRatio: sensor(valueStat('commit-ratio', 'The fraction of time the thread spent on committing all tasks')),
    pollRatio: sensor(
      valueStat('poll-ratio', 'The fraction of time the thread spent on polling records from consumer'),
    ),
    processRatio: sensor(
      valueStat('process-ratio', 'The fraction of time the thread spent on processing active tasks'),
    ),
    punctuateRatio: sensor(
      valueStat('punctuate-ratio', 'The fraction of time the thread spent on punctuating active tasks'),
    ),
  };
  registry.gauge(
    THREAD_GROUP,
    tags,
    { name: 'thread-start-time', description: 'The time that the thread was started' },
    () => startTimeMs,
  );
  return metrics;
}

// ---- producer-metrics ---------------------------------------------------------------------------------------

/** What the Java producer's BufferPool reports, read from a stream thread's producer buffer. */
export interface ProducerBufferReading {
  readonly limit: number;
  readonly usedBytes: number;
  readonly waitedNs: number;
}

/** What a thread's record cache holds and may hold. */
export interface RecordCacheReading {
  readonly sizeBytes: number;
  readonly maxBytes: number;
}

/**
 * A stream thread's memory that Sluice bounds: the Java producer's buffer metrics for the thread's producing (client
 * id `<thread>-producer`, as Kafka Streams names the thread's producer): its bound, what is free, and how long the
 * thread waited for room, which is the back-pressure a slower broker puts on processing; and its record cache's size
 * and bound (Sluice's own, in Kafka Streams' record cache group at the thread's level).
 */
export function createThreadMemoryMetrics(registry: MetricsRegistry, threadId: string, buffer: ProducerBufferReading, cache: RecordCacheReading): MetricsScope {
  const cacheTags = { 'thread-id': threadId, 'record-cache-id': 'thread' };
  registry.gauge(RECORD_CACHE_GROUP, cacheTags, { name: 'cache-size-bytes', description: 'The estimated bytes the thread\'s record caches hold' }, () => cache.sizeBytes);
  registry.gauge(RECORD_CACHE_GROUP, cacheTags, { name: 'cache-max-bytes', description: 'The bytes the thread\'s record caches may hold' }, () => cache.maxBytes);
  const producer = producerBufferMetrics(registry, threadId, buffer);
  return { tags: producer.tags, unregister: () => { producer.unregister(); registry.removeMetrics(cacheTags); } };
}

function producerBufferMetrics(registry: MetricsRegistry, threadId: string, buffer: ProducerBufferReading): MetricsScope {
  const tags = { 'client-id': `${threadId}-producer` };
  registry.gauge(PRODUCER_GROUP, tags, { name: 'buffer-total-bytes', description: 'The maximum amount of buffer memory the client can use (whether or not it is currently used).' }, () => buffer.limit);
  registry.gauge(PRODUCER_GROUP, tags, { name: 'buffer-available-bytes', description: 'The total amount of buffer memory that is not being used (either unallocated or in the free list).' }, () => Math.max(0, buffer.limit - buffer.usedBytes));
  registry.gauge(PRODUCER_GROUP, tags, { name: 'bufferpool-wait-time-ns-total', description: 'The total time in nanoseconds an appender waits for space allocation.' }, () => buffer.waitedNs);
  return scope(registry, tags);
}

// ---- sluice-memory-metrics ----------------------------------------------------------------------------------

/** A node's memory budget as its parts read now (MemoryBudget). */
export interface MemoryBudgetReadings {
  readonly parts: readonly string[];
  readings(): ReadonlyArray<{ readonly part: string; readonly budgetBytes: number; readonly usedBytes: number }>;
}

/** Sluice's own: each part of the node's memory budget, its bound and what is in use, node-wide (tag `part`). */
export function createMemoryBudgetMetrics(registry: MetricsRegistry, budget: MemoryBudgetReadings): MetricsScope {
  const read = (part: string) => budget.readings().find((r) => r.part === part);
  for (const part of budget.parts) {
    const tags = { part };
    registry.gauge(MEMORY_GROUP, tags, { name: 'memory-budget-bytes', description: 'The bytes the node\'s memory budget gives this part' }, () => read(part)?.budgetBytes ?? 0);
    registry.gauge(MEMORY_GROUP, tags, { name: 'memory-used-bytes', description: 'The bytes this part of the node\'s memory holds now' }, () => read(part)?.usedBytes ?? 0);
  }
  return { tags: {}, unregister: () => { for (const part of budget.parts) registry.removeMetrics({ part }); } };
}

// ---- stream-task-metrics -----------------------------------------------------------------------------------

export interface TaskMetrics extends MetricsScope {
  /** record(latencyMs) per record processed by the task. */
  readonly process: Sensor;
  /** record(latencyMs) per punctuation of the task. */
  readonly punctuate: Sensor;
  /** record(streamTime - recordTimestamp) per record, 0 for a record that is not late. */
  readonly recordLateness: Sensor;
  /** record() per record dropped: skipped by an exception handler, invalid timestamp, late record. */
  readonly droppedRecords: Sensor;
  /** record() per skipped record sent to the dead-letter queue (Sluice's own: Kafka Streams has no such metric). */
  readonly deadLetterQueueRecords: Sensor;
  /** record() each time the task processes although some of its partitions have no buffered data. */
  readonly enforcedProcessing: Sensor;
  /** record(fraction): share of the thread's processing time spent on this task. */
  readonly activeProcessRatio: Sensor;
}

export function createTaskMetrics(registry: MetricsRegistry, threadId: string, taskId: string): TaskMetrics {
  const tags = { 'thread-id': threadId, 'task-id': taskId };
  const sensor = (stats: StatDefinition[]): Sensor => registry.sensor(TASK_GROUP, tags, stats);
  const perSecond = (what: string): string => `The average number of ${what} per second`;
  const lateness = (which: string): string =>
    `The observed ${which} lateness of records in milliseconds, measured by comparing the record timestamp with the current stream time`;
  return {
    ...scope(registry, tags),
    process: sensor(latencyStats('process', 'calls to process', perSecond('calls to process'))),
    punctuate: sensor(latencyStats('punctuate', 'calls to punctuate', perSecond('calls to punctuate'))),
    recordLateness: sensor(avgMaxStats('record-lateness', lateness('average'), lateness('maximum'))),
    droppedRecords: sensor(
      occurrenceStats('dropped-records', perSecond('dropped records'), 'The total number of dropped records'),
    ),
    deadLetterQueueRecords: sensor(
      occurrenceStats(
        'dead-letter-queue-records',
        perSecond('records sent to the dead-letter queue'),
        'The total number of records sent to the dead-letter queue',
      ),
    ),
    enforcedProcessing: sensor(
      occurrenceStats(
        'enforced-processing',
        'The average number of occurrences of enforced-processing operations per second',
        'The total number of occurrences of enforced-processing operations',
      ),
    ),
    activeProcessRatio: sensor(
      valueStat(
        'active-process-ratio',
        'The fraction of time the thread spent on processing this task among all assigned active tasks',
      ),
    ),
  };
}

// ---- stream-processor-node-metrics -------------------------------------------------------------------------

export interface ProcessorNodeMetrics extends MetricsScope {
  /** record() per record the node processes. */
  readonly process: Sensor;
  /** record(nowMs - recordTimestamp, nowMs) once the node has fully processed a record. */
  readonly recordE2eLatency: Sensor;
}

/**
 * `process-total` of a processor node past the sources (which record theirs through createProcessorNodeMetrics): read
 * from the node's own count, so that the live topology has every node's rate at no cost per record beyond a count.
 */
export function registerProcessorNodeCount(registry: MetricsRegistry, threadId: string, taskId: string, processorNodeId: string, read: () => number): void {
  registry.gauge(PROCESSOR_NODE_GROUP, processorNodeTags(threadId, taskId, processorNodeId), { name: 'process-total', description: 'The total number of calls to process' }, read);
}

function processorNodeTags(threadId: string, taskId: string, processorNodeId: string): Record<string, string> {
  return { 'thread-id': threadId, 'task-id': taskId, 'processor-node-id': processorNodeId };
}

/**
 * Sluice's `failed-records-total` of every processor node, sources included: the records it failed on (its processor
 * threw, or a source could not deserialize them), read from the node's own count, which only the failure path moves.
 */
export function registerProcessorNodeFailures(registry: MetricsRegistry, threadId: string, taskId: string, processorNodeId: string, read: () => number): void {
  registry.gauge(
    PROCESSOR_NODE_GROUP,
    processorNodeTags(threadId, taskId, processorNodeId),
    { name: 'failed-records-total', description: 'The total number of records the node failed on: its processor threw, or its source could not deserialize them, whether the handler skipped them or the task failed' },
    read,
  );
}

export function createProcessorNodeMetrics(
  registry: MetricsRegistry,
  threadId: string,
  taskId: string,
  processorNodeId: string,
): ProcessorNodeMetrics {
  const tags = processorNodeTags(threadId, taskId, processorNodeId);
  const e2e = (which: string): string =>
    `The ${which} end-to-end latency of a record, measured by comparing the record timestamp with the system time when it has been fully processed by the node`;
  return {
    ...scope(registry, tags),
    process: registry.sensor(
      PROCESSOR_NODE_GROUP,
      tags,
      occurrenceStats('process', 'The average number of calls to process per second', 'The total number of calls to process'),
    ),
    recordE2eLatency: registry.sensor(PROCESSOR_NODE_GROUP, tags, [
      { name: 'record-e2e-latency-avg', description: e2e('average'), stat: 'avg' },
      { name: 'record-e2e-latency-min', description: e2e('minimum'), stat: 'min' },
      { name: 'record-e2e-latency-max', description: e2e('maximum'), stat: 'max' },
    ]),
  };
}

// ---- stream-state-metrics ----------------------------------------------------------------------------------

/**
 * The store's metrics scope, as Kafka's `metricsScope()`; the tag that names the store is `<scope>-state-id`
 * (Kafka: `rocksdb-state-id`, `rocksdb-window-state-id`, `in-memory-state-id`, ...).
 */
export type StoreMetricsScope = `${'lmdb' | 'in-memory'}${'' | '-window' | '-session'}`;

export function storeMetricsScope(persistent: boolean, type: StoreType): StoreMetricsScope {
  const base = persistent ? 'lmdb' : 'in-memory';
  switch (type) {
    case 'key_value':
    case 'timestamped_key_value':
    case 'versioned_key_value':
      return base;
    case 'window':
    case 'timestamped_window':
      return `${base}-window`;
    case 'session':
      return `${base}-session`;
  }
}

/** Each operation sensor takes record(latencyMs) per call and shows `<op>-latency-avg`, `-latency-max`, `-rate`. */
export interface StateStoreMetrics extends MetricsScope {
  readonly put: Sensor;
  readonly putIfAbsent: Sensor;
  readonly putAll: Sensor;
  readonly get: Sensor;
  /** Window and session stores' fetches. */
  readonly fetch: Sensor;
  readonly delete: Sensor;
  /** Session stores' remove. */
  readonly remove: Sensor;
  readonly range: Sensor;
  readonly prefixScan: Sensor;
  readonly all: Sensor;
  readonly flush: Sensor;
  /** record(n) per batch of n changelog records restored into the store. */
  readonly restore: Sensor;
  /**
   * record(remaining) as restoration progresses: changelog records still to restore. Kafka sums increments under
   * the same name at task level; recording the level itself cannot drift when a restoration starts over.
   */
  readonly restoreRemainingRecords: Sensor;
}

export function createStateStoreMetrics(
  registry: MetricsRegistry,
  threadId: string,
  taskId: string,
  storeScope: StoreMetricsScope,
  storeName: string,
): StateStoreMetrics {
  const tags = { 'thread-id': threadId, 'task-id': taskId, [`${storeScope}-state-id`]: storeName };
  const operation = (name: string): Sensor => {
    const calls = `calls to ${name}`;
    return registry.sensor(STATE_STORE_GROUP, tags, [
      { name: `${name}-latency-avg`, description: `The average latency of ${calls}`, stat: 'avg' },
      { name: `${name}-latency-max`, description: `The maximum latency of ${calls}`, stat: 'max' },
      { name: `${name}-rate`, description: `The average number of ${calls} per second`, stat: 'rate' },
    ]);
  };
  return {
    ...scope(registry, tags),
    put: operation('put'),
    putIfAbsent: operation('put-if-absent'),
    putAll: operation('put-all'),
    get: operation('get'),
    fetch: operation('fetch'),
    delete: operation('delete'),
    remove: operation('remove'),
    range: operation('range'),
    prefixScan: operation('prefix-scan'),
    all: operation('all'),
    flush: operation('flush'),
    restore: registry.sensor(STATE_STORE_GROUP, tags, [
      { name: 'restore-rate', description: 'The average number of records restored per second', stat: 'sum-rate' },
      { name: 'restore-total', description: 'The total number of records restored', stat: 'cumulative-sum' },
    ]),
    restoreRemainingRecords: registry.sensor(
      STATE_STORE_GROUP,
      tags,
      valueStat('restore-remaining-records-total', 'The number of records remaining to be restored'),
    ),
  };
}

/**
 * A store's size, read from its statistics when the metrics are (NaN while it is closed): `estimate-num-keys` as
 * Kafka Streams' RocksDB metric, and Sluice's `size-on-disk-bytes` for a persistent store. Records its cache holds
 * and has not written down yet are not counted.
 */
export function registerStateStoreSize(registry: MetricsRegistry, scope: StateStoreMetrics, persistent: boolean, stats: () => StoreStats | undefined): void {
  // A store closing as it is read (or whose storage failed) reads as NaN: the scrape of every other metric goes on.
  const read = (figure: (s: StoreStats) => number | undefined) => () => {
    try {
      const current = stats();
      return (current && figure(current)) ?? Number.NaN;
    } catch {
      return Number.NaN;
    }
  };
  registry.gauge(STATE_STORE_GROUP, scope.tags, { name: 'estimate-num-keys', description: 'The estimated number of keys in the store' }, read((s) => s.entries));
  if (!persistent) return;
  registry.gauge(STATE_STORE_GROUP, scope.tags, { name: 'size-on-disk-bytes', description: 'The bytes the store takes on disk' }, read((s) => s.sizeBytes));
}

// ---- stream-record-cache-metrics (per store) --------------------------------------------------------------

/**
 * A caching store's cache as Kafka Streams records it at DEBUG: record(hit) per read, found or not; its `hit-ratio`
 * stats take the ratio of the reads found since the store opened, at each read.
 */
export interface RecordCacheMetrics {
  read(hit: boolean): void;
}

export function createRecordCacheMetrics(registry: MetricsRegistry, threadId: string, taskId: string, storeName: string): RecordCacheMetrics {
  const ratio = (which: string): string => `The ${which} cache hit ratio`;
  const sensor = registry.sensor(RECORD_CACHE_GROUP, { 'thread-id': threadId, 'task-id': taskId, 'record-cache-id': storeName }, [
    { name: 'hit-ratio-avg', description: ratio('average'), stat: 'avg' },
    { name: 'hit-ratio-min', description: ratio('minimum'), stat: 'min' },
    { name: 'hit-ratio-max', description: ratio('maximum'), stat: 'max' },
  ]);
  let reads = 0;
  let hits = 0;
  return {
    read(hit) {
      reads++;
      if (hit) hits++;
      sensor.record(hits / reads);
    },
  };
}

// ---- consumer-fetch-manager-metrics (per partition) --------------------------------------------------------

export interface PartitionLagMetrics extends MetricsScope {
  /** record(highWatermark - position) after each fetch of the partition. */
  readonly lag: Sensor;
  /** record(position - logStartOffset) after each fetch of the partition. */
  readonly lead: Sensor;
}

export function createPartitionLagMetrics(
  registry: MetricsRegistry,
  clientId: string,
  topic: string,
  partition: number,
): PartitionLagMetrics {
  const tags = { 'client-id': clientId, topic, partition: String(partition) };
  return {
    ...scope(registry, tags),
    lag: registry.sensor(CONSUMER_FETCH_GROUP, tags, [
      { name: 'records-lag', description: 'The latest lag of the partition', stat: 'value' },
      { name: 'records-lag-avg', description: 'The average lag of the partition', stat: 'avg' },
      { name: 'records-lag-max', description: 'The max lag of the partition', stat: 'max' },
    ]),
    lead: registry.sensor(CONSUMER_FETCH_GROUP, tags, [
      { name: 'records-lead', description: 'The latest lead of the partition', stat: 'value' },
      { name: 'records-lead-avg', description: 'The average lead of the partition', stat: 'avg' },
      { name: 'records-lead-min', description: 'The min lead of the partition', stat: 'min' },
    ]),
  };
}
