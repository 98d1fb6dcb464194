import { ConfigException, StreamsException } from '../../errors';
import { MetricsRegistry, type MetricSnapshot } from './metrics-registry';

function valueOf(snapshots: MetricSnapshot[], name: string): number | string | undefined {
  return snapshots.find((s) => s.name === name)?.value;
}

describe('MetricsRegistry', () => {
  let now: number;
  let registry: MetricsRegistry;

  beforeEach(() => {
    now = 1_000_000;
    registry = new MetricsRegistry({ clock: () => now });
  });

  it('lists the metrics of a sensor with group, description, tags and the values of their stats', () => {
    const sensor = registry.sensor('g', { 'thread-id': 't1' }, [
      { name: 'process-latency-avg', description: 'avg', stat: 'avg' },
      { name: 'process-latency-max', description: 'max', stat: 'max' },
      { name: 'process-rate', description: 'rate', stat: 'rate' },
      { name: 'process-total', description: 'total', stat: 'cumulative-count' },
    ]);
    expect(valueOf(registry.metrics(), 'process-latency-avg')).toBeNaN();
    expect(valueOf(registry.metrics(), 'process-total')).toBe(0);
    sensor.record(4);
    sensor.record(8);
    const snapshots = registry.metrics();
    expect(snapshots[0]).toEqual({
      group: 'g',
      name: 'process-latency-avg',
      description: 'avg',
      tags: { 'thread-id': 't1' },
      value: 6,
    });
    expect(valueOf(snapshots, 'process-latency-max')).toBe(8);
    expect(valueOf(snapshots, 'process-rate')).toBeCloseTo(2 / 30, 12);
    expect(valueOf(snapshots, 'process-total')).toBe(2);
  });

  it('reads gauges at listing time, numbers and text alike', () => {
    let state = 'CREATED';
    registry.gauge('stream-metrics', { 'client-id': 'c' }, { name: 'state', description: 'd' }, () => state);
    registry.gauge('stream-metrics', { 'client-id': 'c' }, { name: 'alive-stream-threads', description: 'd' }, () => 2);
    state = 'RUNNING';
    expect(registry.metrics().map((s) => s.value)).toEqual(['RUNNING', 2]);
  });

  it("lists a source's metrics after its own, filtered alike, until the source is removed", () => {
    registry.gauge('stream-metrics', { 'client-id': 'c' }, { name: 'state', description: 'd' }, () => 'RUNNING');
    const fromWorker: MetricSnapshot[] = [
      { group: 'stream-thread-metrics', name: 'process-total', description: 'd', tags: { 'thread-id': 'c-StreamThread-2' }, value: 7 },
      { group: 'stream-task-metrics', name: 'process-total', description: 'd', tags: { 'thread-id': 'c-StreamThread-2', 'task-id': '0_0' }, value: 3 },
    ];
    const remove = registry.addSource(() => fromWorker);
    expect(registry.metrics().map((s) => s.value)).toEqual(['RUNNING', 7, 3]);
    expect(registry.metrics({ group: 'stream-thread-metrics' }).map((s) => s.value)).toEqual([7]);
    remove();
    expect(registry.metrics().map((s) => s.value)).toEqual(['RUNNING']);
  });

  it('refuses a metric that exists already, whatever the order of its tags, and then registers nothing', () => {
    registry.gauge('g', { a: '1', b: '2' }, { name: 'm', description: 'd' }, () => 1);
    expect(() =>
      registry.sensor('g', { b: '2', a: '1' }, [
        { name: 'other', description: 'd', stat: 'value' },
        { name: 'm', description: 'd', stat: 'value' },
      ]),
    ).toThrow(StreamsException);
    expect(() =>
      registry.sensor('g', {}, [
        { name: 'twice', description: 'd', stat: 'value' },
        { name: 'twice', description: 'd', stat: 'avg' },
      ]),
    ).toThrow(/already registered/);
    expect(registry.metrics().map((s) => s.name)).toEqual(['m']);
    // Same name and tags in another group, or other tag values, are other metrics.
    registry.gauge('h', { a: '1', b: '2' }, { name: 'm', description: 'd' }, () => 1);
    registry.gauge('g', { a: '1', b: '3' }, { name: 'm', description: 'd' }, () => 1);
    expect(registry.metrics()).toHaveLength(3);
  });

  it('removes every metric whose tags include the given ones, across groups', () => {
    const task = { 'thread-id': 't1', 'task-id': '0_0' };
    registry.gauge('stream-task-metrics', task, { name: 'a', description: 'd' }, () => 1);
    registry.gauge('stream-state-metrics', { ...task, 'lmdb-state-id': 's' }, { name: 'b', description: 'd' }, () => 1);
    registry.gauge('stream-task-metrics', { 'thread-id': 't1', 'task-id': '0_1' }, { name: 'a', description: 'd' }, () => 1);
    registry.gauge('stream-thread-metrics', { 'thread-id': 't1' }, { name: 'c', description: 'd' }, () => 1);

    expect(registry.removeMetrics(task)).toBe(2);
    expect(registry.metrics().map((s) => [s.name, s.tags['task-id']])).toEqual([
      ['a', '0_1'],
      ['c', undefined],
    ]);
    // A removed metric can be registered again (a task that comes back after a rebalance).
    registry.gauge('stream-task-metrics', task, { name: 'a', description: 'd' }, () => 1);
    expect(registry.removeMetrics({})).toBe(3);
    expect(registry.metrics()).toEqual([]);
  });

  it('removes the metrics of a sensor, and only those', () => {
    const tags = { 'thread-id': 't1' };
    const kept = registry.sensor('g', tags, [{ name: 'kept', description: 'd', stat: 'cumulative-count' }]);
    const removed = registry.sensor('g', tags, [
      { name: 'gone-avg', description: 'd', stat: 'avg' },
      { name: 'gone-total', description: 'd', stat: 'cumulative-count' },
    ]);
    registry.removeSensor(removed);
    removed.record(1);
    kept.record(1);
    expect(registry.metrics().map((s) => [s.name, s.value])).toEqual([['kept', 1]]);
  });

  it('filters the listing by group and name', () => {
    registry.gauge('g1', {}, { name: 'x', description: 'd' }, () => 1);
    registry.gauge('g1', {}, { name: 'y', description: 'd' }, () => 2);
    registry.gauge('g2', {}, { name: 'x', description: 'd' }, () => 3);
    expect(registry.metrics({ group: 'g1' }).map((s) => s.value)).toEqual([1, 2]);
    expect(registry.metrics({ name: 'x' }).map((s) => s.value)).toEqual([1, 3]);
    expect(registry.metrics({ group: 'g2', name: 'y' })).toEqual([]);
  });

  it('keeps the tags it was given from changing under it', () => {
    const tags: Record<string, string> = { 'thread-id': 't1' };
    registry.gauge('g', tags, { name: 'x', description: 'd' }, () => 1);
    tags['thread-id'] = 'changed';
    const [snapshot] = registry.metrics();
    expect(snapshot?.tags).toEqual({ 'thread-id': 't1' });
    expect(Object.isFrozen(snapshot?.tags)).toBe(true);
  });

  it('uses the configured sampling for every sensor', () => {
    const fast = new MetricsRegistry({ clock: () => now, samples: 1, sampleWindowMs: 1000 });
    const sensor = fast.sensor('g', {}, [{ name: 'max', description: 'd', stat: 'max' }]);
    sensor.record(5);
    now += 1000;
    expect(fast.metrics()[0]?.value).toBeNaN();
  });

  it('rejects sampling that cannot work', () => {
    expect(() => new MetricsRegistry({ samples: 0 })).toThrow(ConfigException);
    expect(() => new MetricsRegistry({ samples: 1.5 })).toThrow(ConfigException);
    expect(() => new MetricsRegistry({ sampleWindowMs: 0 })).toThrow(ConfigException);
  });
});
