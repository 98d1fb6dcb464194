/**
 * A sensor: the values that one event of the runtime produces (a latency, a count of records), recorded once
 * and read by every metric attached to it, as Kafka's `Sensor`. Kafka keeps one `SampledStat` per metric, each
 * with its own samples; here every windowed stat of a sensor is recorded at the same instants, so they share one
 * set of samples holding count, sum, min and max. Recording is then a handful of arithmetic operations on a
 * preallocated Float64Array, with no allocation and no dispatch per stat.
 *
 * Sampling follows Kafka 3.8+ (`SampledStat` after "Fix rate metric spikes"): `samples + 1` slots, a sample is
 * complete after one window, and a sample is dropped once its last event is a whole span (samples × window) old.
 */

/** What a metric of a sensor reports; the names are those of Kafka's stats. */
export type StatKind =
  /** `Avg`: mean of the values recorded in the sampled window; NaN when nothing was recorded in it. */
  | 'avg'
  /** `Max`: largest value recorded in the sampled window; NaN when nothing was recorded in it. */
  | 'max'
  /** `Min`: smallest value recorded in the sampled window; NaN when nothing was recorded in it. */
  | 'min'
  /** `Rate(WindowedCount)`: recordings per second over the sampled window (Kafka's invocation rate). */
  | 'rate'
  /** `Rate(WindowedSum)`: sum of the recorded values per second over the sampled window. */
  | 'sum-rate'
  /** `CumulativeCount`: recordings since the sensor was created. */
  | 'cumulative-count'
  /** `CumulativeSum`: sum of the values recorded since the sensor was created. */
  | 'cumulative-sum'
  /** `Value`: the last recorded value, 0 before the first. */
  | 'value';

/** Kafka's `MetricConfig` sampling: `samples` windows of `windowMs` each (defaults 2 × 30 s). */
export interface SampleWindowConfig {
  readonly samples: number;
  readonly windowMs: number;
}

const WINDOWED_STATS: ReadonlySet<StatKind> = new Set<StatKind>(['avg', 'max', 'min', 'rate', 'sum-rate']);

export function isWindowed(stat: StatKind): boolean {
  return WINDOWED_STATS.has(stat);
}

// Layout of one sample in the Float64Array.
const START = 0;
const LAST_EVENT = 1;
const COUNT = 2;
const SUM = 3;
const MIN = 4;
const MAX = 5;
const STRIDE = 6;

export class Sensor {
  /**
   * Samples as [start, last event, count, sum, min, max] × slots. A slot never used holds times of -Infinity: it
   * counts as complete, so the first recording moves on to a fresh slot, and as obsolete, so a measurement resets
   * it to "now" before it can weigh on the window size; both match Kafka's lazily created samples.
   */
  private readonly samples: Float64Array;
  /** Kafka keeps one slot more than `samples`, for the sample that started before the window but overlaps it. */
  private readonly slots: number;
  private readonly expireAgeMs: number;
  private readonly windowMs: number;
  private readonly minFullWindows: number;
  private current = 0;
  private count = 0;
  private sum = 0;
  private last = 0;

  /**
   * @param windowed whether any metric of the sensor reads the samples; when none does, recording neither reads
   *   the clock nor touches the samples.
   */
  constructor(
    private readonly clock: () => number,
    config: SampleWindowConfig,
    private readonly windowed: boolean,
  ) {
    this.slots = config.samples + 1;
    this.windowMs = config.windowMs;
    this.expireAgeMs = config.samples * config.windowMs;
    this.minFullWindows = config.samples - 1;
    this.samples = new Float64Array(windowed ? this.slots * STRIDE : 0);
    for (let base = 0; base < this.samples.length; base += STRIDE) this.resetSample(base, -Infinity);
  }

  /**
   * Records one event. `value` defaults to 1 (an occurrence); `nowMs` saves a clock read when the caller already
   * knows the time (it measured a latency, say).
   */
  record(value = 1, nowMs?: number): void {
    this.count += 1;
    this.sum += value;
    this.last = value;
    if (!this.windowed) return;
    const now = nowMs === undefined ? this.clock() : nowMs;
    const s = this.samples;
    let base = this.current * STRIDE;
    if (now - s[base + START] >= this.windowMs) {
      this.current = this.current + 1 === this.slots ? 0 : this.current + 1;
      base = this.current * STRIDE;
      this.resetSample(base, now);
    }
    s[base + LAST_EVENT] = now;
    s[base + COUNT] += 1;
    s[base + SUM] += value;
    if (value < s[base + MIN]) s[base + MIN] = value;
    if (value > s[base + MAX]) s[base + MAX] = value;
  }

  /** The value of one stat at `nowMs`. Reading a windowed stat first drops the samples that fell out of the window. */
  measure(stat: StatKind, nowMs: number): number {
    switch (stat) {
      case 'cumulative-count':
        return this.count;
      case 'cumulative-sum':
        return this.sum;
      case 'value':
        return this.last;
      default:
        break;
    }
    this.purgeObsoleteSamples(nowMs);
    const s = this.samples;
    let count = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let base = 0; base < s.length; base += STRIDE) {
      count += s[base + COUNT];
      sum += s[base + SUM];
      if (s[base + MIN] < min) min = s[base + MIN];
      if (s[base + MAX] > max) max = s[base + MAX];
    }
    switch (stat) {
      case 'avg':
        return count === 0 ? NaN : sum / count;
      case 'max':
        return count === 0 ? NaN : max;
      case 'min':
        return count === 0 ? NaN : min;
      case 'rate':
        return count / (this.windowSizeMs(nowMs) / 1000);
      case 'sum-rate':
        return sum / (this.windowSizeMs(nowMs) / 1000);
    }
  }

  private resetSample(base: number, start: number): void {
    const s = this.samples;
    s[base + START] = start;
    s[base + LAST_EVENT] = start;
    s[base + COUNT] = 0;
    s[base + SUM] = 0;
    s[base + MIN] = Infinity;
    s[base + MAX] = -Infinity;
  }

  /** Kafka's `SampledStat.purgeObsoleteSamples`: samples without an event in the last span are reset to now. */
  private purgeObsoleteSamples(nowMs: number): void {
    for (let base = 0; base < this.samples.length; base += STRIDE) {
      if (nowMs - this.samples[base + LAST_EVENT] >= this.expireAgeMs) this.resetSample(base, nowMs);
    }
  }

  /**
   * Kafka's `Rate.windowSize`: time since the oldest sample started, but never less than samples - 1 full
   * windows (so a rate does not spike right after startup or after a quiet spell), nor less than 1 ms.
   */
  private windowSizeMs(nowMs: number): number {
    let oldest = Infinity;
    for (let base = 0; base < this.samples.length; base += STRIDE) {
      if (this.samples[base + START] < oldest) oldest = this.samples[base + START];
    }
    let elapsed = nowMs - oldest;
    const fullWindows = Math.floor(elapsed / this.windowMs);
    if (fullWindows < this.minFullWindows) elapsed += (this.minFullWindows - fullWindows) * this.windowMs;
    return Math.max(elapsed, 1);
  }
}
