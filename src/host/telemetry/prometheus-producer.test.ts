import { DataPointType, type MetricData } from '@opentelemetry/sdk-metrics';
import { Counter, Registry } from 'prom-client';
import { renderPrometheus, streamsFamilies, type ApplicationMetrics } from '../../streams/metrics/prometheus';
import { prometheusProducer } from './prometheus-producer';

const applications: ApplicationMetrics[] = [
  {
    applicationId: 'orders-app',
    snapshots: [
      { group: 'stream-thread-metrics', name: 'process-total', description: 'records processed', tags: { 'thread-id': 't-1' }, value: 42 },
      { group: 'stream-thread-metrics', name: 'process-rate', description: 'records per second', tags: { 'thread-id': 't-1' }, value: 1.5 },
      { group: 'stream-metrics', name: 'state', description: 'the instance state', tags: {}, value: 'RUNNING' },
    ],
  },
];

describe('the Prometheus metrics as an OTLP MetricProducer', () => {
  it('exports every series /prometheus writes, under the same names and labels: counters as monotonic sums, the rest gauges', async () => {
    const process = new Registry();
    new Counter({ name: 'process_restarts_total', help: 'restarts', registers: [process] }).inc(2);
    const { resourceMetrics, errors } = await prometheusProducer({ streams: () => streamsFamilies(applications), process: () => process }).collect();
    expect(errors).toEqual([]);
    const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    const byName = new Map<string, MetricData>(metrics.map((metric) => [metric.descriptor.name, metric]));

    // The sample names of the exposition are the metrics' names.
    const text = await renderPrometheus(applications, { includeProcessMetrics: false });
    const sampleNames = new Set(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.split('{', 1)[0]));
    expect([...byName.keys()].sort()).toEqual([...sampleNames, 'process_restarts_total'].sort());

    const total = byName.get('streams_process_total')!;
    expect(total).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: true, descriptor: { description: 'records processed' } });
    expect(total.dataPoints).toEqual([
      expect.objectContaining({ value: 42, attributes: { group: 'stream-thread-metrics', application_id: 'orders-app', thread_id: 't-1' } }),
    ]);
    expect(byName.get('streams_process_rate')!.dataPointType).toBe(DataPointType.GAUGE);
    expect(byName.get('streams_state_info')!.dataPoints).toEqual([
      expect.objectContaining({ value: 1, attributes: { group: 'stream-metrics', application_id: 'orders-app', value: 'RUNNING' } }),
    ]);
    expect(byName.get('process_restarts_total')).toMatchObject({ dataPointType: DataPointType.SUM, dataPoints: [expect.objectContaining({ value: 2 })] });
  });
});
