import type { Serde } from '../serdes/serde';

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

/** A cached key's entry, linked in the order of the last updates. */
interface CacheNode<E> {
  readonly id: CacheId;
  entry: E;
  older: CacheNode<E> | undefined;
  newer: CacheNode<E> | undefined;
}

/**
 * The record cache of one store (Kafka Streams' `NamedCache`): the latest write of each key not yet written to the
 * store, in the order of their last update. They reach the store when flushed: at commit, or when the cache is full
 * (as Kafka Streams evicting a dirty entry, every entry is written then). Written entries leave the cache, so that
 * the store's own rules (a window's retention) apply to every read of them. The order is a linked list, as
 * Kafka Streams keeps it: an update moves its key to the end without touching the index.
 */
export class RecordCache<E> {
  private readonly nodes = new Map<CacheId, CacheNode<E>>();
  private oldest: CacheNode<E> | undefined;
  private newest: CacheNode<E> | undefined;

  constructor(
    private readonly capacity: number,
    private readonly writeThrough: (entry: E) => void,
  ) {}

  get(id: CacheId): E | undefined {
    return this.nodes.get(id)?.entry;
  }

  put(id: CacheId, entry: E): void {
    const node = this.nodes.get(id);
    if (node === undefined) {
      const added: CacheNode<E> = { id, entry, older: undefined, newer: undefined };
      this.nodes.set(id, added);
      this.append(added);
    } else {
      node.entry = entry;
      if (node !== this.newest) {
        this.unlink(node);
        this.append(node);
      }
    }
    if (this.nodes.size > this.capacity) this.flush();
  }

  /** The entries not yet written to the store, oldest update first. */
  *values(): IterableIterator<E> {
    for (let node = this.oldest; node !== undefined; node = node.newer) yield node.entry;
  }

  get size(): number {
    return this.nodes.size;
  }

  /**
   * Writes every entry as it was when the flush began, oldest update first; each stays readable here until it is
   * written (what it forwards may read it), and one updated meanwhile stays for the next flush.
   */
  flush(): void {
    if (this.nodes.size === 0) return;
    const flushed: [CacheNode<E>, E][] = [];
    for (let node = this.oldest; node !== undefined; node = node.newer) flushed.push([node, node.entry]);
    for (const [node, entry] of flushed) {
      this.writeThrough(entry);
      if (node.entry === entry && this.nodes.get(node.id) === node) {
        this.nodes.delete(node.id);
        this.unlink(node);
      }
    }
  }

  /** Forgets every entry without writing it. */
  clear(): void {
    this.nodes.clear();
    this.oldest = undefined;
    this.newest = undefined;
  }

  private append(node: CacheNode<E>): void {
    node.older = this.newest;
    node.newer = undefined;
    if (this.newest === undefined) this.oldest = node;
    else this.newest.newer = node;
    this.newest = node;
  }

  private unlink(node: CacheNode<E>): void {
    if (node.older === undefined) this.oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.newest = node.older;
    else node.newer.older = node.older;
    node.older = undefined;
    node.newer = undefined;
  }
}
