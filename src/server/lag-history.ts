/**
 * The lag history behind `GET /api/v1/streams/{id}/offsets/history`: the node samples each local instance's
 * consumer lag on an interval and keeps it in memory, in fixed-size ring buffers, so that a chart of the last day
 * outlives the page that draws it. Two tiers: every sample for the last hour, and one per minute (its maximum) for
 * the last 24 hours. Lag in time is estimated as Burrow and kminion do, from the history of each partition's end
 * offset: how long ago the log end passed the consumer's position.
 */

import type { ConsumerOffsets } from '../streams/runtime/instance-view';
import type { InstanceRegistry } from './context';

export const SAMPLE_INTERVAL_MS = 10_000;
export const FINE_ENTRIES = 360;
export const MINUTE_MS = 60_000;
export const MINUTE_ENTRIES = 1440;
/** Topics charted apart per instance; the lag of any further topic counts in the group's total only. */
export const MAX_TOPICS = 32;
/** Partitions whose end offsets are kept for the time estimate; past them a partition's lag in time is unknown. */
export const MAX_PARTITIONS = 256;

export type LagRange = '15m' | '1h' | '24h';
export const LAG_RANGES: readonly LagRange[] = ['15m', '1h', '24h'];
const RANGE_MS: Record<LagRange, number> = { '15m': 15 * 60_000, '1h': 60 * 60_000, '24h': 24 * 60 * 60_000 };

/** How a minute's samples become its one entry: the largest (lag: a spike stays visible), or the last (an end offset). */
type Fold = 'max' | 'last';

function fold(how: Fold, previous: number, next: number): number {
  if (how === 'last' || Number.isNaN(previous)) return next;
  return Number.isNaN(next) ? previous : Math.max(previous, next);
}

/** A fixed number of entries of a time and fixed fields, the oldest overwritten: 8 bytes per number held. */
export class Ring {
  private readonly data: Float64Array;
  private start = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    /** Numbers per entry, its time included. */
    private readonly width: number,
  ) {
    this.data = new Float64Array(capacity * width);
  }

  get size(): number {
    return this.count;
  }

  get bytes(): number {
    return this.data.byteLength;
  }

  push(entry: readonly number[]): void {
    const slot = (this.start + this.count) % this.capacity;
    this.data.set(entry, slot * this.width);
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity;
  }

  /** The i-th entry, oldest first. */
  at(i: number): number[] {
    const slot = ((this.start + i) % this.capacity) * this.width;
    return Array.from(this.data.subarray(slot, slot + this.width));
  }

  entries(): number[][] {
    return Array.from({ length: this.count }, (_, i) => this.at(i));
  }
}

/**
 * Entries of `[time, ...fields]`: each sample for the last `FINE_ENTRIES`, and per minute the samples folded into one
 * (its time the minute's last sample's) for the last `MINUTE_ENTRIES`. The minute being sampled is kept aside until
 * the first sample of the next.
 */
export class TieredSeries {
  readonly fine: Ring;
  readonly minutes: Ring;
  private pending: number[] | undefined;

  constructor(
    private readonly folds: readonly Fold[],
    capacities: { fine: number; minutes: number } = { fine: FINE_ENTRIES, minutes: MINUTE_ENTRIES },
  ) {
    this.fine = new Ring(capacities.fine, folds.length + 1);
    this.minutes = new Ring(capacities.minutes, folds.length + 1);
  }

  get bytes(): number {
    return this.fine.bytes + this.minutes.bytes;
  }

  add(time: number, values: readonly number[]): void {
    this.fine.push([time, ...values]);
    const pending = this.pending;
    if (pending !== undefined && Math.floor(pending[0]! / MINUTE_MS) === Math.floor(time / MINUTE_MS)) {
      this.pending = [time, ...this.folds.map((how, i) => fold(how, pending[i + 1]!, values[i]!))];
      return;
    }
    if (pending !== undefined) this.minutes.push(pending);
    this.pending = [time, ...values];
  }

  /** Every entry since `from`: the fine tier's, or per minute (the one under way last) when `perMinute`. */
  since(from: number, perMinute: boolean): number[][] {
    const entries = perMinute ? [...this.minutes.entries(), ...(this.pending ? [this.pending] : [])] : this.fine.entries();
    return entries.filter((entry) => entry[0]! >= from);
  }

  /** Every entry kept, oldest first: the minutes older than the fine tier's first, then the fine tier. */
  all(): number[][] {
    const fine = this.fine.entries();
    const first = fine[0]?.[0] ?? Infinity;
    return [...this.minutes.entries().filter((entry) => entry[0]! < first), ...fine];
  }
}

/**
 * How long ago the log end passed `position` (the next offset the consumer reads), from a partition's end offsets
 * over time (`[time, end]`, oldest first, the current one last): the record at `position` was appended between the
 * last sample whose end had not reached past it and the next, interpolated linearly. When the history does not reach
 * back that far, its span: the lag is at least that; NaN (unknown) from the current sample alone.
 */
export function timeLag(ends: readonly number[][], position: number, now: number): number {
  const latest = ends[ends.length - 1];
  if (latest === undefined || position >= latest[1]!) return 0;
  if (ends.length < 2) return NaN;
  for (let i = ends.length - 1; i > 0; i--) {
    const [t0, e0] = ends[i - 1] as [number, number];
    const [t1, e1] = ends[i] as [number, number];
    if (e0 <= position && e1 > position) {
      const appended = t0 + ((position + 1 - e0) / (e1 - e0)) * (t1 - t0);
      return Math.max(0, Math.round(now - appended));
    }
  }
  return Math.max(0, now - ends[0]![0]!);
}

export interface LagPoint {
  time: number;
  lag: number;
  time_lag_ms: number | null;
}

export interface LagHistoryResource {
  group: string;
  range: LagRange;
  step_ms: number;
  total: LagPoint[];
  topics: { topic: string; points: LagPoint[] }[];
}

const point = (entry: readonly number[]): LagPoint => ({
  time: entry[0]!,
  lag: entry[1]!,
  time_lag_ms: Number.isNaN(entry[2]) ? null : entry[2]!,
});

/** One instance's lag over time: its group's total and each topic's (records summed, time the largest). */
export class LagHistory {
  readonly total = new TieredSeries(['max', 'max']);
  private readonly topics = new Map<string, TieredSeries>();
  /** Each partition's end offset over time, for the lag in time. */
  private readonly ends = new Map<string, TieredSeries>();

  constructor(readonly group: string) {}

  /** Records one sample of the instance's positions; partitions whose end or position is not known yet are left out. */
  record(now: number, offsets: ConsumerOffsets): void {
    const byTopic = new Map<string, { lag: number; ms: number }>();
    for (const consumer of offsets.consumers) {
      for (const p of consumer.positions) {
        if (p.logEndOffset < 0 || p.lag < 0) continue;
        const ms = this.partitionTimeLag(`${p.topic}-${p.partition}`, now, p.logEndOffset, p.consumedOffset + 1);
        const topic = byTopic.get(p.topic) ?? { lag: 0, ms: NaN };
        byTopic.set(p.topic, { lag: topic.lag + p.lag, ms: fold('max', topic.ms, ms) });
      }
    }
    let lag = 0;
    let ms = NaN;
    for (const [name, topic] of byTopic) {
      lag += topic.lag;
      ms = fold('max', ms, topic.ms);
      let series = this.topics.get(name);
      if (series === undefined && this.topics.size < MAX_TOPICS) this.topics.set(name, (series = new TieredSeries(['max', 'max'])));
      series?.add(now, [topic.lag, topic.ms]);
    }
    if (byTopic.size > 0) this.total.add(now, [lag, ms]);
  }

  private partitionTimeLag(key: string, now: number, end: number, position: number): number {
    let ends = this.ends.get(key);
    if (ends === undefined) {
      if (this.ends.size >= MAX_PARTITIONS) return NaN;
      this.ends.set(key, (ends = new TieredSeries(['last'])));
    }
    ends.add(now, [end]);
    return timeLag(ends.all(), position, now);
  }

  /** The bytes its ring buffers hold: fixed once a series exists. */
  get bytes(): number {
    let bytes = this.total.bytes;
    for (const series of [...this.topics.values(), ...this.ends.values()]) bytes += series.bytes;
    return bytes;
  }

  resource(range: LagRange, now: number): LagHistoryResource {
    const perMinute = range === '24h';
    const from = now - RANGE_MS[range];
    return {
      group: this.group,
      range,
      step_ms: perMinute ? MINUTE_MS : SAMPLE_INTERVAL_MS,
      total: this.total.since(from, perMinute).map(point),
      topics: [...this.topics]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([topic, series]) => ({ topic, points: series.since(from, perMinute).map(point) })),
    };
  }
}

/** Samples every local instance's lag on an interval, from start to stop; an instance removed takes its history along. */
export class LagSampler {
  private readonly histories = new Map<string, LagHistory>();
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  constructor(
    private readonly instances: InstanceRegistry,
    private readonly intervalMs = SAMPLE_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    // Never what keeps the process up.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The history of a local instance; empty until its first sample. */
  history(id: string): LagHistory {
    return this.histories.get(id) ?? new LagHistory(id);
  }

  async sample(): Promise<void> {
    // A slow admin client must not pile samples up behind it.
    if (this.sampling) return;
    this.sampling = true;
    try {
      const instances = this.instances.list();
      for (const id of this.histories.keys()) if (!instances.some((i) => i.id === id)) this.histories.delete(id);
      for (const instance of instances) {
        // A stopped instance has no positions, nor one whose offsets cannot be read now: its chart shows the gap.
        let offsets: ConsumerOffsets | undefined;
        try {
          offsets = await instance.view?.offsets();
        } catch {
          continue;
        }
        if (offsets === undefined) continue;
        let history = this.histories.get(instance.id);
        if (history === undefined) this.histories.set(instance.id, (history = new LagHistory(offsets.group)));
        history.record(this.now(), offsets);
      }
    } finally {
      this.sampling = false;
    }
  }
}
