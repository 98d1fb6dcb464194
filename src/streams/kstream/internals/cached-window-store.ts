import type { ProcessorContext } from '../../processor/processor';
import type { Headers } from '../../processor/record';
import type { TimestampedWindowStore, ValueAndTimestamp, Window, Windowed } from '../../state/store';
import type { Change } from './change';
import { cacheKeyId, RecordCache } from './record-cache';
import type { OldValues } from './table-processors';
import { registerCacheReader } from './value-getters';

interface WindowEntry<K, A> {
  key: K;
  window: Window;
  value: ValueAndTimestamp<A>;
  /** The old value sent downstream: what the store held before the first cached update, when caching. */
  oldAgg: A | null;
  headers: Headers;
}

/** One window of a key as a windowed aggregation reads it. */
export interface StoredWindow<A> {
  start: number;
  value: ValueAndTimestamp<A>;
}

/**
 * The timestamped window store of a windowed aggregation seen through its record cache: reads see the cached
 * updates, and writes reach the store, the changelog and downstream (as `Windowed` keys with table updates) at once
 * or, with the cache on, at the next flush.
 */
export class CachedWindowStore<K, A> {
  private readonly cache: RecordCache<WindowEntry<K, A>> | undefined;

  constructor(
    private readonly context: ProcessorContext<unknown, unknown>,
    private readonly store: TimestampedWindowStore<K, A>,
    private readonly oldValues: OldValues,
  ) {
    this.cache = RecordCache.create(context, (entry) => this.write(entry));
    if (this.cache) {
      registerCacheReader(store, (windowed: Windowed<K>) => this.cached(this.keyId(windowed.key), windowed.window.start));
    }
  }

  fetch(key: K, windowStart: number): ValueAndTimestamp<A> | undefined {
    return this.cached(this.keyId(key), windowStart) ?? this.store.fetch(key, windowStart);
  }

  /** The windows of `key` that start within [from, to], oldest first (newest first when `backward`). */
  fetchRange(key: K, from: number, to: number, backward: boolean): StoredWindow<A>[] {
    const windows = new Map<number, ValueAndTimestamp<A>>();
    for (const { key: start, value } of this.store.fetchRange(key, from, to)) windows.set(start, value);
    if (this.cache) {
      for (const entry of this.cache.entriesOf(this.keyId(key))) {
        if (entry.window.start >= from && entry.window.start <= to) windows.set(entry.window.start, entry.value);
      }
    }
    const sorted = [...windows].map(([start, value]) => ({ start, value })).sort((a, b) => a.start - b.start);
    return backward ? sorted.reverse() : sorted;
  }

  /** Writes the new aggregate of a window; `oldAgg` is the old value sent downstream when the cache is off. */
  put(key: K, window: Window, value: ValueAndTimestamp<A>, oldAgg: A | null, headers: Headers): void {
    if (!this.cache) {
      this.write({ key, window, value, oldAgg, headers });
      return;
    }
    const keyId = this.keyId(key);
    const cached = this.cache.get(keyId, window.start);
    // As Kafka Streams' caching store: the old value sent at flush is what the store held before.
    const first = cached ? cached.oldAgg : (this.store.fetch(key, window.start)?.value ?? null);
    this.cache.put(keyId, window.start, { key, window, value, oldAgg: first, headers });
  }

  private write(entry: WindowEntry<K, A>): void {
    this.store.put(entry.key, entry.value, entry.window.start);
    const change: Change<A> = { newValue: entry.value.value, oldValue: this.oldValues.send ? entry.oldAgg : null };
    this.context.forward({
      key: { key: entry.key, window: entry.window },
      value: change,
      timestamp: entry.value.timestamp,
      headers: entry.headers,
    });
  }

  private cached(keyId: string, windowStart: number): ValueAndTimestamp<A> | undefined {
    return this.cache?.get(keyId, windowStart)?.value;
  }

  private keyId(key: K): string {
    return cacheKeyId(key, this.store.keySerde);
  }
}
