/**
 * The node's Prometheus metrics, exported through OTLP under the same names and labels: a MetricProducer that the
 * OTLP reader collects at each export, made from what `/prometheus` writes (the streams families and prom-client's
 * process registry) at that moment, so that no metric is defined twice and a new one is exported with no change
 * here. Counters are cumulative monotonic sums since the node started, the rest gauges; a histogram's or summary's
 * series (`_bucket`, `_sum`, `_count`, quantiles) are gauges of their own names, as Prometheus shows them.
 */
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { AggregationTemporality, DataPointType, type CollectionResult, type MetricData, type MetricProducer } from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';
import { emptyResource } from '@opentelemetry/resources';
import type { PrometheusFamily } from '../../streams/metrics/prometheus';
import { SLUICE_TRACER_NAME } from '../../streams/runtime/sluice-tracer';
import { SLUICE_VERSION } from '../../streams/runtime/sluice-version';

export interface PrometheusSources {
  /** The streams families of every running instance. */
  streams(): PrometheusFamily[];
  /** Node's process metrics (prom-client's default collectors). */
  process(): Registry;
}

function metricData(name: string, help: string, counter: boolean, points: { attributes: Attributes; value: number }[], start: HrTime, end: HrTime): MetricData {
  const descriptor = { name, description: help, unit: '', valueType: ValueType.DOUBLE };
  const dataPoints = points.map(({ attributes, value }) => ({ startTime: start, endTime: end, attributes, value }));
  return counter
    ? { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints }
    : { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints };
}

/** prom-client's families, a histogram's or summary's split into its series by their own names. */
async function processMetrics(registry: Registry, start: HrTime, end: HrTime): Promise<MetricData[]> {
  const metrics: MetricData[] = [];
  for (const family of await registry.getMetricsAsJSON()) {
    const series = new Map<string, { attributes: Attributes; value: number }[]>();
    for (const sample of family.values) {
      const name = (sample as { metricName?: string }).metricName ?? family.name;
      const attributes = Object.fromEntries(Object.entries(sample.labels).map(([label, value]) => [label, String(value)]));
      series.set(name, [...(series.get(name) ?? []), { attributes, value: sample.value }]);
    }
    // prom-client types `type` as a numeric enum, but gives its name ('counter', 'gauge', ...).
    for (const [name, points] of series) metrics.push(metricData(name, family.help, String(family.type) === 'counter', points, start, end));
  }
  return metrics;
}

export function prometheusProducer(sources: PrometheusSources): MetricProducer {
  const start = hrTime();
  return {
    async collect(): Promise<CollectionResult> {
      const end = hrTime();
      const streams = sources.streams().map((family) =>
        metricData(
          family.name,
          family.help,
          family.type === 'counter',
          family.samples.map((sample) => ({ attributes: Object.fromEntries(sample.labels), value: sample.value })),
          start,
          end,
        ),
      );
      const errors: unknown[] = [];
      const process = await processMetrics(sources.process(), start, end).catch((error: unknown) => {
        errors.push(error);
        return [];
      });
      return {
        // The reader exports these with its own resource: this one is not read.
        resourceMetrics: { resource: emptyResource(), scopeMetrics: [{ scope: { name: SLUICE_TRACER_NAME, version: SLUICE_VERSION }, metrics: [...streams, ...process] }] },
        errors,
      };
    },
  };
}
