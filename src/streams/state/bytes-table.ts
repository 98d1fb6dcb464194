/**
 * The byte level below every typed store: one ordered table of byte keys and byte values. A key-value store is
 * one table; window and session stores are one table per time segment. Implemented in memory and over an LMDB
 * database.
 */

export interface BytesEntry {
  key: Buffer;
  value: Buffer;
}

/** A key range in unsigned byte order. */
export interface BytesRange {
  /** Inclusive lower bound; undefined = from the first key. */
  from?: Buffer;
  /** Upper bound; undefined = up to the last key. */
  to?: Buffer;
  /** Whether `to` itself belongs to the range (prefix scans use an exclusive bound). */
  toInclusive: boolean;
  /** Largest key first. */
  reverse: boolean;
}

export interface BytesTable {
  get(key: Buffer): Buffer | undefined;
  /** Writes `value`, or deletes the key when `value` is null. */
  put(key: Buffer, value: Buffer | null): void;
  /**
   * Writes a restored changelog entry (null: a delete), within the storage's `restoreBatch`. Cheaper than put,
   * and reads may see it only after the storage is flushed: for a store being restored, which nothing reads. The
   * buffers may be views into a larger buffer that the caller releases afterwards.
   */
  restore(key: Buffer, value: Buffer | null): void;
  /**
   * Entries within `range`, lazily: nothing is opened before the first `next()`, and returning the generator
   * (a `for ... of` that breaks, or `return()`) releases what it holds.
   */
  range(range: BytesRange): Generator<BytesEntry, void, undefined>;
  approximateNumEntries(): number;
  clear(): void;
}

/** Whether `key` lies within the bounds of `range` (JS-side check for bounds a backend could not apply exactly). */
export function inBytesRange(key: Buffer, range: BytesRange): boolean {
  if (range.from !== undefined && Buffer.compare(key, range.from) < 0) return false;
  if (range.to === undefined) return true;
  const order = Buffer.compare(key, range.to);
  return range.toInclusive ? order <= 0 : order < 0;
}
