/**
 * The metrics of one streams instance, in the manner of Kafka's `Metrics`: each metric is identified by group,
 * name and tags, has a description, and takes its value either from a stat of a sensor or from a gauge function.
 * The registry is touched when metrics are created, removed or listed, never on the recording path: the runtime
 * holds its sensors and records into them directly.
 */

import { ConfigException, StreamsException } from '../../errors';
import { isWindowed, Sensor, type SampleWindowConfig, type StatKind } from './sensor';

export type MetricTags = Readonly<Record<string, string>>;

/** Text values are for metrics such as version, state or topology description. */
export type MetricValue = number | string;

/** One metric of a sensor: its name, description and which stat of the sensor it reports. */
export interface StatDefinition {
  readonly name: string;
  readonly description: string;
  readonly stat: StatKind;
}

export interface GaugeDefinition {
  readonly name: string;
  readonly description: string;
}

/** A metric and its value at the time of listing. `value` is NaN for a stat with no measurement yet. */
export interface MetricSnapshot {
  readonly group: string;
  readonly name: string;
  readonly description: string;
  readonly tags: MetricTags;
  readonly value: MetricValue;
}

export interface MetricsFilter {
  readonly group?: string;
  readonly name?: string;
}

export interface MetricsRegistryOptions {
  /** Epoch ms; `Date.now` unless a test injects its own. */
  readonly clock?: () => number;
  /** Sampled stats keep this many windows (Kafka's `metrics.num.samples`, default 2). */
  readonly samples?: number;
  /** Length of one window (Kafka's `metrics.sample.window.ms`, default 30 000). */
  readonly sampleWindowMs?: number;
}

interface RegisteredMetric {
  readonly group: string;
  readonly name: string;
  readonly description: string;
  readonly tags: MetricTags;
  /** The sensor the metric reads, so that removing the sensor finds its metrics. */
  readonly sensor: Sensor | undefined;
  read(nowMs: number): MetricValue;
}

export class MetricsRegistry {
  private readonly metricsByKey = new Map<string, RegisteredMetric>();
  private readonly clock: () => number;
  private readonly windowConfig: SampleWindowConfig;
  private readonly sources = new Set<() => readonly MetricSnapshot[]>();

  constructor(options: MetricsRegistryOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.windowConfig = { samples: options.samples ?? 2, windowMs: options.sampleWindowMs ?? 30_000 };
    const { samples, windowMs } = this.windowConfig;
    if (!Number.isInteger(samples) || samples < 1 || !(windowMs > 0)) {
      throw new ConfigException(`metrics need a whole number of samples of a positive length, got ${samples} × ${windowMs} ms`);
    }
  }

  /**
   * Creates a sensor whose recordings feed one metric per stat definition, all in `group` with `tags`. Throws
   * when one of these metrics exists already, and then registers none of them.
   */
  sensor(group: string, tags: MetricTags, stats: readonly StatDefinition[]): Sensor {
    const frozenTags = freezeTags(tags);
    const sensor = new Sensor(this.clock, this.windowConfig, stats.some((s) => isWindowed(s.stat)));
    this.addAll(
      stats.map((definition) => ({
        group,
        name: definition.name,
        description: definition.description,
        tags: frozenTags,
        sensor,
        read: (nowMs: number) => sensor.measure(definition.stat, nowMs),
      })),
    );
    return sensor;
  }

  /** Adds a metric whose value `read` computes at listing time. Throws when the metric exists already. */
  gauge(group: string, tags: MetricTags, definition: GaugeDefinition, read: () => MetricValue): void {
    this.addAll([
      { group, name: definition.name, description: definition.description, tags: freezeTags(tags), sensor: undefined, read },
    ]);
  }

  /** Removes the metrics of a sensor. Recording into it afterwards is harmless: nothing reads it any more. */
  removeSensor(sensor: Sensor): void {
    for (const [key, metric] of this.metricsByKey) {
      if (metric.sensor === sensor) this.metricsByKey.delete(key);
    }
  }

  /**
   * Removes every metric whose tags include all of `tags` (same names, same values), whatever its group: with a
   * task's thread-id and task-id this removes the task's metrics and those of its processor nodes and stores.
   * Empty `tags` remove everything. Answers how many metrics were removed.
   */
  removeMetrics(tags: MetricTags): number {
    const wanted = Object.entries(tags);
    let removed = 0;
    for (const [key, metric] of this.metricsByKey) {
      if (wanted.every(([name, value]) => metric.tags[name] === value)) {
        this.metricsByKey.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  /**
   * Lists `source`'s metrics with this registry's, after them: metrics recorded elsewhere (a stream thread in a
   * worker, as it last sent them). Answers a function that stops listing them.
   */
  addSource(source: () => readonly MetricSnapshot[]): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Every metric (or those of one group and/or name) with its current value, in registration order, then the sources'. */
  metrics(filter: MetricsFilter = {}): MetricSnapshot[] {
    const now = this.clock();
    const snapshots: MetricSnapshot[] = [];
    for (const metric of this.metricsByKey.values()) {
      if (filter.group !== undefined && metric.group !== filter.group) continue;
      if (filter.name !== undefined && metric.name !== filter.name) continue;
      snapshots.push({
        group: metric.group,
        name: metric.name,
        description: metric.description,
        tags: metric.tags,
        value: metric.read(now),
      });
    }
    for (const source of this.sources) {
      for (const metric of source()) {
        if ((filter.group === undefined || metric.group === filter.group) && (filter.name === undefined || metric.name === filter.name)) snapshots.push(metric);
      }
    }
    return snapshots;
  }

  private addAll(metrics: readonly RegisteredMetric[]): void {
    const keyed = metrics.map((metric) => [metricKey(metric.group, metric.name, metric.tags), metric] as const);
    const seen = new Set<string>();
    for (const [key, metric] of keyed) {
      if (this.metricsByKey.has(key) || seen.has(key)) {
        throw new StreamsException(
          `Metric ${metric.name} of group ${metric.group} with tags ${JSON.stringify(metric.tags)} is already registered`,
        );
      }
      seen.add(key);
    }
    for (const [key, metric] of keyed) this.metricsByKey.set(key, metric);
  }
}

/** Snapshots hand out the registered tags themselves, so they must not change afterwards. */
function freezeTags(tags: MetricTags): MetricTags {
  return Object.freeze({ ...tags });
}

/** Identity of a metric: tag order does not matter, and JSON keeps the parts apart whatever characters they hold. */
function metricKey(group: string, name: string, tags: MetricTags): string {
  const sortedTags = Object.keys(tags)
    .sort()
    .map((k) => [k, tags[k]]);
  return JSON.stringify([group, name, sortedTags]);
}
