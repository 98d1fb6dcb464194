import { jsonSerde } from '../serdes/json';
import { cacheKeyId, RecordCache } from './record-cache';

describe('RecordCache', () => {
  it('keeps the latest entry of each key, in the order of the last updates', () => {
    const written: string[] = [];
    const cache = new RecordCache<string>(10, (entry) => written.push(entry));
    cache.put('a', 'a1');
    cache.put('b', 'b1');
    cache.put('c', 'c1');
    cache.put('a', 'a2');
    cache.put('c', 'c2');
    expect(cache.get('a')).toBe('a2');
    expect([...cache.values()]).toEqual(['b1', 'a2', 'c2']);
    expect(cache.size).toBe(3);
    cache.flush();
    expect(written).toEqual(['b1', 'a2', 'c2']);
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
    expect([...cache.values()]).toEqual([]);
  });

  it('writes each entry as the flush found it; one updated while the flush runs stays for the next', () => {
    const written: string[] = [];
    const cache: RecordCache<string> = new RecordCache<string>(10, (entry) => {
      written.push(entry);
      // What the first entry forwards updates a key written later in this flush, and adds a new one.
      if (entry === 'a1') {
        cache.put('c', 'c2');
        cache.put('d', 'd1');
      }
    });
    cache.put('a', 'a1');
    cache.put('b', 'b1');
    cache.put('c', 'c1');
    cache.flush();
    expect(written).toEqual(['a1', 'b1', 'c1']);
    expect([...cache.values()]).toEqual(['c2', 'd1']);
    cache.flush();
    expect(written).toEqual(['a1', 'b1', 'c1', 'c2', 'd1']);
  });

  it('writes everything once it holds more keys than its capacity; clear forgets without writing', () => {
    const written: string[] = [];
    const cache = new RecordCache<string>(2, (entry) => written.push(entry));
    cache.put('a', 'a1');
    cache.put('b', 'b1');
    cache.put('a', 'a2');
    expect(written).toEqual([]);
    cache.put('c', 'c1');
    expect(written).toEqual(['b1', 'a2', 'c1']);
    cache.put('d', 'd1');
    cache.clear();
    expect(cache.size).toBe(0);
    cache.put('e', 'e1');
    expect([...cache.values()]).toEqual(['e1']);
    expect(written).toEqual(['b1', 'a2', 'c1']);
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
