import { jsonSerde } from '../serdes/json';
import { cacheKeyId, entryBytes, RecordCache } from './record-cache';
import { ThreadCache } from './thread-cache';

/** An entry as the tests write it: `key=value`, null for a deletion. */
interface Entry {
  key: string;
  value: string | null;
}

const show = (entry: Entry): string => `${entry.key}=${entry.value}`;

/** The estimated bytes of single-letter entries such as the tests write. */
const ENTRY = entryBytes('a', { key: 'a', value: '1' });

function cacheOf(entries: number, written: string[], onWrite: (entry: Entry) => void = () => undefined, thread = new ThreadCache(entries * ENTRY)): RecordCache<Entry> {
  return new RecordCache<Entry>(
    thread,
    (entry) => {
      written.push(show(entry));
      onWrite(entry);
    },
    (id) => String(id),
  );
}

describe('RecordCache', () => {
  it('writes the latest entry of each written key in the order of the last writes; written entries stay, deletions leave', () => {
    const written: string[] = [];
    const cache = cacheOf(10, written);
    cache.put('a', { key: 'a', value: '1' });
    cache.put('b', { key: 'b', value: '1' });
    cache.put('c', { key: 'c', value: '1' });
    cache.put('a', { key: 'a', value: '2' });
    cache.put('c', { key: 'c', value: null });
    expect(cache.get('a')?.value).toBe('2');
    expect([...cache.unwritten()].map(show)).toEqual(['b=1', 'a=2', 'c=null']);
    cache.flush();
    expect(written).toEqual(['b=1', 'a=2', 'c=null']);
    expect([...cache.unwritten()]).toEqual([]);
    expect(cache.size).toBe(2);
    expect(cache.get('a')?.value).toBe('2');
    expect(cache.get('c')).toBeUndefined();
    cache.flush();
    expect(written).toHaveLength(3);
  });

  it('writes each entry as the flush found it; one written while the flush runs waits for the next flush', () => {
    const written: string[] = [];
    const cache: RecordCache<Entry> = cacheOf(10, written, (entry) => {
      // What a's write forwards writes a key the flush writes later, and a new one; b's deletion writes b again.
      if (entry.key === 'a') {
        cache.put('c', { key: 'c', value: '2' });
        cache.put('d', { key: 'd', value: '1' });
      }
      if (entry.key === 'b') cache.put('b', { key: 'b', value: '2' });
    });
    cache.put('a', { key: 'a', value: '1' });
    cache.put('b', { key: 'b', value: null });
    cache.put('c', { key: 'c', value: '1' });
    cache.flush();
    expect(written).toEqual(['a=1', 'b=null', 'c=1']);
    expect([...cache.unwritten()].map(show)).toEqual(['c=2', 'd=1', 'b=2']);
    cache.flush();
    expect(written).toEqual(['a=1', 'b=null', 'c=1', 'c=2', 'd=1', 'b=2']);
    expect(cache.get('b')?.value).toBe('2');
  });

  it('past its budget evicts the least recently used entry: a written one silently, an unwritten one with every unwritten entry', () => {
    const written: string[] = [];
    const cache = cacheOf(3, written);
    cache.put('a', { key: 'a', value: '1' });
    cache.put('b', { key: 'b', value: '1' });
    cache.put('c', { key: 'c', value: '1' });
    cache.get('a');
    // b is the least recently used: written first, then the others in the order of their last writes.
    cache.put('d', { key: 'd', value: '1' });
    expect(written).toEqual(['b=1', 'a=1', 'c=1', 'd=1']);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.range(undefined, undefined).map(show)).toEqual(['a=1', 'c=1', 'd=1']);
    // c, written already, is now the least recently used: it leaves without a write.
    cache.get('a');
    cache.put('e', { key: 'e', value: '1' });
    expect(written).toHaveLength(4);
    expect(cache.range(undefined, undefined).map(show)).toEqual(['a=1', 'd=1', 'e=1']);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(written).toHaveLength(4);
  });

  it('with no budget writes every entry at once and keeps none', () => {
    const written: string[] = [];
    const cache = cacheOf(0, written);
    cache.put('a', { key: 'a', value: '1' });
    cache.put('a', { key: 'a', value: '2' });
    expect(written).toEqual(['a=1', 'a=2']);
    expect(cache.size).toBe(0);
  });

  it('after a write to its store failed, fails every flush and eviction until cleared: no commit passes what it did not write', () => {
    const written: string[] = [];
    const full = new Error('no space left');
    let failing = true;
    const cache = cacheOf(4, written, (entry) => {
      if (failing && entry.key === 'b') throw full;
    });
    cache.put('a', { key: 'a', value: '1' });
    cache.put('b', { key: 'b', value: '1' });
    cache.put('c', { key: 'c', value: '1' });
    expect(() => cache.flush()).toThrow(full);
    failing = false;
    expect(() => cache.flush()).toThrow(full);
    cache.put('d', { key: 'd', value: '1' });
    expect(() => cache.put('e', { key: 'e', value: '1' })).toThrow(full);
    expect(written).toEqual(['a=1', 'b=1']);
    cache.clear();
    cache.put('a', { key: 'a', value: '2' });
    cache.flush();
    expect(written).toEqual(['a=1', 'b=1', 'a=2']);
  });

  it('reads ranges in the order of the keys it is given for them, bounds included', () => {
    const cache = new RecordCache<Entry>(new ThreadCache(100 * ENTRY), () => undefined, (_id, entry) => entry.key.toUpperCase());
    for (const key of ['d', 'b', 'e', 'a', 'c']) cache.put(key, { key, value: key });
    cache.put('c', { key: 'c', value: null });
    expect(cache.range('B', 'D').map(show)).toEqual(['b=b', 'c=null', 'd=d']);
    expect(cache.range(undefined, 'B').map(show)).toEqual(['a=a', 'b=b']);
    expect(cache.range('D', undefined).map(show)).toEqual(['d=d', 'e=e']);
    cache.flush();
    expect(cache.range(undefined, undefined).map(show)).toEqual(['a=a', 'b=b', 'd=d', 'e=e']);
  });
});

describe('cacheKeyId', () => {
  it('gives every distinct key its own id: strings as themselves, numbers apart from their text, objects by their bytes', () => {
    const keys: unknown[] = [5, '5', 'number:5', true, 'true', { a: 1 }, '\u0000o{"a":1}', '{"a":1}', '\u0000sx', 'x', '', 0n];
    const ids = keys.map((key) => cacheKeyId(key, jsonSerde));
    expect(new Set(ids).size).toBe(keys.length);
    expect(cacheKeyId('kafka', jsonSerde)).toBe('kafka');
    expect(cacheKeyId({ a: 1 }, jsonSerde)).toBe(cacheKeyId({ a: 1 }, jsonSerde));
  });
});
