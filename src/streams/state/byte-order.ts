/**
 * Helpers for the unsigned lexicographic byte order that every store follows (RocksDB's and LMDB's default
 * comparator), so that ranges mean the same in memory, on disk and in Kafka Streams.
 *
 * In-memory structures key their maps by the latin1 decoding of the bytes: one UTF-16 unit per byte, so the
 * string is a lossless copy of the bytes and JS string comparison (`<`) is exactly the unsigned byte order.
 */

export function bytesToLatin1(bytes: Buffer): string {
  return bytes.toString('latin1');
}

export function latin1ToBytes(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

/**
 * The smallest byte string greater than every string starting with `prefix`: the exclusive upper bound of a
 * prefix scan. Undefined when there is none (empty prefix or only 0xff bytes): the scan is then open-ended.
 */
export function prefixUpperBound(prefix: Buffer): Buffer | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] !== 0xff) {
      const bound = Buffer.from(prefix.subarray(0, i + 1));
      bound[i] += 1;
      return bound;
    }
  }
  return undefined;
}
