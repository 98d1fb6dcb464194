import { readInt64BE, writeInt64BE } from '../serdes/int64';

/**
 * Keys of window stores and their changelogs, Kafka Streams' `WindowKeySchema.toStoreKeyBinary`:
 * `[key bytes][8-byte BE window start][4-byte BE sequence number]`. The sequence number is 0 unless the store
 * retains duplicates (stream-stream joins), where every put gets the next one.
 */

export const WINDOW_SUFFIX_BYTES = 12;
export const MAX_SEQNUM = 0x7fffffff;

export function windowStoreKey(keyBytes: Buffer, windowStart: number, seqnum: number): Buffer {
  const bytes = Buffer.allocUnsafe(keyBytes.length + WINDOW_SUFFIX_BYTES);
  keyBytes.copy(bytes, 0);
  writeInt64BE(bytes, windowStart, keyBytes.length);
  bytes.writeUInt32BE(seqnum, keyBytes.length + 8);
  return bytes;
}

/** The key bytes of a store key: a view on it, not a copy. */
export function windowKeyBytes(storeKey: Buffer): Buffer {
  return storeKey.subarray(0, storeKey.length - WINDOW_SUFFIX_BYTES);
}

export function windowStartOf(storeKey: Buffer): number {
  return readInt64BE(storeKey, storeKey.length - WINDOW_SUFFIX_BYTES);
}

/** Upper bound of every store key of keys up to `keyBytes`: followed by the largest possible suffix. */
export function windowKeyUpperBound(keyBytes: Buffer): Buffer {
  return Buffer.concat([keyBytes, Buffer.alloc(WINDOW_SUFFIX_BYTES, 0xff)]);
}
