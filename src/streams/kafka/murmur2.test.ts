import { murmur2, partitionForKey } from './murmur2';

/**
 * Expected values come from the real Java client (kafka-clients 3.9.1), computed with
 *   jshell --class-path kafka-clients-3.9.1.jar:slf4j-api-1.7.36.jar
 * as Utils.murmur2(key.getBytes(UTF_8)) and Utils.toPositive(hash) % 6. The keys cover every length mod 4
 * and multi-byte UTF-8. integration/foundation/key-placement.test.ts checks the same pairs on a broker.
 */
const JAVA_MURMUR2_CASES: ReadonlyArray<{ key: string; hash: number; partitionOf6: number }> = [
  { key: '', hash: 275646681, partitionOf6: 3 },
  { key: 'a', hash: -1563381124, partitionOf6: 4 },
  { key: 'hello', hash: 2132663229, partitionOf6: 3 },
  { key: 'sluice', hash: 553169281, partitionOf6: 1 },
  { key: 'word-42', hash: -1873412869, partitionOf6: 1 },
  { key: 'key-0001', hash: -61522296, partitionOf6: 2 },
  { key: 'Grüße, 世界 🌍', hash: 1314568942, partitionOf6: 4 },
  { key: 'The quick brown fox jumps over the lazy dog. '.repeat(5), hash: 2031899309, partitionOf6: 5 },
];

describe('murmur2', () => {
  it.each(JAVA_MURMUR2_CASES)('hashes $key.length bytes of "$key" like Java', ({ key, hash }) => {
    expect(murmur2(Buffer.from(key, 'utf8'))).toBe(hash);
  });

  it.each(JAVA_MURMUR2_CASES)('places "$key" on partition $partitionOf6 of 6 like Java', ({ key, partitionOf6 }) => {
    expect(partitionForKey(Buffer.from(key, 'utf8'), 6)).toBe(partitionOf6);
  });

  it.each(JAVA_MURMUR2_CASES)('places the text "$key" on partition $partitionOf6 of 6, as its UTF-8 bytes', ({ key, partitionOf6 }) => {
    expect(partitionForKey(key, 6)).toBe(partitionOf6);
  });

  it('places text longer than its scratch buffer, and text after it, as their UTF-8 bytes', () => {
    const keys = ['é'.repeat(700), '世界🌍'.repeat(400), 'short', '\ud800 lone surrogate', 'x'.repeat(5000)];
    for (const key of keys) expect(partitionForKey(key, 1009)).toBe(partitionForKey(Buffer.from(key, 'utf8'), 1009));
  });

  it('rejects a partition count that is not a positive integer', () => {
    expect(() => partitionForKey(Buffer.from('a'), 0)).toThrow(RangeError);
    expect(() => partitionForKey(Buffer.from('a'), 1.5)).toThrow(RangeError);
  });
});
