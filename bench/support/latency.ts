/** Latency figures as the benchmarks print them. */

/** The p-th percentile (0-100) of latencies sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
