/**
 * kafkajs' RequestQueue (one per connection), scheduling its look at pending requests only while requests wait.
 * kafkajs set a timer after every response even with nothing waiting, for `throttledUntil - Date.now()`, which
 * unthrottled is about minus the epoch: Node 24 and later print a TimeoutNegativeWarning for it (older ones took 1 ms
 * silently), and as each check set the next, every connection ran an empty check every millisecond from its first
 * response on.
 */

/** kafkajs' `RequestQueue`, as far as its scheduling of pending requests goes. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' RequestQueue class (its constructor takes the connection's options). */
export type KafkajsRequestQueueClass = new (options: object) => KafkajsRequestQueue;

/** How long kafkajs waits before it looks again at requests that wait for an in-flight slot. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** kafkajs' RequestQueue, setting a timer only while requests wait: for the throttle's end, else kafkajs' 10 ms. */
export function idleRequestQueue(RequestQueue: KafkajsRequestQueueClass): KafkajsRequestQueueClass {
  return class IdleRequestQueue extends RequestQueue {
    override scheduleCheckPendingRequests(): void {
      if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
      const untilUnthrottled = this.throttledUntil - Date.now();
      this.throttleCheckTimeoutId = setTimeout(
        () => {
          this.throttleCheckTimeoutId = null;
          this.checkPendingRequests();
        },
        untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
      );
    }
  };
}
