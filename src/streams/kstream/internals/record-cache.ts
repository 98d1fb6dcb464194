import { cacheMaxBytes } from '../../config/config-lookup';
import type { ProcessorContext } from '../../processor/processor';
import type { Serde } from '../../serdes/serde';
import { onCommit } from './drop';

/** Entries are not serialized in the cache, so its size is bounded by count, at this estimate per entry. */
const ESTIMATED_ENTRY_BYTES = 128;

/** Which window of a key an entry is for: '' for key-value aggregations, the window otherwise. */
export type CacheSlot = string | number;

/** A key as the cache indexes it: primitives as themselves, other keys by their serialized bytes. */
export function cacheKeyId<K>(key: K, serde: Serde<K>): string {
  return typeof key === 'object' && key !== null ? serde.serialize(key).toString('latin1') : `${typeof key}:${String(key)}`;
}

/**
 * The record cache of one aggregation (Kafka Streams' `ThreadCache` seen from one store). With
 * `statestore.cache.max.bytes` > 0 (the default) updates stay here and are written to the store, the changelog and
 * downstream only at the next commit or when the cache is full, one update per key and window: what makes Kafka
 * Streams' aggregations cheap. As in Kafka Streams, an update moves its entry to the end, so entries are written in
 * the order of their last update. Entries are indexed by key and slot, so that range reads can overlay them.
 */
export class RecordCache<E> {
  private readonly order = new Map<string, E>();
  private readonly byKey = new Map<string, Map<CacheSlot, E>>();

  private constructor(
    private readonly maxEntries: number,
    private readonly write: (entry: E) => void,
  ) {}

  /** The cache of a processor, flushed before each commit; undefined when caching is off. */
  static create<E>(context: ProcessorContext<unknown, unknown>, write: (entry: E) => void): RecordCache<E> | undefined {
    const bytes = cacheMaxBytes(context.appConfig);
    if (!(bytes > 0)) return undefined;
    const cache = new RecordCache<E>(Math.max(1, Math.floor(bytes / ESTIMATED_ENTRY_BYTES)), write);
    onCommit(context, () => cache.flush());
    return cache;
  }

  get(keyId: string, slot: CacheSlot = ''): E | undefined {
    return this.byKey.get(keyId)?.get(slot);
  }

  /** The cached entries of one key. */
  entriesOf(keyId: string): Iterable<E> {
    return this.byKey.get(keyId)?.values() ?? [];
  }

  put(keyId: string, slot: CacheSlot, entry: E): void {
    const id = `${keyId.length}:${keyId}${String(slot)}`;
    this.order.delete(id);
    this.order.set(id, entry);
    let slots = this.byKey.get(keyId);
    if (slots === undefined) {
      slots = new Map();
      this.byKey.set(keyId, slots);
    }
    slots.set(slot, entry);
    if (this.order.size > this.maxEntries) this.flush();
  }

  flush(): void {
    if (this.order.size === 0) return;
    const entries = [...this.order.values()];
    this.order.clear();
    this.byKey.clear();
    for (const entry of entries) this.write(entry);
  }
}
