/**
 * MurmurHash3 x64 128-bit, as Kafka Streams' `state.internals.Murmur3.hash128` computes it (seed 104729): foreign-key
 * joins carry it to recognise stale responses. The two 64-bit halves come back big-endian, h1 then h2, as Kafka
 * Streams writes them into its subscription records.
 */
const MASK = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;
const SEED = 104729n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;
const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;

function fmix64(h: bigint): bigint {
  h ^= h >> 33n;
  h = mul(h, 0xff51afd7ed558ccdn);
  h ^= h >> 33n;
  h = mul(h, 0xc4ceb9fe1a85ec53n);
  h ^= h >> 33n;
  return h;
}

/** Little-endian 64-bit word of up to 8 bytes from `offset`. */
function word(data: Buffer, offset: number, length: number): bigint {
  let k = 0n;
  for (let i = length - 1; i >= 0; i--) k = (k << 8n) | BigInt(data[offset + i]!);
  return k;
}

export function murmur3Hash128(data: Buffer): Buffer {
  let h1 = SEED;
  let h2 = SEED;
  const blocks = data.length >> 4;
  for (let i = 0; i < blocks; i++) {
    let k1 = word(data, i * 16, 8);
    let k2 = word(data, i * 16 + 8, 8);
    k1 = mul(rotl(mul(k1, C1), 31n), C2);
    h1 ^= k1;
    h1 = (mul(rotl(h1, 27n) + h2, 5n) + 0x52dce729n) & MASK;
    k2 = mul(rotl(mul(k2, C2), 33n), C1);
    h2 ^= k2;
    h2 = (mul(rotl(h2, 31n) + h1, 5n) + 0x38495ab5n) & MASK;
  }
  const tail = blocks * 16;
  const rest = data.length - tail;
  if (rest > 8) h2 ^= mul(rotl(mul(word(data, tail + 8, rest - 8), C2), 33n), C1);
  if (rest > 0) h1 ^= mul(rotl(mul(word(data, tail, Math.min(rest, 8)), C1), 31n), C2);
  const length = BigInt(data.length);
  h1 ^= length;
  h2 ^= length;
  h1 = (h1 + h2) & MASK;
  h2 = (h2 + h1) & MASK;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & MASK;
  h2 = (h2 + h1) & MASK;
  const out = Buffer.alloc(16);
  out.writeBigUInt64BE(h1, 0);
  out.writeBigUInt64BE(h2, 8);
  return out;
}
