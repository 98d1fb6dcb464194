/** The metrics routes' selection and the `/value` text; the JSON and Prometheus forms come from the metrics layer. */

import { compareTags } from '../../streams/metrics/metric-order';
import type { MetricSnapshot, MetricsFilter } from '../../streams/metrics/metrics-registry';
import { UnknownMetric } from '../../errors';
import type { LocalInstance } from '../context';

/** Snapshots of the instance's metrics; a narrowed selection (group and/or name) that matches nothing is a 404. */
export function selectMetrics(instance: LocalInstance, filter: MetricsFilter): MetricSnapshot[] {
  const snapshots = instance.view?.metrics.metrics(filter) ?? [];
  if (snapshots.length === 0 && (filter.group !== undefined || filter.name !== undefined)) {
    throw new UnknownMetric(describeFilter(instance.id, filter));
  }
  return snapshots;
}

function describeFilter(id: string, filter: MetricsFilter): string {
  const parts = [filter.group !== undefined ? `group '${filter.group}'` : '', filter.name !== undefined ? `name '${filter.name}'` : ''];
  return `${parts.filter(Boolean).join(' and ')} in application '${id}'`;
}

/** `filter_empty`: leaves out what has no measurement yet and numeric zero, as the JSON form does. */
export function withoutEmpty(snapshots: readonly MetricSnapshot[]): MetricSnapshot[] {
  return snapshots.filter((s) => typeof s.value !== 'number' || (!Number.isNaN(s.value) && s.value !== 0));
}

/** The value of the first match (in tag order): numbers printed plainly, no measurement as `NaN`, text as is. */
export function metricValueText(snapshots: readonly MetricSnapshot[]): string {
  const first = [...snapshots].sort((a, b) => compareTags(a.tags, b.tags))[0];
  if (first === undefined) return 'NaN';
  return typeof first.value === 'string' ? first.value : String(first.value);
}
