/** Waiting for a store partition to become queryable (rebalancing, restoring), within a query's time. */

export type Attempt<T> = { ready: true; value: T } | { ready: false; reason: string };

export type RetryOutcome<T> = { ready: true; value: T } | { ready: false; reason: string; timedOut: boolean };

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  retryBackoffMs: number;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it is ready, at most `1 + retries` times, `retryBackoffMs` apart; stops early rather than
 * sleep past `deadline` (epoch ms).
 */
export async function retryUntilReady<T>(
  attempt: () => Attempt<T> | Promise<Attempt<T>>,
  policy: RetryPolicy,
  deadline: number,
): Promise<RetryOutcome<T>> {
  for (let retried = 0; ; retried++) {
    const result = await attempt();
    if (result.ready) return result;
    const after = retried === 0 ? '' : ` (after ${retried} ${retried === 1 ? 'retry' : 'retries'})`;
    if (retried >= policy.retries) return { ready: false, reason: result.reason + after, timedOut: false };
    if (Date.now() + policy.retryBackoffMs >= deadline) {
      return { ready: false, reason: `${result.reason}${after}; the query timeout (query_timeout_ms) ran out`, timedOut: true };
    }
    await sleep(policy.retryBackoffMs);
  }
}
