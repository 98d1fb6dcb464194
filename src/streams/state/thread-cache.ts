/** A cache in a thread's (RecordCache): its entries, and the eviction of its least recently used one. */
export interface ThreadCacheMember {
  readonly size: number;
  evict(): void;
}

/**
 * Kafka Streams' `ThreadCache`: the record cache of one stream thread, whose budget (its share of
 * `statestore.cache.max.bytes`) the caches of its tasks' caching stores share (each one Kafka Streams' `NamedCache`).
 * A write evicts from the cache it went to, least recently used first, until the thread's caches are within the
 * budget again or that cache is empty; a smaller budget evicts from every cache in turn.
 */
export class ThreadCache {
  /** What the caches hold together, by their estimates (RecordCache's `entryBytes`); the caches keep it. */
  sizeBytes = 0;
  private readonly caches = new Set<ThreadCacheMember>();
  /** The node's memory budget's cap on this thread's cache; none: the instance's share alone. */
  private cap = Number.POSITIVE_INFINITY;
  private budget: number;

  constructor(private share: number) {
    this.budget = share;
  }

  get maxBytes(): number {
    return this.budget;
  }

  add(cache: ThreadCacheMember): void {
    this.caches.add(cache);
  }

  delete(cache: ThreadCacheMember): void {
    this.caches.delete(cache);
  }

  /** After a write to `cache` (Kafka Streams' `maybeEvict`). */
  maybeEvict(cache: ThreadCacheMember): void {
    while (this.sizeBytes > this.budget && cache.size > 0) cache.evict();
  }

  /**
   * The thread's share changed, as the instance's threads did (Kafka Streams' `resize`): a smaller one evicts one
   * entry from each cache in turn until the caches are within it.
   */
  resize(maxBytes: number): void {
    this.share = maxBytes;
    this.shrinkTo(Math.min(this.share, this.cap));
  }

  /** The node's memory budget capped the thread's cache (below the instance's share, the cap wins). */
  limit(capBytes: number): void {
    this.cap = capBytes;
    this.shrinkTo(Math.min(this.share, this.cap));
  }

  private shrinkTo(maxBytes: number): void {
    this.budget = maxBytes;
    while (this.sizeBytes > this.budget) {
      for (const cache of this.caches) {
        if (this.sizeBytes <= this.budget) return;
        cache.evict();
      }
    }
  }
}
