/**
 * The live figures of the topology graph, from one reading of the node's metrics and offsets: per processor node what
 * it processed and failed on, and the records' end-to-end latency where it is recorded (the sources); per store its
 * keys, its bytes on disk and its record cache's hit ratio (which Kafka Streams records at DEBUG only); per internal
 * topic the group's lag on this node's partitions of it. Summed (or averaged) over the node's tasks. Pure: no DOM.
 */

import type { ConsumerOffsets, MetricGroup } from '../../../src/client/types';

export interface NodeFigures {
  processed: number;
  failed: number;
  /** Milliseconds, the mean of the tasks' averages; absent where no record was measured lately. */
  latencyAvgMs?: number;
  latencyMaxMs?: number;
}

export interface StoreFigures {
  keys?: number;
  bytes?: number;
  /** 0 to 1. */
  hitRatio?: number;
}

export interface Reading {
  /** performance.now() when read, for the rates. */
  at: number;
  nodes: ReadonlyMap<string, NodeFigures>;
  stores: ReadonlyMap<string, StoreFigures>;
  /** Records behind, by the internal topic's name in the topology. */
  lags: ReadonlyMap<string, number>;
}

/** What the graph reads in one poll. */
export interface Polled {
  groups: readonly MetricGroup[];
  /** Read only when the topology has internal topics. */
  offsets?: ConsumerOffsets;
}

const mean = (values: number[]) => (values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length);

/**
 * One reading. `id` is the application's: an internal topic is named `<id>-<name>` in Kafka; `internalTopics` are the
 * names the graph draws.
 */
export function readingOf(at: number, polled: Polled, id: string, internalTopics: ReadonlySet<string>): Reading {
  const nodes = new Map<string, NodeFigures>();
  const latencies = new Map<string, { avg: number[]; max: number[] }>();
  const stores = new Map<string, StoreFigures>();
  const hitRatios = new Map<string, number[]>();
  const storeOf = (name: string) => stores.get(name) ?? stores.set(name, {}).get(name)!;
  for (const group of polled.groups) {
    for (const { name, tags, value } of group.metrics) {
      if (!Number.isFinite(value)) continue;
      if (group.name === 'stream-processor-node-metrics') {
        const node = tags['processor-node-id'];
        if (node === undefined) continue;
        const figures = nodes.get(node) ?? nodes.set(node, { processed: 0, failed: 0 }).get(node)!;
        const latency = latencies.get(node) ?? latencies.set(node, { avg: [], max: [] }).get(node)!;
        if (name === 'process-total') figures.processed += value;
        else if (name === 'failed-records-total') figures.failed += value;
        else if (name === 'record-e2e-latency-avg') latency.avg.push(value);
        else if (name === 'record-e2e-latency-max') latency.max.push(value);
      } else if (group.name === 'stream-state-metrics') {
        const store = Object.entries(tags).find(([key]) => key.endsWith('-state-id'))?.[1];
        if (store === undefined) continue;
        if (name === 'estimate-num-keys') storeOf(store).keys = (storeOf(store).keys ?? 0) + value;
        else if (name === 'size-on-disk-bytes') storeOf(store).bytes = (storeOf(store).bytes ?? 0) + value;
      } else if (group.name === 'stream-record-cache-metrics' && name === 'hit-ratio-avg') {
        const store = tags['record-cache-id'];
        if (store !== undefined) (hitRatios.get(store) ?? hitRatios.set(store, []).get(store)!).push(value);
      }
    }
  }
  for (const [node, { avg, max }] of latencies) {
    const figures = nodes.get(node)!;
    const avgMs = mean(avg);
    if (avgMs !== undefined) figures.latencyAvgMs = avgMs;
    if (max.length > 0) figures.latencyMaxMs = Math.max(...max);
  }
  for (const [store, ratios] of hitRatios) {
    // Stores the graph does not draw (the thread's cache as a whole) are left out.
    if (stores.has(store)) storeOf(store).hitRatio = mean(ratios)!;
  }
  const lags = new Map<string, number>();
  const prefix = `${id}-`;
  for (const position of polled.offsets?.consumers.flatMap((c) => c.positions) ?? []) {
    const name = position.topic.startsWith(prefix) ? position.topic.slice(prefix.length) : undefined;
    // -1: the log end is not known yet.
    if (name === undefined || !internalTopics.has(name) || position.lag < 0) continue;
    lags.set(name, (lags.get(name) ?? 0) + position.lag);
  }
  return { at, nodes, stores, lags };
}

/**
 * Records per second through each processor node between two readings. A task that moved away takes its count
 * along: a fall reads as 0, not as negative; a node first seen reads as 0.
 */
export function ratesBetween(before: Reading, after: Reading): ReadonlyMap<string, number> {
  const seconds = (after.at - before.at) / 1000;
  const rates = new Map<string, number>();
  if (seconds <= 0) return rates;
  for (const [node, { processed }] of after.nodes) {
    const previous = before.nodes.get(node)?.processed ?? processed;
    rates.set(node, Math.max(0, (processed - previous) / seconds));
  }
  return rates;
}

export function rateText(perSecond: number): string {
  if (perSecond >= 10_000) return `${Math.round(perSecond / 1000)}k/s`;
  if (perSecond >= 1_000) return `${(perSecond / 1000).toFixed(1)}k/s`;
  return `${perSecond < 10 && perSecond > 0 ? perSecond.toFixed(1) : Math.round(perSecond)}/s`;
}

/** A count in at most four characters: 999, 1.2k, 12k, 1.2M. */
export function countText(n: number): string {
  const scaled = (value: number, unit: string) => `${value < 10 ? value.toFixed(1) : Math.round(value)}${unit}`;
  if (n >= 1_000_000) return scaled(n / 1_000_000, 'M');
  if (n >= 1_000) return scaled(n / 1_000, 'k');
  return String(Math.round(n));
}

export function bytesText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Kafka Streams' latencies are in milliseconds. */
export function msText(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s`;
  if (ms >= 10 || ms === 0) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export const percentText = (ratio: number) => `${Math.round(ratio * 100)} %`;

/** One figure of the short line under a node: what it is, its value, and how it reads. */
export interface Figure {
  kind: 'rate' | 'latency' | 'failed' | 'keys' | 'bytes' | 'hits' | 'lag';
  value: number;
  text: string;
}

/** Under a processor node: its rate, its records' latency where recorded, its failures when any. */
export function nodeFigures(rate: number | undefined, figures: NodeFigures | undefined): Figure[] {
  return [
    ...(rate === undefined ? [] : [{ kind: 'rate' as const, value: rate, text: rateText(rate) }]),
    ...(figures?.latencyAvgMs === undefined ? [] : [{ kind: 'latency' as const, value: figures.latencyAvgMs, text: msText(figures.latencyAvgMs) }]),
    ...(figures === undefined || figures.failed === 0 ? [] : [{ kind: 'failed' as const, value: figures.failed, text: `${countText(figures.failed)} failed` }]),
  ];
}

/** Under a store: its keys, its bytes on disk, its cache's hits when recorded. */
export function storeFigures(figures: StoreFigures | undefined): Figure[] {
  if (figures === undefined) return [];
  return [
    ...(figures.keys === undefined ? [] : [{ kind: 'keys' as const, value: figures.keys, text: `${countText(figures.keys)} keys` }]),
    ...(figures.bytes === undefined ? [] : [{ kind: 'bytes' as const, value: figures.bytes, text: bytesText(figures.bytes) }]),
    ...(figures.hitRatio === undefined ? [] : [{ kind: 'hits' as const, value: figures.hitRatio, text: `${percentText(figures.hitRatio)} hits` }]),
  ];
}

/** Under an internal topic: the records its readers on this node have still to consume. */
export function lagFigures(lag: number | undefined): Figure[] {
  return lag === undefined ? [] : [{ kind: 'lag', value: lag, text: `lag ${countText(lag)}` }];
}

export const lineOf = (figures: readonly Figure[]) => figures.map((f) => f.text).join(' · ');
