import type { Cancellable, Punctuator } from '../processor/processor';

interface Schedule<N> {
  node: N;
  interval: number;
  next: number;
  punctuator: Punctuator;
  cancelled: boolean;
}

/**
 * Punctuations of one kind (stream time or wall clock) for one task. A schedule fires when time reaches its
 * next instant; missed instants are skipped, not replayed, and later ones stay on the schedule's grid, as in Kafka Streams.
 */
export class PunctuationQueue<N> {
  private schedules: Schedule<N>[] = [];

  schedule(node: N, firstAt: number, interval: number, punctuator: Punctuator): Cancellable {
    const schedule: Schedule<N> = { node, interval, next: firstAt, punctuator, cancelled: false };
    this.schedules.push(schedule);
    return {
      cancel: () => {
        schedule.cancelled = true;
        this.schedules = this.schedules.filter((s) => s !== schedule);
      },
    };
  }

  /** Runs every due punctuation; returns whether any ran. */
  mayPunctuate(now: number, run: (node: N, punctuator: Punctuator, timestamp: number) => void): boolean {
    let ran = false;
    for (const schedule of [...this.schedules]) {
      if (schedule.cancelled || schedule.next > now) continue;
      const scheduled = schedule.next;
      // Stay on the schedule's grid: skip the instants that were missed.
      schedule.next = scheduled + (Math.floor((now - scheduled) / schedule.interval) + 1) * schedule.interval;
      run(schedule.node, schedule.punctuator, now);
      ran = true;
    }
    return ran;
  }

  get size(): number {
    return this.schedules.length;
  }
}
