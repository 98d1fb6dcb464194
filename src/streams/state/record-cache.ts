import type { Serde } from '../serdes/serde';
import { SortedChunks } from './sorted-chunks';
import type { ThreadCache, ThreadCacheMember } from './thread-cache';

/**
 * What a cached entry costs beside its key and value, as measured on Node 20 (64-bit): its slot in the cache's map,
 * its node and the entry with its timestamp make about 205 bytes; a place in the range index adds about 40.
 */
const ENTRY_BYTES = 210;
/** A string's header (its characters are counted one byte each: V8 keeps latin1 strings so). */
const STRING_BYTES = 16;
/** A plain object's header; each field adds FIELD_BYTES. */
const OBJECT_BYTES = 24;
const FIELD_BYTES = 8;
/** A number that is no small integer is boxed. */
const NUMBER_BYTES = 16;
/** A Buffer's object, beside its bytes. */
const VIEW_BYTES = 100;

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

/**
 * The estimated bytes a cache keeps for an entry (Kafka Streams counts the serialized key, value and record context;
 * Sluice's cache holds them deserialized): the entry's own cost, its id, its key when that is not the id, its value.
 */
export function entryBytes(id: CacheId, entry: { readonly key: unknown; readonly value: unknown }): number {
  return ENTRY_BYTES + valueBytes(id, 0) + (entry.key === id ? 0 : valueBytes(entry.key, 2)) + valueBytes(entry.value, 2);
}

/**
 * A value's estimated bytes, as far as they are cheaply known: strings and buffers by their lengths, objects by
 * their fields `depth` levels down (deeper ones by their headers), an array by its first element.
 */
function valueBytes(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return STRING_BYTES + value.length;
    case 'number':
      return (value | 0) === value ? 0 : NUMBER_BYTES;
    case 'bigint':
      return NUMBER_BYTES;
    case 'object':
      return value === null ? 0 : objectBytes(value, depth);
    default:
      return 0;
  }
}

function objectBytes(value: object, depth: number): number {
  if (ArrayBuffer.isView(value)) return VIEW_BYTES + value.byteLength;
  if (depth === 0) return OBJECT_BYTES;
  if (Array.isArray(value)) return OBJECT_BYTES + value.length * (FIELD_BYTES + (value.length === 0 ? 0 : valueBytes(value[0], depth - 1)));
  let bytes = OBJECT_BYTES;
  for (const field in value) bytes += FIELD_BYTES + valueBytes((value as Record<string, unknown>)[field], depth - 1);
  return bytes;
}

/**
 * A cached key's entry, linked from the least to the most recently used and, while dirty, from the earliest to the
 * latest write among the dirty ones: lists that a write reorders without hashing, as a set of dirty keys would.
 */
interface CacheNode<E> {
  readonly id: CacheId;
  /** Where the entry sorts in range reads (its store key as latin1), once asked. */
  order: string | undefined;
  entry: E;
  /** The entry's estimated bytes (entryBytes). */
  bytes: number;
  older: CacheNode<E> | undefined;
  newer: CacheNode<E> | undefined;
  dirty: boolean;
  earlier: CacheNode<E> | undefined;
  later: CacheNode<E> | undefined;
}

/**
 * The record cache of one store (Kafka Streams' `NamedCache`), in its stream thread's (ThreadCache, whose budget
 * decides what is evicted): the latest entry of each key written lately, `value` null for a deletion; reads and
 * writes make a key the most recently used. A write makes its key dirty. Dirty entries reach the store when flushed
 * (at commit, or when the least recently used entry, evicted to make room, is dirty), in the order of their last
 * writes, and then stay, clean, until evicted: as in Kafka Streams, reads through the cache find them even once the
 * store's own rules (a window's retention) no longer return them. A written deletion leaves the cache. From the
 * first range read on, entries are also kept in the order of their store keys: a store only read by key never pays
 * for it.
 */
export class RecordCache<E extends { readonly key: unknown; readonly value: unknown }> implements ThreadCacheMember {
  /** The entries' estimated bytes, which the thread cache counts too. */
  sizeBytes = 0;
  private readonly nodes = new Map<CacheId, CacheNode<E>>();
  /** Kafka Streams' `dirtyKeys`: the entries not yet written, in the order of their last writes. */
  private earliestDirty: CacheNode<E> | undefined;
  private latestDirty: CacheNode<E> | undefined;
  private sorted: SortedChunks<CacheNode<E>> | undefined;
  private leastRecent: CacheNode<E> | undefined;
  private mostRecent: CacheNode<E> | undefined;
  /** Why a write to the store failed; until cleared, the cache writes nothing more (see write). */
  private writeFailure: { error: unknown } | undefined;

  /** `orderOf`: where a new key sorts in range reads. The cache is in `thread`'s until closed. */
  constructor(
    private readonly thread: ThreadCache,
    private readonly writeThrough: (entry: E) => void,
    private readonly orderOf: (id: CacheId, entry: E) => string,
    /** Told of each read, found or not, when the hit ratio is recorded. */
    private readonly onRead?: (hit: boolean) => void,
  ) {
    thread.add(this);
  }

  get(id: CacheId): E | undefined {
    const node = this.nodes.get(id);
    this.onRead?.(node !== undefined);
    if (node === undefined) return undefined;
    this.use(node);
    return node.entry;
  }

  put(id: CacheId, entry: E): void {
    const bytes = entryBytes(id, entry);
    let node = this.nodes.get(id);
    if (node === undefined) {
      node = { id, order: undefined, entry, bytes, older: undefined, newer: undefined, dirty: false, earlier: undefined, later: undefined };
      this.nodes.set(id, node);
      this.sorted?.set(this.orderKey(node), node);
      this.append(node);
      this.grow(bytes);
    } else {
      node.entry = entry;
      this.grow(bytes - node.bytes);
      node.bytes = bytes;
      this.use(node);
    }
    if (node.dirty) this.unlinkDirty(node);
    this.appendDirty(node);
    this.thread.maybeEvict(this);
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
    for (let node = this.earliestDirty; node !== undefined; node = node.later) yield node.entry;
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Writes every dirty entry to the store (see write). */
  flush(): void {
    this.write(undefined);
  }

  /** Forgets every entry without writing it (and a failed write: the store is to be restored). */
  clear(): void {
    this.writeFailure = undefined;
    this.grow(-this.sizeBytes);
    this.nodes.clear();
    this.earliestDirty = undefined;
    this.latestDirty = undefined;
    this.sorted = undefined;
    this.leastRecent = undefined;
    this.mostRecent = undefined;
  }

  /** Forgets every entry without writing it, and leaves the thread's cache. */
  close(): void {
    this.clear();
    this.thread.delete(this);
  }

  /** Drops the least recently used entry, if any; one not written yet is written, with every other dirty entry. */
  evict(): void {
    const eldest = this.leastRecent;
    if (eldest === undefined) return;
    if (this.writeFailure !== undefined) throw this.writeFailure.error;
    this.remove(eldest);
    if (eldest.dirty) this.write(eldest);
  }

  /**
   * Writes every dirty entry as it was when the write began, `evicted` (already out of the cache) first, then in the
   * order of the last writes. They are clean before the first is written: what it forwards may read them, and
   * write again what then waits for the next flush. Written deletions then leave the cache, unless written again.
   * A failed write leaves entries marked clean that never reached the store: from then on every flush and eviction
   * fails with the same error, so that no commit can pass them (the task is closed dirty and restored, as Kafka
   * Streams closes a task whose flush failed).
   */
  private write(evicted: CacheNode<E> | undefined): void {
    if (this.writeFailure !== undefined) throw this.writeFailure.error;
    const nodes: CacheNode<E>[] = evicted === undefined ? [] : [evicted];
    for (let node = this.earliestDirty; node !== undefined; node = node.later) if (node !== evicted) nodes.push(node);
    const entries = nodes.map((node) => node.entry);
    for (const node of nodes) {
      node.dirty = false;
      node.earlier = undefined;
      node.later = undefined;
    }
    this.earliestDirty = undefined;
    this.latestDirty = undefined;
    try {
      for (const entry of entries) this.writeThrough(entry);
    } catch (error) {
      this.writeFailure = { error };
      throw error;
    }
    for (let i = 0; i < nodes.length; i++) {
      const written = nodes[i]!;
      const entry = entries[i]!;
      if (entry.value === null && written.entry === entry && !written.dirty && this.nodes.get(written.id) === written) this.remove(written);
    }
  }

  private remove(node: CacheNode<E>): void {
    this.grow(-node.bytes);
    this.nodes.delete(node.id);
    this.sorted?.delete(this.orderKey(node));
    this.unlink(node);
  }

  /** Counts `bytes` more (or fewer) in this cache and in its thread's. */
  private grow(bytes: number): void {
    this.sizeBytes += bytes;
    this.thread.sizeBytes += bytes;
  }

  private orderKey(node: CacheNode<E>): string {
    node.order ??= this.orderOf(node.id, node.entry);
    return node.order;
  }

  private appendDirty(node: CacheNode<E>): void {
    node.dirty = true;
    node.earlier = this.latestDirty;
    node.later = undefined;
    if (this.latestDirty === undefined) this.earliestDirty = node;
    else this.latestDirty.later = node;
    this.latestDirty = node;
  }

  private unlinkDirty(node: CacheNode<E>): void {
    if (node.earlier === undefined) this.earliestDirty = node.later;
    else node.earlier.later = node.later;
    if (node.later === undefined) this.latestDirty = node.earlier;
    else node.later.earlier = node.earlier;
    node.dirty = false;
    node.earlier = undefined;
    node.later = undefined;
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
