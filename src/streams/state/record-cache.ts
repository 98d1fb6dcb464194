import type { Serde } from '../serdes/serde';
import { SortedChunks } from './sorted-chunks';

/** Entries are not serialized in the cache, so its size is bounded by count, at this estimate per entry. */
const ESTIMATED_ENTRY_BYTES = 128;

/** What a cache indexes an entry by. */
export type CacheId = string | number | boolean | bigint | undefined;

/**
 * A key as a cache indexes it: a primitive as itself (a Map tells 5 from '5'), so a string key costs no new string
 * on every read and write; an object key by its serialized bytes. Those ids, and string keys that begin with NUL,
 * carry a prefix that begins with NUL, so that no two keys share an id.
 */
export function cacheKeyId<K>(key: K, serde: Serde<K>): CacheId {
  if (typeof key === 'string') return key.charCodeAt(0) === 0 ? `\u0000s${key}` : key;
  if (typeof key === 'object' && key !== null) return `\u0000o${serde.serialize(key).toString('latin1')}`;
  return key as CacheId;
}

/** How many entries a cache of `maxBytes` holds; 0 when caching is off (every write goes through at once). */
export function cacheCapacity(maxBytes: number | undefined): number {
  return maxBytes !== undefined && maxBytes > 0 ? Math.max(1, Math.floor(maxBytes / ESTIMATED_ENTRY_BYTES)) : 0;
}

/** A cached key's entry, linked from the least to the most recently used. */
interface CacheNode<E> {
  readonly id: CacheId;
  /** Where the entry sorts in range reads (its store key as latin1), once asked. */
  order: string | undefined;
  entry: E;
  older: CacheNode<E> | undefined;
  newer: CacheNode<E> | undefined;
}

/**
 * The record cache of one store (Kafka Streams' `NamedCache`): the latest entry of each key written lately, `value`
 * null for a deletion; reads and writes make a key the most recently used. A write makes its key dirty. Dirty entries reach the store when flushed (at commit,
 * or when the least recently used entry, evicted to make room, is dirty), in the order of their last writes, and
 * then stay, clean, until evicted: as in Kafka Streams, reads through the cache find them even once the store's own
 * rules (a window's retention) no longer return them. A written deletion leaves the cache. From the first range
 * read on, entries are also kept in the order of their store keys: a store only read by key never pays for it.
 */
export class RecordCache<E extends { readonly value: unknown }> {
  private readonly nodes = new Map<CacheId, CacheNode<E>>();
  /** Kafka Streams' `dirtyKeys`: the entries not yet written, in the order of their last writes. */
  private dirty = new Set<CacheNode<E>>();
  private sorted: SortedChunks<CacheNode<E>> | undefined;
  private leastRecent: CacheNode<E> | undefined;
  private mostRecent: CacheNode<E> | undefined;

  /** `orderOf`: where a new key sorts in range reads. */
  constructor(
    private readonly capacity: number,
    private readonly writeThrough: (entry: E) => void,
    private readonly orderOf: (id: CacheId, entry: E) => string,
  ) {}

  get(id: CacheId): E | undefined {
    const node = this.nodes.get(id);
    if (node === undefined) return undefined;
    this.use(node);
    return node.entry;
  }

  put(id: CacheId, entry: E): void {
    let node = this.nodes.get(id);
    if (node === undefined) {
      node = { id, order: undefined, entry, older: undefined, newer: undefined };
      this.nodes.set(id, node);
      this.sorted?.set(this.orderKey(node), node);
      this.append(node);
    } else {
      node.entry = entry;
      this.use(node);
    }
    this.dirty.delete(node);
    this.dirty.add(node);
    while (this.nodes.size > this.capacity) this.evict();
  }

  /** The entries whose store keys (as latin1) are within [from, to] (undefined: open), in store-key order. */
  range(from: string | undefined, to: string | undefined): E[] {
    if (this.sorted === undefined) {
      this.sorted = new SortedChunks();
      for (const node of this.nodes.values()) this.sorted.set(this.orderKey(node), node);
    }
    return this.sorted.range(from, to).map((node) => node.entry);
  }

  /** The entries not yet written to the store, in the order of their last writes. */
  *unwritten(): IterableIterator<E> {
    for (const node of this.dirty) yield node.entry;
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Writes every dirty entry to the store (see write). */
  flush(): void {
    this.write(undefined);
  }

  /** Forgets every entry without writing it. */
  clear(): void {
    this.nodes.clear();
    this.dirty = new Set();
    this.sorted = undefined;
    this.leastRecent = undefined;
    this.mostRecent = undefined;
  }

  /** Drops the least recently used entry; one not written yet is written, with every other dirty entry. */
  private evict(): void {
    const eldest = this.leastRecent as CacheNode<E>;
    this.remove(eldest);
    if (this.dirty.has(eldest)) this.write(eldest);
  }

  /**
   * Writes every dirty entry as it was when the write began, `evicted` (already out of the cache) first, then in the
   * order of the last writes. They are clean before the first is written: what it forwards may read them, and
   * write again what then waits for the next flush. Written deletions then leave the cache, unless written again.
   */
  private write(evicted: CacheNode<E> | undefined): void {
    const written: [CacheNode<E>, E][] = [];
    if (evicted !== undefined) {
      written.push([evicted, evicted.entry]);
      this.dirty.delete(evicted);
    }
    for (const node of this.dirty) written.push([node, node.entry]);
    this.dirty = new Set();
    for (const [, entry] of written) this.writeThrough(entry);
    for (const [node, entry] of written) {
      if (entry.value === null && node.entry === entry && !this.dirty.has(node) && this.nodes.get(node.id) === node) this.remove(node);
    }
  }

  private remove(node: CacheNode<E>): void {
    this.nodes.delete(node.id);
    this.sorted?.delete(this.orderKey(node));
    this.unlink(node);
  }

  private orderKey(node: CacheNode<E>): string {
    node.order ??= this.orderOf(node.id, node.entry);
    return node.order;
  }

  /** Makes `node` the most recently used. */
  private use(node: CacheNode<E>): void {
    if (node === this.mostRecent) return;
    this.unlink(node);
    this.append(node);
  }

  private append(node: CacheNode<E>): void {
    node.older = this.mostRecent;
    node.newer = undefined;
    if (this.mostRecent === undefined) this.leastRecent = node;
    else this.mostRecent.newer = node;
    this.mostRecent = node;
  }

  private unlink(node: CacheNode<E>): void {
    if (node.older === undefined) this.leastRecent = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.mostRecent = node.older;
    else node.newer.older = node.older;
    node.older = undefined;
    node.newer = undefined;
  }
}
