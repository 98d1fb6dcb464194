import type { ConsumerOffsets } from '../streams/runtime/instance-view';
import { FINE_ENTRIES, LagHistory, MAX_TOPICS, MINUTE_ENTRIES, MINUTE_MS, Ring, SAMPLE_INTERVAL_MS, TieredSeries, timeLag } from './lag-history';

const T0 = 1_700_000_000_000 - (1_700_000_000_000 % MINUTE_MS);

function offsets(positions: { topic: string; partition: number; consumed: number; end: number }[]): ConsumerOffsets {
  return {
    group: 'app',
    consumers: [
      {
        clientId: 'app-StreamThread-1-consumer',
        streamThread: 'app-StreamThread-1',
        positions: positions.map((p) => ({
          topic: p.topic,
          partition: p.partition,
          consumedOffset: p.consumed,
          consumedTimestamp: -1,
          committedOffset: p.consumed,
          committedTimestamp: -1,
          logEndOffset: p.end,
          logStartOffset: 0,
          lag: Math.max(p.end - p.consumed - 1, 0),
        })),
      },
    ],
  };
}

describe('Ring', () => {
  it('keeps its capacity, oldest overwritten, in a buffer of 8 bytes per number', () => {
    const ring = new Ring(3, 2);
    for (let i = 0; i < 5; i++) ring.push([i, i * 10]);
    expect(ring.size).toBe(3);
    expect(ring.entries()).toEqual([
      [2, 20],
      [3, 30],
      [4, 40],
    ]);
    expect(ring.bytes).toBe(3 * 2 * 8);
  });
});

describe('TieredSeries', () => {
  it('keeps the last hour of samples and the last day of minutes, whatever it is fed', () => {
    const series = new TieredSeries(['max', 'max']);
    const bytes = series.bytes;
    // Two days of samples every 10 s.
    for (let t = T0; t < T0 + 2 * 24 * 60 * MINUTE_MS; t += SAMPLE_INTERVAL_MS) series.add(t, [1, 2]);
    expect(series.fine.size).toBe(FINE_ENTRIES);
    expect(series.minutes.size).toBe(MINUTE_ENTRIES);
    expect(series.bytes).toBe(bytes);
    expect(bytes).toBe((FINE_ENTRIES + MINUTE_ENTRIES) * 3 * 8);
  });

  it("folds a minute's samples into one entry, its largest lag at the minute's last sample's time", () => {
    const series = new TieredSeries(['max', 'last']);
    const lags = [3, 9, 4, 2, 5, 1];
    lags.forEach((lag, i) => series.add(T0 + i * SAMPLE_INTERVAL_MS, [lag, 100 + i]));
    series.add(T0 + MINUTE_MS, [7, 200]);
    expect(series.minutes.entries()).toEqual([[T0 + 5 * SAMPLE_INTERVAL_MS, 9, 105]]);
    // The minute under way is read too, as the newest.
    expect(series.since(0, true)).toEqual([
      [T0 + 5 * SAMPLE_INTERVAL_MS, 9, 105],
      [T0 + MINUTE_MS, 7, 200],
    ]);
    expect(series.since(T0 + 4 * SAMPLE_INTERVAL_MS, false).map((e) => e[1])).toEqual([5, 1, 7]);
  });

  it('a lag unknown for part of a minute leaves the known one', () => {
    const series = new TieredSeries(['max']);
    series.add(T0, [NaN]);
    series.add(T0 + SAMPLE_INTERVAL_MS, [4]);
    series.add(T0 + MINUTE_MS, [0]);
    expect(series.minutes.entries()).toEqual([[T0 + SAMPLE_INTERVAL_MS, 4]]);
  });
});

describe('timeLag', () => {
  const ends = [
    [0, 100],
    [10_000, 200],
    [20_000, 300],
  ];
  it('is how long ago the log end passed the position, interpolated between samples', () => {
    expect(timeLag(ends, 300, 20_000)).toBe(0);
    expect(timeLag(ends, 249, 20_000)).toBe(5_000);
    expect(timeLag(ends, 199, 20_000)).toBe(10_000);
  });
  it('is at least the span of the history when the position is older; unknown from one sample', () => {
    expect(timeLag(ends, 50, 20_000)).toBe(20_000);
    expect(timeLag([[0, 100]], 50, 0)).toBeNaN();
  });
});

describe('LagHistory', () => {
  it('sums lag per topic and for the group, and takes the largest lag in time', () => {
    const history = new LagHistory('app');
    history.record(T0, offsets([{ topic: 'in', partition: 0, consumed: 9, end: 10 }]));
    history.record(
      T0 + SAMPLE_INTERVAL_MS,
      offsets([
        { topic: 'in', partition: 0, consumed: 9, end: 30 },
        { topic: 'in', partition: 1, consumed: 4, end: 10 },
        { topic: 'repartition', partition: 0, consumed: -1, end: -1 },
      ]),
    );
    const resource = history.resource('15m', T0 + SAMPLE_INTERVAL_MS);
    expect(resource.step_ms).toBe(SAMPLE_INTERVAL_MS);
    expect(resource.topics.map((t) => t.topic)).toEqual(['in']);
    const last = resource.total[resource.total.length - 1];
    // Partition 0: 20 behind, appended since the first sample (half way, at the second's 10 s: 9.5 s ago); partition 1 new, unknown.
    expect(last).toEqual({ time: T0 + SAMPLE_INTERVAL_MS, lag: 25, time_lag_ms: 9_500 });
  });

  it(`charts at most ${MAX_TOPICS} topics apart, all of them in the total`, () => {
    const history = new LagHistory('app');
    const topics = Array.from({ length: MAX_TOPICS + 8 }, (_, i) => ({ topic: `t${String(i).padStart(2, '0')}`, partition: 0, consumed: 0, end: 2 }));
    history.record(T0, offsets(topics));
    const resource = history.resource('1h', T0);
    expect(resource.topics).toHaveLength(MAX_TOPICS);
    expect(resource.total[0]!.lag).toBe(topics.length);
  });
});
