/** A steady rate: how the soak paces its input and its queries. */
import { performance } from 'node:perf_hooks';

const TICK_MS = 10;

/**
 * Calls `fire(n)` every tick with the n actions due at `perSecond` since the start and not fired yet: the rate
 * holds on average whatever the timer's jitter, and a stalled event loop is made up for by a burst (open loop, as
 * real clients do not wait for the server).
 */
export function steadily(perSecond: number, fire: (n: number) => void): { stop(): void } {
  const started = performance.now();
  let fired = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - fired;
    if (due <= 0) return;
    fired += due;
    fire(due);
  }, TICK_MS);
  return { stop: () => clearInterval(timer) };
}
