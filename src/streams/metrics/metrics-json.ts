/**
 * The JSON form of metrics that the management API serves (`GET .../metrics`, the SSE `metrics` event): groups
 * sorted by name, each with its metrics sorted by name then tags. Every value in it is a number, as the contract
 * says: a stat with no measurement yet (NaN) and text metrics (version, state, ...) are left out, the latter being
 * served by the `/value` endpoint and as Prometheus `_info` series.
 */

import { compareTags, compareText } from './metric-order';
import type { MetricSnapshot, MetricTags } from './metrics-registry';

export interface MetricJson {
  readonly name: string;
  readonly description: string;
  readonly tags: MetricTags;
  readonly value: number;
}

export interface MetricGroupJson {
  readonly name: string;
  readonly metrics: MetricJson[];
}

export interface MetricsJsonOptions {
  /** Also leave out metrics whose value is 0 (the API's `filter_empty`). */
  readonly filterEmpty?: boolean;
}

/** Groups left without any metric are left out too. */
export function metricGroupsJson(snapshots: readonly MetricSnapshot[], options: MetricsJsonOptions = {}): MetricGroupJson[] {
  const groups = new Map<string, MetricJson[]>();
  for (const { group, name, description, tags, value } of snapshots) {
    // Infinity has no JSON form either.
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (options.filterEmpty === true && value === 0) continue;
    let metrics = groups.get(group);
    if (metrics === undefined) {
      metrics = [];
      groups.set(group, metrics);
    }
    metrics.push({ name, description, tags, value });
  }
  return [...groups.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([name, metrics]) => ({
      name,
      metrics: metrics.sort((a, b) => compareText(a.name, b.name) || compareTags(a.tags, b.tags)),
    }));
}
