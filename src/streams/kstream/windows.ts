import { TopologyException } from '../../errors';
import type { Window } from '../state/store';

/**
 * The window specifications of the DSL (Kafka Streams' `TimeWindows`, `SlidingWindows`, `SessionWindows` and
 * `JoinWindows`). Times are in ms. The grace period is how long after a window's end records that are out of
 * order are still accepted; a record later than that is dropped (and counted in `dropped-records`).
 */

function checkMs(what: string, value: number, allowZero: boolean): void {
  if (!Number.isSafeInteger(value) || value < 0 || (!allowZero && value === 0)) {
    const bound = allowZero ? 'a non-negative' : 'a positive';
    throw new TopologyException(`${what} must be ${bound} integer of ms, got ${value}`);
  }
}

/** Fixed-size windows aligned to the epoch: tumbling (the default, advance = size) or hopping (`advanceBy`). */
export class TimeWindows {
  private constructor(
    readonly sizeMs: number,
    readonly advanceMs: number,
    readonly graceMs: number,
  ) {
    checkMs('the window size', sizeMs, false);
    checkMs('the window advance', advanceMs, false);
    checkMs('the grace period', graceMs, true);
    if (advanceMs > sizeMs) {
      throw new TopologyException(`the window advance (${advanceMs} ms) must be no larger than the window size (${sizeMs} ms)`);
    }
  }

  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return new TimeWindows(sizeMs, sizeMs, 0);
  }

  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    return new TimeWindows(sizeMs, sizeMs, graceMs);
  }

  /** Hopping windows: a new window starts every `advanceMs`. */
  advanceBy(advanceMs: number): TimeWindows {
    return new TimeWindows(this.sizeMs, advanceMs, this.graceMs);
  }

  /** The windows `[start, start + size)` that contain `timestamp`, oldest first (Kafka Streams' `windowsFor`). */
  windowsFor(timestamp: number): Window[] {
    const windows: Window[] = [];
    let start = Math.floor(Math.max(0, timestamp - this.sizeMs + this.advanceMs) / this.advanceMs) * this.advanceMs;
    for (; start <= timestamp; start += this.advanceMs) windows.push({ start, end: start + this.sizeMs });
    return windows;
  }
}

/**
 * Windows of a fixed time difference that slide with the records: a window `[start, start + difference]` (both
 * ends included) exists for every distinct set of records that fall within the difference of each other.
 */
export class SlidingWindows {
  private constructor(
    readonly timeDifferenceMs: number,
    readonly graceMs: number,
  ) {
    checkMs('the window time difference', timeDifferenceMs, true);
    checkMs('the grace period', graceMs, true);
  }

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return new SlidingWindows(timeDifferenceMs, 0);
  }

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    return new SlidingWindows(timeDifferenceMs, graceMs);
  }
}

/** Sessions: a key's records closer to each other than the inactivity gap form one session `[first, last]`. */
export class SessionWindows {
  private constructor(
    readonly inactivityGapMs: number,
    readonly graceMs: number,
  ) {
    checkMs('the inactivity gap', inactivityGapMs, false);
    checkMs('the grace period', graceMs, true);
  }

  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return new SessionWindows(inactivityGapMs, 0);
  }

  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    return new SessionWindows(inactivityGapMs, graceMs);
  }
}

/**
 * The window of a stream-stream join: a record at `t` joins the other stream's records of the same key in
 * `[t - before, t + after]` (seen from the left stream; mirrored for the right one).
 */
export class JoinWindows {
  private constructor(
    readonly beforeMs: number,
    readonly afterMs: number,
    readonly graceMs: number,
  ) {
    checkMs('the join window before', beforeMs, true);
    checkMs('the join window after', afterMs, true);
    checkMs('the grace period', graceMs, true);
  }

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, 0);
  }

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, graceMs);
  }

  /** How far before a left record the right records may be. */
  before(beforeMs: number): JoinWindows {
    return new JoinWindows(beforeMs, this.afterMs, this.graceMs);
  }

  /** How far after a left record the right records may be. */
  after(afterMs: number): JoinWindows {
    return new JoinWindows(this.beforeMs, afterMs, this.graceMs);
  }

  /** The size of the join window stores' windows. */
  get sizeMs(): number {
    return this.beforeMs + this.afterMs;
  }
}
