import { MetricsRegistry, type MetricSnapshot } from './metrics-registry';
import {
  CLIENT_GROUP,
  CONSUMER_FETCH_GROUP,
  createClientMetrics,
  createPartitionLagMetrics,
  createProcessorNodeMetrics,
  createRecordCacheMetrics,
  createStateStoreMetrics,
  createTaskMetrics,
  createThreadMetrics,
  PROCESSOR_NODE_GROUP,
  RECORD_CACHE_GROUP,
  registerProcessorNodeFailures,
  registerStateStoreSize,
  STATE_STORE_GROUP,
  storeMetricsScope,
  TASK_GROUP,
  THREAD_GROUP,
} from './streams-metrics';

function names(snapshots: MetricSnapshot[]): string[] {
  return snapshots.map((s) => s.name).sort();
}

function value(registry: MetricsRegistry, group: string, name: string): number | string | undefined {
  return registry.metrics({ group, name })[0]?.value;
}

describe('Kafka Streams metric families', () => {
  let now: number;
  let registry: MetricsRegistry;

  beforeEach(() => {
    now = 1_700_000_000_000;
    registry = new MetricsRegistry({ clock: () => now });
  });

  it('stream-metrics: the client gauges and failed threads, tagged with client-id', () => {
    let state = 'REBALANCING';
    const client = createClientMetrics(registry, 'app-1', {
      version: '0.1.0',
      commitId: 'abc123',
      applicationId: 'app',
      topologyDescription: () => 'Topologies:\n   Sub-topology: 0',
      state: () => state,
      aliveStreamThreads: () => 2,
      stateDirFreeBytes: () => 5_000_000,
      stateDirMinFreeBytes: 1_000_000,
    });
    client.failedStreamThreads.record();
    state = 'RUNNING';
    const snapshots = registry.metrics({ group: CLIENT_GROUP });
    expect(names(snapshots)).toEqual([
      'alive-stream-threads',
      'application-id',
      'commit-id',
      'failed-stream-threads',
      'state',
      'state-dir-free-bytes',
      'state-dir-min-free-bytes',
      'topology-description',
      'version',
    ]);
    expect(snapshots.every((s) => s.tags['client-id'] === 'app-1' && Object.keys(s.tags).length === 1)).toBe(true);
    expect(value(registry, CLIENT_GROUP, 'state')).toBe('RUNNING');
    expect(value(registry, CLIENT_GROUP, 'failed-stream-threads')).toBe(1);
    expect(value(registry, CLIENT_GROUP, 'topology-description')).toBe('Topologies:\n   Sub-topology: 0');
    expect(value(registry, CLIENT_GROUP, 'state-dir-free-bytes')).toBe(5_000_000);
    expect(value(registry, CLIENT_GROUP, 'state-dir-min-free-bytes')).toBe(1_000_000);
  });

  it('stream-thread-metrics: one record() feeds latency avg/max, rate and total', () => {
    const thread = createThreadMetrics(registry, 'app-1-StreamThread-1', now - 5000);
    expect(names(registry.metrics({ group: THREAD_GROUP }))).toEqual(
      [
        ...['commit', 'poll', 'process', 'punctuate'].flatMap((op) => [
          `${op}-latency-avg`,
          `${op}-latency-max`,
          `${op}-rate`,
          `${op}-total`,
          `${op}-ratio`,
        ]),
        'poll-records-avg',
        'poll-records-max',
        'process-records-avg',
        'process-records-max',
        'task-closed-rate',
        'task-closed-total',
        'task-created-rate',
        'task-created-total',
        'thread-start-time',
      ].sort(),
    );
    // Two iterations: 10 records at 2 ms each, then 30 at 6 ms each. Rate and total count records, as Kafka's do.
    thread.processLatency.record(2);
    thread.processRate.record(10);
    thread.processLatency.record(6);
    thread.processRate.record(30);
    thread.processRatio.record(0.75);
    expect(value(registry, THREAD_GROUP, 'process-latency-avg')).toBe(4);
    expect(value(registry, THREAD_GROUP, 'process-latency-max')).toBe(6);
    expect(value(registry, THREAD_GROUP, 'process-rate')).toBeCloseTo(40 / 30, 12);
    expect(value(registry, THREAD_GROUP, 'process-total')).toBe(40);
    expect(value(registry, THREAD_GROUP, 'process-ratio')).toBe(0.75);
    expect(value(registry, THREAD_GROUP, 'commit-total')).toBe(0);
    expect(value(registry, THREAD_GROUP, 'thread-start-time')).toBe(now - 5000);
    expect(registry.metrics({ group: THREAD_GROUP })[0]?.tags).toEqual({ 'thread-id': 'app-1-StreamThread-1' });
  });

  it('stream-task-metrics: tagged with thread-id and task-id, dropped records counted there', () => {
    const task = createTaskMetrics(registry, 't1', '0_1');
    expect(names(registry.metrics({ group: TASK_GROUP }))).toEqual(
      [
        'active-process-ratio',
        'dead-letter-queue-records-rate',
        'dead-letter-queue-records-total',
        'dropped-records-rate',
        'dropped-records-total',
        'enforced-processing-rate',
        'enforced-processing-total',
        'process-latency-avg',
        'process-latency-max',
        'process-rate',
        'process-total',
        'punctuate-latency-avg',
        'punctuate-latency-max',
        'punctuate-rate',
        'punctuate-total',
        'record-lateness-avg',
        'record-lateness-max',
      ].sort(),
    );
    task.droppedRecords.record();
    task.droppedRecords.record();
    task.recordLateness.record(0);
    task.recordLateness.record(100);
    expect(value(registry, TASK_GROUP, 'dropped-records-total')).toBe(2);
    expect(value(registry, TASK_GROUP, 'record-lateness-avg')).toBe(50);
    expect(registry.metrics({ group: TASK_GROUP })[0]?.tags).toEqual({ 'thread-id': 't1', 'task-id': '0_1' });
  });

  it('stream-processor-node-metrics: process rate/total and end-to-end latency avg/min/max', () => {
    const node = createProcessorNodeMetrics(registry, 't1', '0_1', 'KSTREAM-SOURCE-0000000000');
    node.process.record();
    node.recordE2eLatency.record(30, now);
    node.recordE2eLatency.record(10, now);
    expect(names(registry.metrics({ group: PROCESSOR_NODE_GROUP }))).toEqual([
      'process-rate',
      'process-total',
      'record-e2e-latency-avg',
      'record-e2e-latency-max',
      'record-e2e-latency-min',
    ]);
    expect(value(registry, PROCESSOR_NODE_GROUP, 'record-e2e-latency-min')).toBe(10);
    expect(value(registry, PROCESSOR_NODE_GROUP, 'record-e2e-latency-avg')).toBe(20);
    expect(registry.metrics({ group: PROCESSOR_NODE_GROUP })[0]?.tags).toEqual({
      'thread-id': 't1',
      'task-id': '0_1',
      'processor-node-id': 'KSTREAM-SOURCE-0000000000',
    });
  });

  it('stream-state-metrics: operations and restoration, the store named by <scope>-state-id', () => {
    const store = createStateStoreMetrics(registry, 't1', '0_1', storeMetricsScope(true, 'timestamped_key_value'), 'counts');
    store.put.record(0.2);
    store.restore.record(500);
    store.restore.record(250);
    store.restoreRemainingRecords.record(1000);
    store.restoreRemainingRecords.record(250);
    const snapshots = registry.metrics({ group: STATE_STORE_GROUP });
    expect(snapshots[0]?.tags).toEqual({ 'thread-id': 't1', 'task-id': '0_1', 'lmdb-state-id': 'counts' });
    expect(names(snapshots)).toEqual(
      [
        ...['put', 'put-if-absent', 'put-all', 'get', 'fetch', 'delete', 'remove', 'range', 'prefix-scan', 'all', 'flush']
          .flatMap((op) => [`${op}-latency-avg`, `${op}-latency-max`, `${op}-rate`]),
        'restore-rate',
        'restore-total',
        'restore-remaining-records-total',
      ].sort(),
    );
    expect(value(registry, STATE_STORE_GROUP, 'put-latency-max')).toBe(0.2);
    expect(value(registry, STATE_STORE_GROUP, 'restore-total')).toBe(750);
    expect(value(registry, STATE_STORE_GROUP, 'restore-rate')).toBe(25);
    expect(value(registry, STATE_STORE_GROUP, 'restore-remaining-records-total')).toBe(250);
  });

  it("stream-processor-node-metrics: Sluice's failed-records-total, read from the node's count", () => {
    let failed = 0;
    registerProcessorNodeFailures(registry, 't1', '0_1', 'KSTREAM-MAPVALUES-0000000001', () => failed);
    failed = 3;
    const [metric] = registry.metrics({ group: PROCESSOR_NODE_GROUP, name: 'failed-records-total' });
    expect(metric?.value).toBe(3);
    expect(metric?.tags).toEqual({ 'thread-id': 't1', 'task-id': '0_1', 'processor-node-id': 'KSTREAM-MAPVALUES-0000000001' });
  });

  it("stream-state-metrics: a store's estimate-num-keys, and size-on-disk-bytes when persistent, NaN while closed or failing", () => {
    const persistent = createStateStoreMetrics(registry, 't1', '0_1', storeMetricsScope(true, 'key_value'), 'counts');
    let stats: { entries: number; sizeBytes?: number; puts: number; gets: number; openIterators: number } | undefined = { entries: 12, sizeBytes: 8192, puts: 12, gets: 0, openIterators: 0 };
    registerStateStoreSize(registry, persistent, true, () => stats);
    const memory = createStateStoreMetrics(registry, 't1', '0_1', storeMetricsScope(false, 'key_value'), 'recent');
    registerStateStoreSize(registry, memory, false, () => ({ entries: 2, puts: 2, gets: 0, openIterators: 0 }));
    const read = (store: string, name: string) => registry.metrics({ group: STATE_STORE_GROUP, name }).find((m) => Object.values(m.tags).includes(store))?.value;
    expect(read('counts', 'estimate-num-keys')).toBe(12);
    expect(read('counts', 'size-on-disk-bytes')).toBe(8192);
    expect(read('recent', 'estimate-num-keys')).toBe(2);
    expect(read('recent', 'size-on-disk-bytes')).toBeUndefined();
    stats = undefined;
    expect(read('counts', 'estimate-num-keys')).toBeNaN();
    const failing = createStateStoreMetrics(registry, 't1', '0_2', storeMetricsScope(true, 'key_value'), 'closing');
    registerStateStoreSize(registry, failing, true, () => {
      throw new Error('Store closing is not open');
    });
    expect(read('closing', 'size-on-disk-bytes')).toBeNaN();
  });

  it('stream-record-cache-metrics: hit-ratio avg/min/max of a store, the ratio since it opened taken at each read', () => {
    const cache = createRecordCacheMetrics(registry, 't1', '0_1', 'counts');
    cache.read(false);
    cache.read(true);
    cache.read(true);
    cache.read(true);
    const metrics = registry.metrics({ group: RECORD_CACHE_GROUP });
    expect(names(metrics)).toEqual(['hit-ratio-avg', 'hit-ratio-max', 'hit-ratio-min']);
    expect(metrics[0]?.tags).toEqual({ 'thread-id': 't1', 'task-id': '0_1', 'record-cache-id': 'counts' });
    expect(value(registry, RECORD_CACHE_GROUP, 'hit-ratio-min')).toBe(0);
    expect(value(registry, RECORD_CACHE_GROUP, 'hit-ratio-max')).toBe(0.75);
    expect(value(registry, RECORD_CACHE_GROUP, 'hit-ratio-avg')).toBeCloseTo((0 + 0.5 + 2 / 3 + 0.75) / 4);
  });

  it('names store scopes as Kafka does, with lmdb in the place of rocksdb', () => {
    expect(storeMetricsScope(true, 'key_value')).toBe('lmdb');
    expect(storeMetricsScope(false, 'key_value')).toBe('in-memory');
    expect(storeMetricsScope(true, 'window')).toBe('lmdb-window');
    expect(storeMetricsScope(false, 'timestamped_window')).toBe('in-memory-window');
    expect(storeMetricsScope(true, 'session')).toBe('lmdb-session');
    createStateStoreMetrics(registry, 't1', '0_1', 'in-memory-window', 'w');
    expect(registry.metrics()[0]?.tags['in-memory-window-state-id']).toBe('w');
  });

  it('consumer-fetch-manager-metrics: lag and lead per partition', () => {
    const lag = createPartitionLagMetrics(registry, 'app-1-StreamThread-1-consumer', 'orders', 3);
    lag.lag.record(40);
    lag.lag.record(10);
    lag.lead.record(5);
    const snapshots = registry.metrics({ group: CONSUMER_FETCH_GROUP });
    expect(snapshots.map((s) => [s.name, s.value])).toEqual([
      ['records-lag', 10],
      ['records-lag-avg', 25],
      ['records-lag-max', 40],
      ['records-lead', 5],
      ['records-lead-avg', 5],
      ['records-lead-min', 5],
    ]);
    expect(snapshots[0]?.tags).toEqual({ 'client-id': 'app-1-StreamThread-1-consumer', topic: 'orders', partition: '3' });
  });

  it('unregisters a scope with everything nested under it', () => {
    const thread = createThreadMetrics(registry, 't1', now);
    const task = createTaskMetrics(registry, 't1', '0_0');
    createProcessorNodeMetrics(registry, 't1', '0_0', 'source');
    createStateStoreMetrics(registry, 't1', '0_0', 'lmdb', 'store');
    const otherTask = createTaskMetrics(registry, 't1', '0_1');
    const lag = createPartitionLagMetrics(registry, 'c', 'topic', 0);

    task.unregister();
    const groups = new Set(registry.metrics().map((s) => `${s.group} ${s.tags['task-id'] ?? ''}`));
    expect([...groups].sort()).toEqual([
      `${CONSUMER_FETCH_GROUP} `,
      `${TASK_GROUP} 0_1`,
      `${THREAD_GROUP} `,
    ]);
    // The sensors of a removed scope still take recordings, which nothing reads any more.
    task.process.record(1);

    thread.unregister();
    expect(registry.metrics({ group: TASK_GROUP })).toEqual([]);
    expect(otherTask.tags).toEqual({ 'thread-id': 't1', 'task-id': '0_1' });
    lag.unregister();
    expect(registry.metrics()).toEqual([]);
  });
});
