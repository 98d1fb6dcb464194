import { Sensor, type StatKind } from './sensor';

const WINDOW = { samples: 2, windowMs: 30_000 };

function fixture(): { sensor: Sensor; clock: { now: number }; measure: (stat: StatKind) => number } {
  const clock = { now: 0 };
  const sensor = new Sensor(() => clock.now, WINDOW, true);
  return { sensor, clock, measure: (stat) => sensor.measure(stat, clock.now) };
}

describe('Sensor', () => {
  it('gives the rate over the sampled window, as Kafka computes it', () => {
    const { sensor, clock, measure } = fixture();
    // One event a second for 60 s: t = 0..29 s fill the first sample, t = 30..59 s the second.
    for (let second = 0; second < 60; second++) {
      clock.now = second * 1000;
      sensor.record(2);
    }
    clock.now = 59_999;
    expect(measure('rate')).toBeCloseTo(60 / 59.999, 9);
    expect(measure('sum-rate')).toBeCloseTo(120 / 59.999, 9);
    // At 61 s the first sample started more than a span ago, but its last event (29 s) is recent: it is kept.
    clock.now = 61_000;
    expect(measure('rate')).toBeCloseTo(60 / 61, 12);
    expect(measure('sum-rate')).toBeCloseTo(120 / 61, 12);
    // A third sample opens beside the two (Kafka keeps samples + 1 of them).
    sensor.record(2);
    clock.now = 62_000;
    expect(measure('rate')).toBeCloseTo(61 / 62, 12);
    // At 89 s the first sample's last event is a span old: it is dropped, leaving 31 events since 30 s.
    clock.now = 89_000;
    expect(measure('rate')).toBeCloseTo(31 / 59, 12);
    // Both samples obsolete: nothing left, and the window counts at least samples - 1 full windows.
    clock.now = 200_000;
    expect(measure('rate')).toBe(0);
  });

  it('does not spike right after the first event: the window is at least one full window long', () => {
    const { sensor, measure } = fixture();
    sensor.record();
    expect(measure('rate')).toBeCloseTo(1 / 30, 12);
  });

  it('averages and bounds the values of the window, NaN once nothing is left in it', () => {
    const { sensor, clock, measure } = fixture();
    expect(measure('avg')).toBeNaN();
    expect(measure('max')).toBeNaN();
    expect(measure('min')).toBeNaN();
    sensor.record(10);
    clock.now = 31_000;
    sensor.record(30);
    sensor.record(-5);
    expect(measure('avg')).toBeCloseTo(35 / 3, 12);
    expect(measure('max')).toBe(30);
    expect(measure('min')).toBe(-5);
    // The sample holding 10 expires at 60 s; the other one (started at 31 s) lasts until 91 s.
    clock.now = 60_000;
    expect(measure('avg')).toBe(12.5);
    expect(measure('max')).toBe(30);
    clock.now = 91_000;
    expect(measure('avg')).toBeNaN();
    expect(measure('max')).toBeNaN();
  });

  it('keeps cumulative count and sum and the last value beyond the window', () => {
    const { sensor, clock, measure } = fixture();
    expect(measure('value')).toBe(0);
    sensor.record(4);
    sensor.record(0.5);
    clock.now = 10 * 60_000;
    expect(measure('cumulative-count')).toBe(2);
    expect(measure('cumulative-sum')).toBe(4.5);
    expect(measure('value')).toBe(0.5);
    sensor.record();
    expect(measure('cumulative-sum')).toBe(5.5);
  });

  it('uses the time the caller passes instead of reading the clock', () => {
    const clock = jest.fn(() => 0);
    const sensor = new Sensor(clock, WINDOW, true);
    sensor.record(1, 0);
    sensor.record(1, 45_000);
    expect(clock).not.toHaveBeenCalled();
    // The second recording went to a new sample (started at 45 s): at 60 s the first is gone, one event remains,
    // and the window is stretched from 15 s to one full window plus those 15 s.
    expect(sensor.measure('cumulative-count', 60_000)).toBe(2);
    expect(sensor.measure('rate', 60_000)).toBeCloseTo(1 / 45, 12);
  });

  it('does not read the clock when no metric needs a window', () => {
    const sensor = new Sensor(
      () => {
        throw new Error('clock read');
      },
      WINDOW,
      false,
    );
    sensor.record(3);
    expect(sensor.measure('cumulative-sum', 0)).toBe(3);
  });

  it('works with a single sample, which is simply restarted when it completes', () => {
    const clock = { now: 0 };
    const sensor = new Sensor(() => clock.now, { samples: 1, windowMs: 1000 }, true);
    sensor.record(5);
    clock.now = 1500;
    sensor.record(7);
    expect(sensor.measure('max', 1500)).toBe(7);
    expect(sensor.measure('rate', 2000)).toBe(2);
  });
});
