/**
 * Prometheus text exposition (format 0.0.4) of streams metrics, valid for strict parsers: one `# HELP` and one
 * `# TYPE` per family, the samples of a family together. A family is `streams_<metric name with - and . as _>`;
 * the same metric name in two groups is one family whose samples differ by their `group` label. Labels are
 * `group`, `application_id`, then the metric's tags with `-` as `_`. Metrics named `*-total` are counters, the
 * rest gauges; a text metric becomes `<family>_info{...,value="<text>"} 1`.
 */

import { Registry } from 'prom-client';
import { compareTags, compareText } from './metric-order';
import type { MetricSnapshot, MetricTags } from './metrics-registry';
import { processMetricsRegistry } from './process-metrics';

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The metrics of one streams instance, labelled with its application id. */
export interface ApplicationMetrics {
  readonly applicationId: string;
  readonly snapshots: readonly MetricSnapshot[];
}

export interface PrometheusOptions {
  /** Append Node's process metrics (`process_*`, `nodejs_*`), as the process-wide `/prometheus` does. */
  readonly includeProcessMetrics: boolean;
}

export async function renderPrometheus(
  applications: readonly ApplicationMetrics[],
  options: PrometheusOptions,
): Promise<string> {
  const streams = renderStreamsPrometheus(applications);
  if (!options.includeProcessMetrics) return streams;
  // The families cannot clash: every streams family starts with `streams_`, no process family does.
  const processText = await processMetricsRegistry().metrics();
  // prom-client prints NaN as `Nan` (e.g. event loop lag before its first measurement); the format says `NaN`.
  return streams + processText.replace(/^([^#].*) Nan$/gm, '$1 NaN');
}

/** One sample of a family: its labels in the order written, and its value (a text metric's is 1). */
export interface PrometheusSample {
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
}

/** A family as the exposition writes it, its samples in their order: what another exporter exports alike. */
export interface PrometheusFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: readonly PrometheusSample[];
}

interface Sample extends PrometheusSample {
  readonly group: string;
  readonly applicationId: string;
  readonly tags: MetricTags;
}

interface Family {
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: Sample[];
}

/** The streams families, by name, each family's samples in order. */
export function streamsFamilies(applications: readonly ApplicationMetrics[]): PrometheusFamily[] {
  const families = new Map<string, Family>();
  for (const { applicationId, snapshots } of applications) {
    for (const snapshot of snapshots) {
      const isText = typeof snapshot.value === 'string';
      const base = 'streams_' + snapshot.name.replace(/[^a-zA-Z0-9_:]/g, '_');
      const name = isText ? `${base}_info` : base;
      let family = families.get(name);
      if (family === undefined) {
        family = {
          // A HELP line needs some text; descriptions are not meant to be empty, but nothing enforces it.
          help: snapshot.description || snapshot.name,
          // Decided on the family name rather than the metric name, so that one family never gets two types.
          type: name.endsWith('_total') ? 'counter' : 'gauge',
          samples: [],
        };
        families.set(name, family);
      }
      family.samples.push({
        group: snapshot.group,
        applicationId,
        tags: snapshot.tags,
        labels: labelsOf(snapshot, applicationId),
        value: typeof snapshot.value === 'string' ? 1 : snapshot.value,
      });
    }
  }
  return [...families].sort(([a], [b]) => compareText(a, b)).map(([name, family]) => ({
    name,
    help: family.help,
    type: family.type,
    samples: family.samples.sort(
      (a, b) => compareText(a.group, b.group) || compareText(a.applicationId, b.applicationId) || compareTags(a.tags, b.tags),
    ),
  }));
}

/** The streams families alone; empty when there are no metrics. */
export function renderStreamsPrometheus(applications: readonly ApplicationMetrics[]): string {
  const lines: string[] = [];
  for (const family of streamsFamilies(applications)) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      lines.push(`${family.name}{${sample.labels.map(([label, value]) => `${label}="${escapeLabelValue(value)}"`).join(',')}} ${formatValue(sample.value)}`);
    }
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

function labelsOf(snapshot: MetricSnapshot, applicationId: string): [string, string][] {
  const text = typeof snapshot.value === 'string' ? snapshot.value : undefined;
  const used = new Set(['group', 'application_id']);
  if (text !== undefined) used.add('value');
  const labels: [string, string][] = [
    ['group', snapshot.group],
    ['application_id', applicationId],
  ];
  for (const [tag, tagValue] of Object.entries(snapshot.tags)) {
    let label = labelName(tag);
    // A tag whose label name is taken (by `group`, say) keeps a distinct name rather than a duplicate label.
    while (used.has(label)) label = `tag_${label}`;
    used.add(label);
    labels.push([label, tagValue]);
  }
  if (text !== undefined) labels.push(['value', text]);
  return labels;
}

/** Label names are [a-zA-Z_][a-zA-Z0-9_]*, and those starting with `__` are reserved to Prometheus. */
function labelName(tag: string): string {
  const name = tag.replace(/[^a-zA-Z0-9_]/g, '_');
  if (name === '' || /^[0-9]/.test(name)) return `_${name}`;
  return name.startsWith('__') ? `tag${name}` : name;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
