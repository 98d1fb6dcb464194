import { decodeSessionWindowedKey, encodeSessionWindowedKey } from '../serdes/windowed';

/**
 * Keys of session stores and their changelogs, Kafka Streams' `SessionKeySchema`:
 * `[key bytes][8-byte BE session end][8-byte BE session start]` (end first, so that the sessions of a key that
 * end at or after a time are one contiguous range). The same layout as the session-windowed serde.
 */

export const SESSION_SUFFIX_BYTES = 16;

export const sessionStoreKey = encodeSessionWindowedKey;
export const sessionStoreKeyParts = decodeSessionWindowedKey;

/** Upper bound of every store key of keys up to `keyBytes`: followed by the largest possible suffix. */
export function sessionKeyUpperBound(keyBytes: Buffer): Buffer {
  return Buffer.concat([keyBytes, Buffer.alloc(SESSION_SUFFIX_BYTES, 0xff)]);
}
