import { TopologyException } from '../../errors';
import { JoinWindows, SessionWindows, SlidingWindows, TimeWindows } from './windows';

describe('window specifications', () => {
  it('gives the epoch-aligned windows of a timestamp, as Kafka Streams does', () => {
    expect(TimeWindows.ofSizeWithNoGrace(10).windowsFor(25)).toEqual([{ start: 20, end: 30 }]);
    expect(TimeWindows.ofSizeWithNoGrace(10).advanceBy(3).windowsFor(25)).toEqual([
      { start: 18, end: 28 },
      { start: 21, end: 31 },
      { start: 24, end: 34 },
    ]);
    // No window starts before the epoch.
    expect(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5).windowsFor(3)).toEqual([{ start: 0, end: 10 }]);
  });

  it('refuses sizes, gaps and graces that make no windows', () => {
    expect(() => TimeWindows.ofSizeWithNoGrace(0)).toThrow(TopologyException);
    expect(() => TimeWindows.ofSizeAndGrace(10, -1)).toThrow(/grace period/);
    expect(() => TimeWindows.ofSizeWithNoGrace(10).advanceBy(11)).toThrow(/no larger than the window size/);
    expect(() => SessionWindows.ofInactivityGapWithNoGrace(0)).toThrow(/inactivity gap/);
    expect(() => SlidingWindows.ofTimeDifferenceAndGrace(1.5, 0)).toThrow(/time difference/);
  });

  it('sizes join windows from before and after', () => {
    const windows = JoinWindows.ofTimeDifferenceAndGrace(10, 3).before(2);
    expect([windows.beforeMs, windows.afterMs, windows.graceMs, windows.sizeMs]).toEqual([2, 10, 3, 12]);
  });
});
