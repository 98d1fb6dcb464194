import { entryBytes, RecordCache } from './record-cache';
import { ThreadCache } from './thread-cache';

interface Entry {
  key: string;
  value: string | null;
}

/** The estimated bytes of single-letter entries such as most tests write. */
const ENTRY = entryBytes('a', { key: 'a', value: '1' });

/** A cache in `thread` that records what it writes through as `name:key=value`. */
function cacheIn(thread: ThreadCache, name: string, written: string[], onWrite: (entry: Entry) => void = () => undefined): RecordCache<Entry> {
  return new RecordCache<Entry>(
    thread,
    (entry) => {
      written.push(`${name}:${entry.key}=${entry.value}`);
      onWrite(entry);
    },
    (id) => String(id),
  );
}

const keys = (cache: RecordCache<Entry>): string[] => cache.range(undefined, undefined).map((entry) => entry.key);

describe('ThreadCache', () => {
  it('is one budget for the caches of its thread: a write evicts from the cache it went to, until the thread is within it', () => {
    const thread = new ThreadCache(4 * ENTRY);
    const written: string[] = [];
    const first = cacheIn(thread, 'first', written);
    const second = cacheIn(thread, 'second', written);
    for (const key of ['a', 'b', 'c']) first.put(key, { key, value: '1' });
    second.put('x', { key: 'x', value: '1' });
    expect(written).toEqual([]);
    // Five entries in a budget of four: the second cache's least recently used goes, written with its other dirty one.
    second.put('y', { key: 'y', value: '1' });
    expect(written).toEqual(['second:x=1', 'second:y=1']);
    expect(keys(first)).toEqual(['a', 'b', 'c']);
    expect(keys(second)).toEqual(['y']);
    expect(thread.sizeBytes).toBe(4 * ENTRY);
    expect(first.sizeBytes + second.sizeBytes).toBe(thread.sizeBytes);
    // Closing a cache gives its share back.
    first.close();
    expect(thread.sizeBytes).toBe(ENTRY);
  });

  it('never holds more than its budget after a write, whatever the writes, deletions, flushes and writes that flushes make in other caches', () => {
    const thread = new ThreadCache(20 * ENTRY);
    const written: string[] = [];
    const caches: RecordCache<Entry>[] = [];
    // What the first cache writes through goes on to the second, as a store's updates go to the store below it.
    caches.push(cacheIn(thread, '0', written, (entry) => caches[1]!.put(entry.key, { key: entry.key, value: entry.value === null ? null : `${entry.value}+` })));
    caches.push(cacheIn(thread, '1', written));
    caches.push(cacheIn(thread, '2', written));
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 5_000; step++) {
      const cache = caches[random(caches.length)]!;
      const key = String.fromCharCode(97 + random(26));
      const action = random(20);
      if (action === 0) cache.flush();
      else if (action < 4) cache.get(key);
      else cache.put(key, { key, value: action < 6 ? null : 'v'.repeat(random(400)) });
      expect(thread.sizeBytes).toBeLessThanOrEqual(thread.maxBytes);
      const held = caches.reduce((sum, c) => sum + c.range(undefined, undefined).reduce((bytes, entry) => bytes + entryBytes(entry.key, entry), 0), 0);
      expect(thread.sizeBytes).toBe(held);
    }
  });

  it('resized smaller, evicts from each cache in turn until within the new budget; resized larger, evicts nothing', () => {
    const thread = new ThreadCache(6 * ENTRY);
    const written: string[] = [];
    const first = cacheIn(thread, 'first', written);
    const second = cacheIn(thread, 'second', written);
    for (const key of ['a', 'b', 'c']) first.put(key, { key, value: '1' });
    for (const key of ['x', 'y', 'z']) second.put(key, { key, value: '1' });
    second.flush();
    written.length = 0;
    thread.resize(4 * ENTRY);
    // The first cache's eldest is dirty: it is written with the others; the second's leaves silently.
    expect(written).toEqual(['first:a=1', 'first:b=1', 'first:c=1']);
    expect(keys(first)).toEqual(['b', 'c']);
    expect(keys(second)).toEqual(['y', 'z']);
    expect(thread.sizeBytes).toBe(4 * ENTRY);
    thread.resize(10 * ENTRY);
    first.put('d', { key: 'd', value: '1' });
    expect(thread.sizeBytes).toBe(5 * ENTRY);
    expect(thread.maxBytes).toBe(10 * ENTRY);
  });
});

describe('entryBytes', () => {
  it('counts what a cached entry holds: strings by their length, numbers that are no small integers, objects by their fields', () => {
    const small = entryBytes('k', { key: 'k', value: 1 });
    expect(entryBytes('k', { key: 'k', value: 'x'.repeat(1_000) })).toBeGreaterThan(small + 1_000);
    expect(entryBytes('k'.repeat(100), { key: 'k'.repeat(100), value: 1 })).toBe(small + 99);
    expect(entryBytes('k', { key: 'k', value: 0.5 })).toBeGreaterThan(small);
    expect(entryBytes('k', { key: 'k', value: { value: 1, timestamp: 1_764_000_000_000 } })).toBeGreaterThan(small);
    expect(entryBytes('k', { key: 'k', value: Buffer.alloc(500) })).toBeGreaterThan(small + 500);
    // A key apart from its id (an object key, a window) counts too.
    expect(entryBytes('\u0000o{"id":1}', { key: { id: 1 }, value: 1 })).toBeGreaterThan(entryBytes('\u0000o{"id":1}', { key: '\u0000o{"id":1}', value: 1 }));
  });
});

describe('ThreadCache.limit', () => {
  it('caps the instance\'s share with the node\'s memory budget: the smaller wins, whichever changes', () => {
    const cache = new ThreadCache(1_000);
    expect(cache.maxBytes).toBe(1_000);
    cache.limit(400);
    expect(cache.maxBytes).toBe(400);
    cache.resize(300);
    expect(cache.maxBytes).toBe(300);
    cache.resize(2_000);
    expect(cache.maxBytes).toBe(400);
    cache.limit(Number.POSITIVE_INFINITY);
    expect(cache.maxBytes).toBe(2_000);
  });
});
