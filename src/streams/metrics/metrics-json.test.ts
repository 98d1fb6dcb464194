import type { MetricSnapshot, MetricTags } from './metrics-registry';
import { metricGroupsJson } from './metrics-json';

function snapshot(group: string, name: string, value: number | string, tags: MetricTags = {}): MetricSnapshot {
  return { group, name, description: `${name} of ${group}`, tags, value };
}

describe('metricGroupsJson', () => {
  it('sorts groups by name, their metrics by name then tags, partitions in numeric order', () => {
    const json = metricGroupsJson([
      snapshot('stream-thread-metrics', 'process-rate', 1, { 'thread-id': 't2' }),
      snapshot('consumer-fetch-manager-metrics', 'records-lag', 5, { topic: 'b', partition: '10' }),
      snapshot('stream-thread-metrics', 'commit-rate', 2, { 'thread-id': 't1' }),
      snapshot('consumer-fetch-manager-metrics', 'records-lag', 6, { topic: 'b', partition: '9' }),
      snapshot('stream-thread-metrics', 'process-rate', 3, { 'thread-id': 't1' }),
      snapshot('consumer-fetch-manager-metrics', 'records-lag', 7, { topic: 'a', partition: '11' }),
    ]);
    expect(json.map((g) => g.name)).toEqual(['consumer-fetch-manager-metrics', 'stream-thread-metrics']);
    expect(json[0]?.metrics.map((m) => m.tags)).toEqual([
      { topic: 'b', partition: '9' },
      { topic: 'b', partition: '10' },
      { topic: 'a', partition: '11' },
    ]);
    expect(json[1]?.metrics.map((m) => [m.name, m.tags['thread-id'], m.value])).toEqual([
      ['commit-rate', 't1', 2],
      ['process-rate', 't1', 3],
      ['process-rate', 't2', 1],
    ]);
    expect(json[1]?.metrics[0]).toEqual({
      name: 'commit-rate',
      description: 'commit-rate of stream-thread-metrics',
      tags: { 'thread-id': 't1' },
      value: 2,
    });
  });

  it('leaves out metrics with no measurement and text metrics, and groups left empty', () => {
    const json = metricGroupsJson([
      snapshot('stream-metrics', 'version', '0.1.0'),
      snapshot('stream-metrics', 'state', 'RUNNING'),
      snapshot('stream-task-metrics', 'process-latency-avg', NaN),
      snapshot('stream-task-metrics', 'process-latency-max', Infinity),
      snapshot('stream-task-metrics', 'process-total', 0),
    ]);
    expect(json).toEqual([
      {
        name: 'stream-task-metrics',
        metrics: [{ name: 'process-total', description: 'process-total of stream-task-metrics', tags: {}, value: 0 }],
      },
    ]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('with filterEmpty also leaves out zero, but not small values', () => {
    const snapshots = [
      snapshot('g', 'a', 0),
      snapshot('g', 'b', 0.5),
      snapshot('g', 'c', -0),
      snapshot('h', 'd', 0),
    ];
    expect(metricGroupsJson(snapshots, { filterEmpty: true })).toEqual([
      { name: 'g', metrics: [{ name: 'b', description: 'b of g', tags: {}, value: 0.5 }] },
    ]);
    expect(metricGroupsJson(snapshots, { filterEmpty: false }).flatMap((g) => g.metrics)).toHaveLength(4);
  });
});
