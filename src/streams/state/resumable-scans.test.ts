/**
 * Resumable scans of window and session stores (PositionedEntry): a scan resumed after an entry's position goes on
 * with exactly the entries after it, in the order of the whole scan, through caching layers too, and reads only
 * from the position on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from './recording-store-context';
import { isCachingStore, type KeyValue, type PositionedEntry, type SessionStore, type StoreIterator, type WindowStore, type Windowed } from './store';
import { plainValues } from './stored-value-format';
import { Stores } from './stores';
import { CountingStorage } from './testing/counting-storage';
import { TypedSessionStore } from './typed-session-store';
import { TypedWindowStore } from './typed-window-store';

const serdes = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
/** Segments of 300 000 ms (Kafka Streams' default interval: half the retention). */
const RETENTION = 600_000;
const SIZE = 100_000;
/** Keys of several lengths that share prefixes: a key's byte range holds longer keys too. */
const KEYS = ['a', 'a\u0000', 'ab', 'b', 'user-1', 'user-10', 'user-2'];
/** Window starts on both sides of the segment boundary at 300 000; the window at 250 000 straddles it. */
const STARTS = [0, 150_000, 250_000, 299_999, 300_000, 450_000, 590_000];
/** Sessions [start, end] in both segments (by their end); two straddle the boundary. */
const SESSIONS = [
  { start: 0, end: 10 },
  { start: 100_000, end: 290_000 },
  { start: 250_000, end: 300_000 },
  { start: 299_000, end: 350_000 },
  { start: 500_000, end: 500_000 },
];

const describeWindowed = (entry: KeyValue<Windowed<string>, unknown>): string =>
  `${entry.key.key}@${entry.key.window.start}-${entry.key.window.end}=${String(entry.value)}`;

/** The whole scan, read `size` entries at a time, each page a new iterator resumed after the last position. */
function paged<T>(open: (after: Buffer | undefined) => StoreIterator<PositionedEntry<Windowed<string>, T>>, size: number): PositionedEntry<Windowed<string>, T>[] {
  const all: PositionedEntry<Windowed<string>, T>[] = [];
  let after: Buffer | undefined;
  for (;;) {
    const iterator = open(after);
    const page: PositionedEntry<Windowed<string>, T>[] = [];
    for (const entry of iterator) {
      page.push(entry);
      if (page.length === size) break;
    }
    iterator.close();
    // A page that goes back would loop for ever: fail at once instead.
    if (after !== undefined && page.length > 0) expect(Buffer.compare(page[0]!.position, after)).toBeGreaterThan(0);
    all.push(...page);
    if (page.length < size) return all;
    after = page[page.length - 1]!.position;
  }
}

function expectResumable<T>(open: (after: Buffer | undefined) => StoreIterator<PositionedEntry<Windowed<string>, T>>, expected: string[]): void {
  const whole = [...open(undefined)];
  expect(whole.map(describeWindowed)).toEqual(expected);
  // Positions are increasing in byte order: the scan's order.
  for (let i = 1; i < whole.length; i++) expect(Buffer.compare(whole[i - 1]!.position, whole[i]!.position)).toBeLessThan(0);
  for (const size of [1, 2, 5]) expect(paged(open, size).map(describeWindowed)).toEqual(expected);
  // Resumed after each entry, the rest of the scan exactly.
  for (const [index, entry] of whole.entries()) expect([...open(entry.position)].map(describeWindowed)).toEqual(expected.slice(index + 1));
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-resumable-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['persistent', 'without', true, false],
  ['persistent', 'with', true, true],
  ['in-memory', 'without', false, false],
  ['in-memory', 'with', false, true],
])('a %s window store %s caching', (_kind, _caching, persistent, caching) => {
  let store: WindowStore<string, string>;

  beforeEach(() => {
    const supplier = persistent ? Stores.persistentWindowStore('win', RETENTION, SIZE, false) : Stores.inMemoryWindowStore('win', RETENTION, SIZE, false);
    const builder = Stores.windowStoreBuilder<string, string>(supplier);
    store = (caching ? builder.withCachingEnabled() : builder.withCachingDisabled()).build(serdes);
    store.init(new RecordingStoreContext(dir, { cacheMaxBytes: 1024 * 1024 }));
    for (const key of KEYS) for (const start of STARTS) store.put(key, `${key}${start}`, start);
    if (caching) {
      if (!isCachingStore(store)) throw new Error('not behind a cache');
      // Half in the store below, half in the cache only, some stored windows updated or deleted in the cache.
      store.flushCache();
      store.put('a', 'cached', 150_000);
      store.put('ab', null, 300_000);
      store.put('b', null, 0);
      store.put('aa', 'new', 250_000);
      store.put('user-1', 'new', 299_998);
      store.put('c', 'new', 590_000);
    }
  });

  afterEach(async () => {
    await store.close();
  });

  it.each([
    ['all', {}, () => store.all()],
    ['fetch_all', { timeFrom: 150_000, timeTo: 450_000 }, () => store.fetchAll(150_000, 450_000)],
    ['fetch_key_range', { keyFrom: 'a', keyTo: 'b', timeFrom: 0, timeTo: 600_000 }, () => store.fetchKeyRange('a', 'b', 0, 600_000)],
    ['fetch_key_range, open bounds', { timeFrom: 200_000, timeTo: 600_000 }, () => store.fetchKeyRange(undefined, undefined, 200_000, 600_000)],
  ])('%s resumes after any entry: the rest of the scan, in the order of the scan', (_clause, scan, unresumable) => {
    const expected = [...unresumable()].map(describeWindowed);
    expect(expected.length).toBeGreaterThan(10);
    expectResumable((after) => store.resumableScan({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER, ...scan }, after), expected);
  });

  it('the windows of one key resume likewise, longer keys with its bytes left out', () => {
    const expected = [...store.fetchRange('a', 0, 600_000)].map((entry) => `a@${entry.key}-${entry.key + SIZE}=${entry.value}`);
    expect(expected).toHaveLength(STARTS.length);
    expectResumable((after) => store.resumableScan({ key: 'a', timeFrom: 0, timeTo: 600_000 }, after), expected);
  });

  it('a position of an entry deleted since, or of a segment that holds nothing, resumes at what follows it', () => {
    const whole = [...store.resumableScan({ timeFrom: 0, timeTo: 600_000 }, undefined)];
    const position = whole[3]!.position;
    store.put(whole[3]!.key.key, null, whole[3]!.key.window.start);
    expect([...store.resumableScan({ timeFrom: 0, timeTo: 600_000 }, position)].map(describeWindowed)).toEqual(whole.slice(4).map(describeWindowed));
    const between = Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]), Buffer.from([0xff])]);
    const firstOfSecond = whole.findIndex((entry) => entry.key.window.start >= 300_000);
    expect([...store.resumableScan({ timeFrom: 0, timeTo: 600_000 }, between)].map(describeWindowed)).toEqual(whole.slice(firstOfSecond).map(describeWindowed));
  });
});

describe.each([
  ['persistent', true],
  ['in-memory', false],
])('a %s window store that retains duplicates', (_kind, persistent) => {
  it('resumes between the duplicates of one key and window', async () => {
    const supplier = persistent ? Stores.persistentWindowStore('dup', RETENTION, SIZE, true) : Stores.inMemoryWindowStore('dup', RETENTION, SIZE, true);
    const store = Stores.windowStoreBuilder<string, string>(supplier).build(serdes);
    store.init(new RecordingStoreContext(dir));
    for (let i = 0; i < 6; i++) {
      store.put('a', `a${i}`, 280_000);
      store.put('b', `b${i}`, 300_000);
    }
    const expected = [...store.fetchAll(0, 600_000)].map(describeWindowed);
    expect(expected).toHaveLength(12);
    expectResumable((after) => store.resumableScan({ timeFrom: 0, timeTo: 600_000 }, after), expected);
    expectResumable((after) => store.resumableScan({ key: 'a', timeFrom: 0, timeTo: 600_000 }, after), expected.slice(0, 6));
    await store.close();
  });
});

describe.each([
  ['persistent', 'without', true, false],
  ['persistent', 'with', true, true],
  ['in-memory', 'without', false, false],
  ['in-memory', 'with', false, true],
])('a %s session store %s caching', (_kind, _caching, persistent, caching) => {
  let store: SessionStore<string, string>;

  beforeEach(() => {
    const supplier = persistent ? Stores.persistentSessionStore('ses', RETENTION) : Stores.inMemorySessionStore('ses', RETENTION);
    const builder = Stores.sessionStoreBuilder<string, string>(supplier);
    store = (caching ? builder.withCachingEnabled() : builder.withCachingDisabled()).build(serdes);
    store.init(new RecordingStoreContext(dir, { cacheMaxBytes: 1024 * 1024 }));
    for (const key of KEYS) for (const window of SESSIONS) store.put({ key, window }, `${key}${window.end}`);
    if (caching) {
      if (!isCachingStore(store)) throw new Error('not behind a cache');
      store.flushCache();
      store.put({ key: 'a', window: SESSIONS[1]! }, 'cached');
      store.remove({ key: 'ab', window: SESSIONS[3]! });
      store.remove({ key: 'b', window: SESSIONS[0]! });
      store.put({ key: 'aa', window: { start: 200_000, end: 320_000 } }, 'new');
      store.put({ key: 'a', window: { start: 295_000, end: 299_999 } }, 'new');
      store.put({ key: 'c', window: SESSIONS[4]! }, 'new');
    }
  });

  afterEach(async () => {
    await store.close();
  });

  it.each([
    ['fetch_key_range', { keyFrom: 'a', keyTo: 'b' }, () => store.fetchKeyRange('a', 'b')],
    ['fetch_key_range, open bounds', {}, () => store.fetchKeyRange(undefined, undefined)],
    ['fetch', { key: 'a' }, () => store.fetch('a')],
  ])('%s resumes after any entry: the rest of the scan, in the order of the scan', (_clause, scan, unresumable) => {
    const expected = [...unresumable()].map(describeWindowed);
    expect(expected.length).toBeGreaterThan(4);
    expectResumable((after) => store.resumableScan(scan, after), expected);
  });
});

describe('a page of a resumed scan costs the page, not what came before it', () => {
  const RECORDS = 200_000;
  const PAGE = 1000;
  /** 2 000 keys, each in 100 windows over two segments of 600 000 ms. */
  const keyOf = (i: number) => `key-${String(i % 2000).padStart(5, '0')}`;
  const startOf = (i: number) => Math.floor(i / 2000) * 10_000;

  function pageVisits(storage: CountingStorage, open: (after: Buffer | undefined) => StoreIterator<PositionedEntry<Windowed<string>, unknown>>): { pages: number; records: number; visits: number[] } {
    const visits: number[] = [];
    let records = 0;
    let after: Buffer | undefined;
    for (;;) {
      storage.visited = 0;
      const iterator = open(after);
      let last: PositionedEntry<Windowed<string>, unknown> | undefined;
      let count = 0;
      for (const entry of iterator) {
        last = entry;
        if (++count === PAGE) break;
      }
      iterator.close();
      visits.push(storage.visited);
      records += count;
      if (count < PAGE) return { pages: visits.length, records, visits };
      after = last!.position;
    }
  }

  it('for a window store: 200 000 windowed records, 1 000 a page, every page reads 1 000 entries', () => {
    const storage = new CountingStorage();
    const store = new TypedWindowStore('win', 'window', storage, Serdes.String(), Serdes.Long(), plainValues(Serdes.Long()), {
      windowSize: 10_000,
      retentionPeriod: 1_200_000,
      segmentInterval: 600_000,
      retainDuplicates: false,
    });
    store.init(new RecordingStoreContext(dir, { loggingEnabled: false }));
    for (let i = 0; i < RECORDS; i++) store.put(keyOf(i), i, startOf(i));
    const { pages, records, visits } = pageVisits(storage, (after) => store.resumableScan({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER }, after));
    expect(records).toBe(RECORDS);
    expect(pages).toBe(RECORDS / PAGE + 1);
    expect(Math.max(...visits)).toBe(PAGE);
    const ranged = pageVisits(storage, (after) => store.resumableScan({ keyFrom: 'key-00500', keyTo: 'key-01499', timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER }, after));
    expect(ranged.records).toBe(RECORDS / 2);
    expect(Math.max(...ranged.visits)).toBe(PAGE);
  });

  it('for a session store: 200 000 sessions, 1 000 a page, every page reads 1 000 entries', () => {
    const storage = new CountingStorage();
    const store = new TypedSessionStore('ses', storage, Serdes.String(), Serdes.Long(), 1_200_000, 600_000);
    store.init(new RecordingStoreContext(dir, { loggingEnabled: false }));
    for (let i = 0; i < RECORDS; i++) store.put({ key: keyOf(i), window: { start: startOf(i), end: startOf(i) + 5_000 } }, i);
    const { pages, records, visits } = pageVisits(storage, (after) => store.resumableScan({}, after));
    expect(records).toBe(RECORDS);
    expect(pages).toBe(RECORDS / PAGE + 1);
    expect(Math.max(...visits)).toBe(PAGE);
  });
});
