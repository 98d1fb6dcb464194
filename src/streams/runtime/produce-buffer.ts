/**
 * The bytes a stream thread's tasks have produced and the broker has not yet acknowledged, bounded by the producer's
 * `buffer.memory` (the Java producer's BufferPool, which makes `send` block when full). The thread checks `full`
 * between chunks of processing and waits in `drained` until half the bound is free: what waits to be sent then stays
 * within the bound however much faster the thread processes than the broker takes, and the time it waited is kept as
 * the Java producer's `bufferpool-wait-time-ns-total`.
 */
export class ProduceBuffer {
  private used = 0;
  private waiters: Array<() => void> = [];
  /** Nanoseconds the thread waited for room, in all. */
  waitedNs = 0;
  /** Times the thread found the buffer full and waited. */
  waits = 0;

  private cap = Number.POSITIVE_INFINITY;

  /** `configured`: `buffer.memory` in bytes (0 waits after every chunk until everything sent is acknowledged). */
  constructor(private readonly configured: number) {}

  /** The bound: `buffer.memory`, or the node's memory budget's share when that is smaller. */
  get limit(): number {
    return Math.min(this.configured, this.cap);
  }

  /** The node's memory budget gave the thread this share of its producer part. */
  limitTo(capBytes: number): void {
    this.cap = capBytes;
    this.wakeIfDrained();
  }

  /** Bytes produced and not yet acknowledged (or dropped). */
  get usedBytes(): number {
    return this.used;
  }

  get full(): boolean {
    return this.used > this.limit;
  }

  /** A collector took a record of `bytes` to send. */
  reserve(bytes: number): void {
    this.used += bytes;
  }

  /** The broker acknowledged (or the task dropped) `bytes` a collector had reserved. */
  release(bytes: number): void {
    this.used -= bytes;
    this.wakeIfDrained();
  }

  private wakeIfDrained(): void {
    if (this.waiters.length > 0 && this.used <= this.limit / 2) {
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Waits until at most half the bound is in use; counted as time the thread waited for room. */
  async drained(): Promise<void> {
    if (this.used <= this.limit / 2) return;
    const started = process.hrtime.bigint();
    this.waits++;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.waitedNs += Number(process.hrtime.bigint() - started);
  }
}
