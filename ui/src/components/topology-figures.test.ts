import type { ConsumerOffsets, MetricGroup } from '../../../src/client/types';
import { bytesText, countText, lagFigures, lineOf, msText, nodeFigures, rateText, ratesBetween, readingOf, storeFigures } from './topology-figures';

const metric = (name: string, tags: Record<string, string>, value: number) => ({ name, description: '', tags, value });
const node = (task: string, id: string) => ({ 'thread-id': 't1', 'task-id': task, 'processor-node-id': id });

const groups: MetricGroup[] = [
  {
    name: 'stream-processor-node-metrics',
    metrics: [
      metric('process-total', node('0_0', 'source'), 10),
      metric('process-total', node('0_1', 'source'), 5),
      metric('record-e2e-latency-avg', node('0_0', 'source'), 4),
      metric('record-e2e-latency-avg', node('0_1', 'source'), 8),
      metric('record-e2e-latency-max', node('0_0', 'source'), 20),
      metric('record-e2e-latency-max', node('0_1', 'source'), 30),
      metric('failed-records-total', node('0_0', 'source'), 0),
      metric('process-total', node('1_0', 'count'), 7),
      metric('failed-records-total', node('1_0', 'count'), 2),
      metric('failed-records-total', node('1_1', 'count'), 1),
    ],
  },
  {
    name: 'stream-state-metrics',
    metrics: [
      metric('estimate-num-keys', { 'task-id': '1_0', 'lmdb-state-id': 'counts' }, 1200),
      metric('estimate-num-keys', { 'task-id': '1_1', 'lmdb-state-id': 'counts' }, 300),
      metric('size-on-disk-bytes', { 'task-id': '1_0', 'lmdb-state-id': 'counts' }, 4096),
      metric('estimate-num-keys', { 'task-id': '1_0', 'in-memory-state-id': 'recent' }, 3),
      metric('put-rate', { 'task-id': '1_0', 'lmdb-state-id': 'counts' }, 9),
    ],
  },
  {
    name: 'stream-record-cache-metrics',
    metrics: [
      metric('hit-ratio-avg', { 'task-id': '1_0', 'record-cache-id': 'counts' }, 0.5),
      metric('hit-ratio-avg', { 'task-id': '1_1', 'record-cache-id': 'counts' }, 0.7),
      metric('cache-size-bytes', { 'thread-id': 't1', 'record-cache-id': 'thread' }, 100),
    ],
  },
];

const position = (topic: string, partition: number, lag: number) => ({
  topic,
  partition,
  lag,
  consumed_offset: 0,
  consumed_timestamp: 0,
  committed_offset: 0,
  committed_timestamp: 0,
  log_end_offset: 0,
  log_start_offset: 0,
});
const offsets: ConsumerOffsets = {
  group: 'app',
  consumers: [
    { client_id: 'c1', stream_thread: 't1', positions: [position('app-by-word-repartition', 0, 40), position('app-input', 0, 99)] },
    { client_id: 'c2', stream_thread: 't2', positions: [position('app-by-word-repartition', 1, 2), position('app-by-word-repartition', 2, -1)] },
  ],
};

describe("the topology graph's live figures", () => {
  const reading = readingOf(1000, { groups, offsets }, 'app', new Set(['by-word-repartition']));

  it("sum a processor node's counts over its tasks, and average its latencies where recorded", () => {
    expect(reading.nodes.get('source')).toEqual({ processed: 15, failed: 0, latencyAvgMs: 6, latencyMaxMs: 30 });
    expect(reading.nodes.get('count')).toEqual({ processed: 7, failed: 3 });
  });

  it("sum a store's keys and bytes over its tasks, whatever its scope, and average its cache's hit ratio when recorded", () => {
    expect(reading.stores.get('counts')).toEqual({ keys: 1500, bytes: 4096, hitRatio: 0.6 });
    expect(reading.stores.get('recent')).toEqual({ keys: 3 });
    expect(reading.stores.has('thread')).toBe(false);
  });

  it("sum an internal topic's lag over this node's partitions of it, an unknown log end left out; other topics not", () => {
    expect([...reading.lags]).toEqual([['by-word-repartition', 42]]);
    expect(readingOf(0, { groups: [] }, 'app', new Set(['by-word-repartition'])).lags.size).toBe(0);
  });

  it('give rates from the change of the totals; a fall or a node first seen reads as 0', () => {
    const later = readingOf(3000, { groups: [{ name: 'stream-processor-node-metrics', metrics: [metric('process-total', node('0_0', 'source'), 25), metric('process-total', node('1_0', 'count'), 3), metric('process-total', node('2_0', 'new'), 9)] }] }, 'app', new Set());
    expect([...ratesBetween(reading, later)]).toEqual([
      ['source', 5],
      ['count', 0],
      ['new', 0],
    ]);
  });

  it('write short lines under the nodes', () => {
    expect(lineOf(nodeFigures(5, reading.nodes.get('source')))).toBe('5.0/s · 6.0 ms');
    expect(nodeFigures(0, reading.nodes.get('count'))).toEqual([
      { kind: 'rate', value: 0, text: '0/s' },
      { kind: 'failed', value: 3, text: '3 failed' },
    ]);
    expect(nodeFigures(undefined, undefined)).toEqual([]);
    expect(lineOf(storeFigures(reading.stores.get('counts')))).toBe('1.5k keys · 4.0 KiB · 60 % hits');
    expect(storeFigures({})).toEqual([]);
    expect(lagFigures(reading.lags.get('by-word-repartition'))).toEqual([{ kind: 'lag', value: 42, text: 'lag 42' }]);
    expect(lagFigures(undefined)).toEqual([]);
  });

  it('format rates, counts, bytes and milliseconds compactly', () => {
    expect([rateText(0), rateText(2.5), rateText(120), rateText(1500), rateText(25_000)]).toEqual(['0/s', '2.5/s', '120/s', '1.5k/s', '25k/s']);
    expect([countText(999), countText(1234), countText(12_345), countText(2_500_000)]).toEqual(['999', '1.2k', '12k', '2.5M']);
    expect([bytesText(512), bytesText(1536), bytesText(50 * 1024 * 1024)]).toEqual(['512 B', '1.5 KiB', '50 MiB']);
    expect([msText(0), msText(0.42), msText(12.6), msText(1500), msText(12_000)]).toEqual(['0 ms', '0.4 ms', '13 ms', '1.5 s', '12 s']);
  });
});
