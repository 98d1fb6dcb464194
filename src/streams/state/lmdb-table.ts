import type { Database, RangeOptions } from 'lmdb';
import { StreamsException } from '../../errors';
import { bytesToLatin1 } from './byte-order';
import { type BytesEntry, type BytesRange, type BytesTable, inBytesRange } from './bytes-table';

/** Longest key lmdb-js can store (its build of LMDB); longer keys are rejected. */
export const LMDB_MAX_KEY_BYTES = 1978;

const SMALLEST_KEY = Buffer.from([0]);

/** Where a table keeps the value of the empty key, which LMDB cannot store. */
export interface EmptyKeySlot {
  table: BytesTable;
  key: Buffer;
}

interface PendingWrite {
  key: Buffer;
  /** null: a delete. */
  value: Buffer | null;
  seq: number;
}

/**
 * lmdb-js range options for `range`, or undefined when no key LMDB can hold lies within it. Bounds longer than
 * LMDB's key limit are cut to it: for keys no longer than the limit, `k >= from` is `k > cut(from)` and both
 * `k < to` and `k <= to` are `k <= cut(to)`. An open upper bound is left out: lmdb-js tests `'start' in options`.
 */
function lmdbRangeOptions(range: BytesRange): RangeOptions | undefined {
  // An open lower bound is the smallest storable key, given explicitly: without one, lmdb-js's reverse scans stop
  // before the key 0x00 (they end at their default beginning key, 0x00, exclusive).
  let from = range.from !== undefined && range.from.length > 0 ? range.from : SMALLEST_KEY;
  let fromExclusive = false;
  if (from.length > LMDB_MAX_KEY_BYTES) {
    from = from.subarray(0, LMDB_MAX_KEY_BYTES);
    fromExclusive = true;
  }
  let to = range.to;
  let toInclusive = range.toInclusive;
  if (to !== undefined) {
    // Only the empty key is <= the empty string, and it lives in its slot, not in the database.
    if (to.length === 0) return undefined;
    if (to.length > LMDB_MAX_KEY_BYTES) {
      to = to.subarray(0, LMDB_MAX_KEY_BYTES);
      toInclusive = true;
    }
  }
  const options: RangeOptions = {};
  if (range.reverse) {
    options.reverse = true;
    if (to !== undefined) {
      options.start = to;
      options.exclusiveStart = !toInclusive;
    }
    options.end = from;
    options.inclusiveEnd = !fromExclusive;
  } else {
    options.start = from;
    options.exclusiveStart = fromExclusive;
    if (to !== undefined) {
      options.end = to;
      options.inclusiveEnd = toInclusive;
    }
  }
  return options;
}

/** Merges the not-yet-committed writes (sorted in the iteration order) into the committed entries; writes win. */
function* mergePending(
  pending: PendingWrite[],
  stored: Iterator<BytesEntry> | undefined,
  reverse: boolean,
): Generator<BytesEntry, void, undefined> {
  let index = 0;
  let next = stored?.next();
  while (index < pending.length || (next !== undefined && !next.done)) {
    if (next === undefined || next.done) {
      const write = pending[index++];
      if (write.value !== null) yield { key: write.key, value: write.value };
      continue;
    }
    if (index >= pending.length) {
      yield next.value;
      next = stored?.next();
      continue;
    }
    const write = pending[index];
    const order = Buffer.compare(write.key, next.value.key) * (reverse ? -1 : 1);
    if (order > 0) {
      yield next.value;
      next = stored?.next();
      continue;
    }
    // The write comes first, or replaces (order 0) the committed entry of the same key.
    if (order === 0) next = stored?.next();
    index++;
    if (write.value !== null) yield { key: write.key, value: write.value };
  }
}

/**
 * A table over one LMDB database. Writes use lmdb-js's asynchronous put: lmdb-js batches them into transactions
 * that its writer thread commits in the background (measured: about three times cheaper per put than committing
 * one synchronous transaction per event-loop turn). Until its transaction commits, a write is invisible to LMDB
 * reads, so the table keeps it in an overlay that every read consults first (`get`, and merged into ranges): a
 * processor reads its own writes at once, as with RocksDB. Each write carries a sequence number; when the promise
 * of a batch resolves, the overlay forgets the writes up to the batch's last. A failed commit is reported to
 * `onWriteFailure` (the storage rethrows it at the next flush, which fails the task before offsets are committed).
 */
export class LmdbTable implements BytesTable {
  /** Writes not committed yet, by latin1 key, in sequence order. */
  private readonly pending = new Map<string, PendingWrite>();
  private seq = 0;
  private committedSeq = 0;
  /** Sequence number of the last clear(): until it commits, LMDB still shows the entries it removes. */
  private clearSeq = 0;
  private batchPromise: Promise<unknown> | undefined;
  private batch = { lastSeq: 0 };

  constructor(
    private readonly label: string,
    private readonly db: Database<Buffer, Buffer>,
    private readonly emptyKeySlot: EmptyKeySlot | undefined,
    private readonly onWriteFailure: (error: unknown) => void,
    /** Why the table takes no write of this many bytes (an earlier commit failed, the disk is full), or undefined. */
    private readonly refusal: (bytes: number) => Error | undefined = () => undefined,
  ) {}

  get(key: Buffer): Buffer | undefined {
    if (key.length === 0) return this.emptyKeySlot?.table.get(this.emptyKeySlot.key);
    if (this.pending.size > 0) {
      const write = this.pending.get(bytesToLatin1(key));
      if (write !== undefined) return write.value ?? undefined;
    }
    if (this.clearPending() || key.length > LMDB_MAX_KEY_BYTES) return undefined;
    return this.db.getBinary(key);
  }

  put(key: Buffer, value: Buffer | null): void {
    this.refuseIfFailed(key.length + (value?.length ?? 0));
    const slot = this.slotFor(key);
    if (slot !== undefined) {
      slot.table.put(slot.key, value);
      return;
    }
    const seq = ++this.seq;
    const text = bytesToLatin1(key);
    // Re-inserted rather than updated in place, so that the map stays in sequence order (see committed()).
    if (this.pending.size > 0) this.pending.delete(text);
    this.pending.set(text, { key, value, seq });
    this.track(value === null ? this.db.remove(key) : this.db.put(key, value), seq);
  }

  /** The empty key's slot for the empty key, undefined for a key LMDB holds itself; a key it cannot hold fails. */
  private slotFor(key: Buffer): EmptyKeySlot | undefined {
    if (key.length > LMDB_MAX_KEY_BYTES) {
      throw new StreamsException(`${this.label}: a key of ${key.length} bytes exceeds LMDB's limit of ${LMDB_MAX_KEY_BYTES} bytes`);
    }
    if (key.length > 0) return undefined;
    if (this.emptyKeySlot === undefined) throw new StreamsException(`${this.label}: LMDB cannot store an empty key`);
    return this.emptyKeySlot;
  }

  /** Whether asynchronous writes (or a clear) have not committed yet. */
  get hasUnflushedWrites(): boolean {
    // Pending writes and a pending clear all carry a sequence number above the last committed one.
    return this.committedSeq < this.seq;
  }

  restore(key: Buffer, value: Buffer | null): void {
    this.refuseIfFailed(key.length + (value?.length ?? 0));
    const slot = this.slotFor(key);
    if (slot !== undefined) {
      slot.table.restore(slot.key, value);
      return;
    }
    // Within the storage's restoreBatch transaction: copied into LMDB at once, nothing kept on the heap.
    if (value === null) this.db.removeSync(key);
    else this.db.putSync(key, value);
  }

  *range(range: BytesRange): Generator<BytesEntry, void, undefined> {
    const pending = this.pendingWithin(range);
    const emptyKeyEntry = this.emptyKeyEntryWithin(range);
    if (emptyKeyEntry !== undefined && !range.reverse) yield emptyKeyEntry;
    const options = this.clearPending() ? undefined : lmdbRangeOptions(range);
    const stored = options === undefined ? undefined : this.db.getRange(options)[Symbol.iterator]();
    try {
      // Nothing to merge (no write since the last commit, the usual case for a query): LMDB's entries as they come,
      // through a view without return(), which the finally below calls once.
      yield* pending.length === 0 && stored !== undefined
        ? { [Symbol.iterator]: () => ({ next: () => stored.next() }) }
        : mergePending(pending, stored, range.reverse);
    } finally {
      // Releases the LMDB cursor and its read transaction when the caller stops early.
      stored?.return?.();
    }
    if (emptyKeyEntry !== undefined && range.reverse) yield emptyKeyEntry;
  }

  /** Committed entries corrected by the pending writes: exact unless a commit lands while counting. */
  approximateNumEntries(): number {
    let count = this.clearPending() ? 0 : (this.db.getStats() as { entryCount: number }).entryCount;
    for (const write of this.pending.values()) {
      const exists = !this.clearPending() && this.db.doesExist(write.key);
      if (write.value === null && exists) count--;
      if (write.value !== null && !exists) count++;
    }
    const hasEmptyKey = this.emptyKeySlot !== undefined && this.emptyKeySlot.table.get(this.emptyKeySlot.key) !== undefined;
    return count + (hasEmptyKey ? 1 : 0);
  }

  clear(): void {
    this.refuseIfFailed(0);
    this.pending.clear();
    const seq = ++this.seq;
    this.clearSeq = seq;
    this.track(this.db.clearAsync(), seq);
    this.emptyKeySlot?.table.put(this.emptyKeySlot.key, null);
  }

  /** Deletes the database; the table must not be used afterwards. */
  drop(): void {
    this.pending.clear();
    this.emptyKeySlot?.table.put(this.emptyKeySlot.key, null);
    this.db.drop().catch(this.onWriteFailure);
  }

  /**
   * After a failed commit lmdb-js must be given no more writes: its native writer, failing again (a full disk), has
   * corrupted the process' heap and aborted it (reproduced: 5 runs in 5 on a full tmpfs).
   */
  private refuseIfFailed(bytes: number): void {
    const refusal = this.refusal(bytes);
    if (refusal !== undefined) throw refusal;
  }

  private track(promise: Promise<unknown>, seq: number): void {
    // lmdb-js hands every write of one batch the same promise: one callback per batch is enough.
    if (promise === this.batchPromise) {
      this.batch.lastSeq = seq;
      return;
    }
    const batch = { lastSeq: seq };
    this.batch = batch;
    this.batchPromise = promise;
    promise.then(() => this.committed(batch.lastSeq), this.onWriteFailure);
  }

  private committed(seq: number): void {
    if (seq <= this.committedSeq) return;
    this.committedSeq = seq;
    // The map is in sequence order: the committed writes are a prefix of it. Under sustained load lmdb-js commits
    // large batches while hundreds of thousands of writes are pending; a full scan per commit would be quadratic.
    for (const [text, write] of this.pending) {
      if (write.seq > seq) break;
      this.pending.delete(text);
    }
  }

  private clearPending(): boolean {
    return this.clearSeq > this.committedSeq;
  }

  private pendingWithin(range: BytesRange): PendingWrite[] {
    if (this.pending.size === 0) return [];
    const writes = [...this.pending.values()].filter((write) => inBytesRange(write.key, range));
    const direction = range.reverse ? -1 : 1;
    return writes.sort((a, b) => Buffer.compare(a.key, b.key) * direction);
  }

  private emptyKeyEntryWithin(range: BytesRange): BytesEntry | undefined {
    if (this.emptyKeySlot === undefined) return undefined;
    if (range.from !== undefined && range.from.length > 0) return undefined;
    if (range.to !== undefined && range.to.length === 0 && !range.toInclusive) return undefined;
    const value = this.emptyKeySlot.table.get(this.emptyKeySlot.key);
    return value === undefined ? undefined : { key: Buffer.alloc(0), value };
  }
}
