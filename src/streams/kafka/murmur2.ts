/**
 * Java-compatible key placement: the same murmur2 as `org.apache.kafka.common.utils.Utils.murmur2`, so a key
 * lands on the partition (and so the host) a Java producer or Kafka Streams would pick for it.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Java's `Utils.murmur2`: a signed 32-bit hash of the bytes (the first `length` of them). */
export function murmur2(data: Buffer, length = data.length): number {
  let h = SEED ^ length;
  const length4 = length & ~3;
  for (let i = 0; i < length4; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  // Java's switch falls through from case 3 to case 1; spelt out because fall-through is forbidden here.
  const rest = length & 3;
  if (rest > 0) {
    if (rest === 3) h ^= data[length4 + 2]! << 16;
    if (rest >= 2) h ^= data[length4 + 1]! << 8;
    h ^= data[length4]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * Where a key serialized as UTF-8 text is encoded to be hashed: the repartition sinks' keys are text, and a Buffer
 * made for each would be garbage at once (a sixth of the bytes a word count allocated). Reused: hashing is synchronous.
 */
let scratch = Buffer.allocUnsafe(1024);

/** Java's `Utils.toPositive(murmur2(key)) % numPartitions`: the partition of a serialized key, its bytes or its UTF-8 text. */
export function partitionForKey(key: Buffer | string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) {
    throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`);
  }
  if (typeof key !== 'string') return (murmur2(key) & 0x7fffffff) % numPartitions;
  // Three bytes a UTF-16 unit at most: only a longer key is measured before it is written.
  if (key.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(Math.max(Buffer.byteLength(key, 'utf8'), scratch.length * 2));
  const length = scratch.write(key, 0, 'utf8');
  return (murmur2(scratch, length) & 0x7fffffff) % numPartitions;
}
