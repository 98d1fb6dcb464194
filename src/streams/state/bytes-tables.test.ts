import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToLatin1 } from './byte-order';
import type { BytesRange, BytesTable } from './bytes-table';
import { InMemoryStorage } from './in-memory-storage';
import { open } from 'lmdb';
import { LMDB_MAX_KEY_BYTES, LmdbTable } from './lmdb-table';
import { LmdbStorage } from './lmdb-storage';
import { RecordingStoreContext } from './recording-store-context';
import type { StoreStorage } from './store-storage';

/** Deterministic pseudo-random numbers, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Short keys over a small alphabet (so bounds hit existing keys and prefixes), including 0x00, 0xff and the empty key. */
function randomKey(next: () => number): Buffer {
  const alphabet = [0x00, 0x01, 0x41, 0x5a, 0x61, 0x7f, 0x80, 0xc3, 0xa9, 0xff];
  const length = Math.floor(next() * 4);
  return Buffer.from(Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]));
}

/** What a range should answer, computed by brute force over a model of the table. */
function expected(model: Map<string, Buffer>, range: BytesRange): string[] {
  const keys = [...model.keys()].sort().filter((key) => {
    const bytes = Buffer.from(key, 'latin1');
    if (range.from !== undefined && Buffer.compare(bytes, range.from) < 0) return false;
    if (range.to === undefined) return true;
    const order = Buffer.compare(bytes, range.to);
    return range.toInclusive ? order <= 0 : order < 0;
  });
  if (range.reverse) keys.reverse();
  return keys.map((key) => `${Buffer.from(key, 'latin1').toString('hex')}=${model.get(key)?.toString('hex')}`);
}

function actual(table: BytesTable, range: BytesRange): string[] {
  return [...table.range(range)].map((entry) => `${entry.key.toString('hex')}=${entry.value.toString('hex')}`);
}

function randomRange(next: () => number): BytesRange {
  const from = next() < 0.2 ? undefined : randomKey(next);
  const to = next() < 0.2 ? undefined : randomKey(next);
  return { from, to, toInclusive: next() < 0.5, reverse: next() < 0.5 };
}

describe.each([
  ['in-memory', (): StoreStorage => new InMemoryStorage()],
  ['lmdb', (): StoreStorage => new LmdbStorage()],
])('%s table', (_kind, createStorage) => {
  let dir: string;
  let storage: StoreStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-table-'));
    storage = createStorage();
    storage.open(new RecordingStoreContext(dir), 'store');
  });

  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every range in unsigned byte order, before and after the writes commit', async () => {
    const next = random(42);
    const table = storage.table('kv');
    const model = new Map<string, Buffer>();
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 20; i++) {
        const key = randomKey(next);
        if (next() < 0.25) {
          table.put(key, null);
          model.delete(bytesToLatin1(key));
        } else {
          const value = Buffer.from([round, i]);
          table.put(key, value);
          model.set(bytesToLatin1(key), value);
        }
      }
      // Half of the checks run on uncommitted writes (LMDB: the overlay), half after a commit.
      if (round % 2 === 0) await storage.flush();
      for (let q = 0; q < 20; q++) {
        const range = randomRange(next);
        expect({ range, entries: actual(table, range) }).toEqual({ range, entries: expected(model, range) });
      }
      for (const key of model.keys()) expect(table.get(Buffer.from(key, 'latin1'))).toEqual(model.get(key));
      expect(table.approximateNumEntries()).toBe(model.size);
    }
  });

  it('keeps reads consistent across clear() before and after it commits', async () => {
    const table = storage.table('kv');
    table.put(Buffer.from('a'), Buffer.from('1'));
    table.put(Buffer.alloc(0), Buffer.from('empty'));
    await storage.flush();
    table.clear();
    table.put(Buffer.from('b'), Buffer.from('2'));
    expect(actual(table, { toInclusive: true, reverse: false })).toEqual(['62=32']);
    expect(table.get(Buffer.from('a'))).toBeUndefined();
    await storage.flush();
    expect(actual(table, { toInclusive: true, reverse: false })).toEqual(['62=32']);
    expect(table.approximateNumEntries()).toBe(1);
  });

  it('stores the empty key and orders it first', async () => {
    const table = storage.table('kv');
    table.put(Buffer.from('a'), Buffer.from('1'));
    table.put(Buffer.alloc(0), Buffer.from('0'));
    await storage.flush();
    expect(table.get(Buffer.alloc(0))).toEqual(Buffer.from('0'));
    expect(actual(table, { toInclusive: true, reverse: false })).toEqual(['=30', '61=31']);
    expect(actual(table, { toInclusive: true, reverse: true })).toEqual(['61=31', '=30']);
    expect(actual(table, { to: Buffer.alloc(0), toInclusive: true, reverse: false })).toEqual(['=30']);
    table.put(Buffer.alloc(0), null);
    expect(table.get(Buffer.alloc(0))).toBeUndefined();
    expect(table.approximateNumEntries()).toBe(1);
  });

  it('answers ranges whose bounds are longer than any storable key', () => {
    const table = storage.table('kv');
    const longest = Buffer.alloc(LMDB_MAX_KEY_BYTES, 0x61);
    table.put(longest, Buffer.from('x'));
    table.put(Buffer.from('b'), Buffer.from('y'));
    const longer = Buffer.concat([longest, Buffer.from('a')]);
    expect(actual(table, { from: longer, toInclusive: true, reverse: false })).toEqual(['62=79']);
    expect(actual(table, { to: longer, toInclusive: false, reverse: false })).toHaveLength(1);
    expect(table.get(longer)).toBeUndefined();
  });
});

describe('lmdb table', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-lmdb-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one environment per store below <taskDir>/lmdb/<store>, with tables that survive a reopen', async () => {
    const context = new RecordingStoreContext(dir);
    const storage = new LmdbStorage();
    storage.open(context, 'counts');
    storage.table('segment.0').put(Buffer.from('k'), Buffer.from('v'));
    storage.table('segment.60000').put(Buffer.from('k'), Buffer.from('w'));
    storage.dropTable('segment.60000');
    await storage.close();

    const reopened = new LmdbStorage();
    reopened.open(context, 'counts');
    expect(reopened.tableNames()).toEqual(['segment.0']);
    expect(reopened.table('segment.0').get(Buffer.from('k'))).toEqual(Buffer.from('v'));
    expect(reopened.sizeBytes()).toBeGreaterThan(0);
    await reopened.close();
    expect(() => new LmdbStorage().open(new RecordingStoreContext(join(dir, 'x')), 's')).not.toThrow();
  });

  it('releases the LMDB cursor when the caller stops early', async () => {
    const env = open<Buffer, Buffer>({ path: dir, keyEncoding: 'binary', encoding: 'binary', maxDbs: 2 });
    const db = env.openDB<Buffer, Buffer>('kv', { keyEncoding: 'binary', encoding: 'binary' });
    const returned: number[] = [];
    const getRange = db.getRange.bind(db);
    jest.spyOn(db, 'getRange').mockImplementation((options) => {
      const iterable = getRange(options);
      const iterate = iterable[Symbol.iterator].bind(iterable);
      iterable[Symbol.iterator] = () => {
        const iterator = iterate();
        const close = iterator.return?.bind(iterator);
        iterator.return = (value?: unknown) => {
          returned.push(1);
          return close ? close(value) : { done: true, value: undefined };
        };
        return iterator;
      };
      return iterable;
    });
    const table = new LmdbTable('test', db, undefined, (error) => {
      throw error;
    });
    for (const key of ['a', 'b', 'c']) table.put(Buffer.from(key), Buffer.from(key));
    await env.committed;

    const unopened = table.range({ toInclusive: true, reverse: false });
    expect(db.getRange).not.toHaveBeenCalled();
    unopened.return();
    for (const entry of table.range({ toInclusive: true, reverse: false })) {
      expect(entry.key.toString()).toBe('a');
      break;
    }
    expect(db.getRange).toHaveBeenCalledTimes(1);
    expect(returned).toHaveLength(1);
    await env.close();
  });

  it('rejects keys longer than LMDB allows with a clear error', async () => {
    const storage = new LmdbStorage();
    storage.open(new RecordingStoreContext(dir), 'store');
    expect(() => storage.table('kv').put(Buffer.alloc(LMDB_MAX_KEY_BYTES + 1), Buffer.from('v'))).toThrow(/exceeds LMDB's limit/);
    await storage.close();
  });

  it('passes its LMDB options to configureStore and keeps the byte layout', async () => {
    const seen: Record<string, unknown>[] = [];
    const context = new RecordingStoreContext(dir, {
      configureStore: (storeName, options) => {
        seen.push({ storeName, ...options });
        options.mapSize = 64 * 1024 * 1024;
        options.keyEncoding = 'ordered-binary';
      },
    });
    const storage = new LmdbStorage();
    storage.open(context, 'tuned');
    expect(seen).toEqual([
      expect.objectContaining({ storeName: 'tuned', path: join(dir, 'lmdb', 'tuned'), keyEncoding: 'binary', encoding: 'binary' }),
    ]);
    const table = storage.table('kv');
    table.put(Buffer.from('b'), Buffer.from('2'));
    table.put(Buffer.from('a'), Buffer.from('1'));
    await storage.flush();
    expect([...table.range({ toInclusive: true, reverse: false })].map((entry) => entry.key.toString())).toEqual(['a', 'b']);
    await storage.close();
  });
});
