import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes } from '../serdes/serdes';
import { entryBytes } from './record-cache';
import { RecordingStoreContext } from './recording-store-context';
import { type CachedUpdate, type CachingStore, isCachingStore, type KeyValue, type StateStore, type StoreIterator, type Windowed } from './store';
import { Stores } from './stores';

const serdes = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
const MB = 1024 * 1024;

let dir: string;
let context: RecordingStoreContext;
let flushed: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-caching-'));
  context = new RecordingStoreContext(dir, { cacheMaxBytes: MB });
  flushed = [];
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a built store, checks it is cached and records what its flush writes through as `key=new(old)`. */
function open<S extends StateStore>(store: S, describe: (key: never) => string, sendOldValues = true): S & CachingStore<unknown, string> {
  store.init(context);
  if (!isCachingStore(store)) throw new Error(`${store.name} is not behind a cache`);
  const cached = store as S & CachingStore<unknown, string>;
  cached.setFlushListener((update: CachedUpdate<unknown, string>) => {
    flushed.push(`${describe(update.key as never)}=${update.newValue}(${update.oldValue})`);
  }, sendOldValues);
  return cached;
}

function entries<K, V>(iterator: StoreIterator<KeyValue<K, V>>, describe: (key: K) => string): string[] {
  return [...iterator].map((entry) => `${describe(entry.key)}=${entry.value}`);
}

const windowed = (key: Windowed<string>): string => `${key.key}@${key.window.start}-${key.window.end}`;

describe('caching key-value store', () => {
  const build = (caching = true) => {
    const builder = Stores.keyValueStoreBuilder<string, string>(Stores.persistentKeyValueStore('kv'));
    return (caching ? builder.withCachingEnabled() : builder.withCachingDisabled()).build(serdes);
  };

  it('is not built behind a cache unless caching is enabled', async () => {
    const store = build(false);
    store.init(context);
    expect(isCachingStore(store)).toBe(false);
    await store.close();
  });

  it("tells the context of each read of its cache, found or not, when the context asks (the cache's hit ratio)", async () => {
    const reads: string[] = [];
    context = Object.assign(new RecordingStoreContext(dir, { cacheMaxBytes: MB }), { cacheRead: (store: string, hit: boolean) => void reads.push(`${store}:${hit ? 'hit' : 'miss'}`) });
    const store = open(build(), (key: string) => key);
    store.put('a', '1');
    expect(store.get('a')).toBe('1');
    expect(store.get('b')).toBeUndefined();
    expect(reads).toEqual(['kv:hit', 'kv:miss']);
    await store.close();
  });

  it('keeps one update per key until the flush, reads through the cache, then writes in last-update order', async () => {
    const store = open(build(), (key: string) => key);
    store.put('a', '1');
    store.put('b', '1');
    store.put('a', '2');
    expect(store.get('a')).toBe('2');
    expect(context.changelog).toHaveLength(0);
    expect(flushed).toEqual([]);
    store.flushCache();
    expect(flushed).toEqual(['b=1(null)', 'a=2(null)']);
    expect(context.changelog.map((record) => record.key.toString())).toEqual(['b', 'a']);
    store.put('a', '3');
    store.flushCache();
    expect(flushed.at(-1)).toBe('a=3(2)');
    await store.close();
  });

  it('neither writes nor forwards a deletion of a key the store never held, and forwards one of a key it held', async () => {
    const store = open(build(), (key: string) => key);
    store.put('k1', 'v1');
    store.flushCache();
    store.delete('k1');
    store.put('k2', null);
    store.put('k3', 'v3');
    store.delete('k3');
    store.flushCache();
    expect(flushed).toEqual(['k1=v1(null)', 'k1=null(v1)']);
    expect(context.changelog.map((record) => `${record.key}=${record.value === null ? null : record.value.toString()}`)).toEqual(['k1=v1', 'k1=null']);
    await store.close();
  });

  it('merges cached writes and deletions into range scans in byte order, both ways', async () => {
    const store = open(build(), (key: string) => key);
    for (const key of ['a', 'c', 'e']) store.put(key, 'stored');
    store.flushCache();
    store.put('b', 'cached');
    store.put('c', null);
    store.put('e', 'cached');
    store.put('f', 'cached');
    const describe = (key: string) => key;
    expect(entries(store.all(), describe)).toEqual(['a=stored', 'b=cached', 'e=cached', 'f=cached']);
    expect(entries(store.reverseAll(), describe)).toEqual(['f=cached', 'e=cached', 'b=cached', 'a=stored']);
    expect(entries(store.range('b', 'e'), describe)).toEqual(['b=cached', 'e=cached']);
    expect(entries(store.prefixScan('f', Serdes.String()), describe)).toEqual(['f=cached']);
    // a, e and the stored c, less c's cached deletion, plus the cached b and f.
    expect(store.approximateNumEntries()).toBe(4);
    await store.close();
  });

  it('writes through at once when statestore.cache.max.bytes is 0', async () => {
    context = new RecordingStoreContext(dir, { cacheMaxBytes: 0 });
    const store = open(build(), (key: string) => key);
    store.put('a', '1');
    store.put('a', '2');
    expect(flushed).toEqual(['a=1(null)', 'a=2(1)']);
    await store.close();
  });

  it('flushes everything, in last-update order, when the cache outgrows its budget', async () => {
    // Room for three single-letter entries, not four.
    context = new RecordingStoreContext(dir, { cacheMaxBytes: 3 * entryBytes('a', { key: 'a', value: 'a' }) + 100 });
    const store = open(build(), (key: string) => key, false);
    for (const key of ['a', 'b', 'c']) store.put(key, key);
    store.put('a', 'a2');
    expect(flushed).toEqual([]);
    store.put('d', 'd');
    expect(flushed).toEqual(['b=b(null)', 'c=c(null)', 'a=a2(null)', 'd=d(null)']);
    await store.close();
  });

  it("shares its thread's budget with the thread's other cached stores: a write evicts from its own store's cache", async () => {
    context = new RecordingStoreContext(dir, { cacheMaxBytes: 3 * entryBytes('a', { key: 'a', value: 'a' }) + 100 });
    const first = open(build(), (key: string) => `first:${key}`, false);
    const second = open(Stores.keyValueStoreBuilder<string, string>(Stores.persistentKeyValueStore('kv2')).withCachingEnabled().build(serdes), (key: string) => `second:${key}`, false);
    first.put('a', 'a');
    first.put('b', 'b');
    second.put('x', 'x');
    expect(flushed).toEqual([]);
    // A fourth entry in the thread: the second store's cache gives up its least recently used (and writes its dirty ones).
    second.put('y', 'y');
    expect(flushed).toEqual(['second:x=x(null)', 'second:y=y(null)']);
    expect(context.cache!.sizeBytes).toBeLessThanOrEqual(context.cache!.maxBytes);
    // The first store kept its entries, unwritten.
    first.flushCache();
    expect(flushed.slice(2)).toEqual(['first:a=a(null)', 'first:b=b(null)']);
    await first.close();
    await second.close();
    expect(context.cache!.sizeBytes).toBe(0);
  });
});

describe('caching window store', () => {
  const build = () => Stores.windowStoreBuilder<string, string>(Stores.persistentWindowStore('windows', 60_000, 10, false)).withCachingEnabled().build(serdes);

  it('dedups per window, reads through the cache and flushes in last-update order', async () => {
    const store = open(build(), windowed);
    store.put('a', '1', 0);
    store.put('a', '1', 10);
    store.put('b', '1', 0);
    store.put('a', '2', 0);
    store.put('c', null, 0);
    expect(store.fetch('a', 0)).toBe('2');
    expect(entries(store.fetchRange('a', 0, 10), (start) => String(start))).toEqual(['0=2', '10=1']);
    expect(context.changelog).toHaveLength(0);
    store.flushCache();
    expect(flushed).toEqual(['a@10-20=1(null)', 'b@0-10=1(null)', 'a@0-10=2(null)']);
    expect(context.changelog).toHaveLength(3);
    await store.close();
  });

  it('merges the cache into key and time ranges in the store order (time segment, then key and start)', async () => {
    const store = open(build(), windowed);
    store.put('a', 'stored', 0);
    store.put('b', 'stored', 0);
    store.put('a', 'stored', 20);
    store.flushCache();
    store.put('b', null, 0);
    store.put('c', 'cached', 0);
    store.put('a', 'cached', 10);
    expect(entries(store.fetchAll(0, 20), windowed)).toEqual(['a@0-10=stored', 'a@10-20=cached', 'a@20-30=stored', 'c@0-10=cached']);
    expect(entries(store.fetchKeyRange('b', 'c', 0, 20), windowed)).toEqual(['c@0-10=cached']);
    expect(entries(store.backwardFetchRange('a', 0, 20), (start) => String(start))).toEqual(['20=stored', '10=cached', '0=stored']);
    await store.close();
  });
});

describe('caching session store', () => {
  const build = () => Stores.sessionStoreBuilder<string, string>(Stores.persistentSessionStore('sessions', 60_000)).withCachingEnabled().build(serdes);
  const session = (key: string, start: number, end: number): Windowed<string> => ({ key, window: { start, end } });

  it('dedups per session, drops the removal of a session never stored, and flushes in last-update order', async () => {
    const store = open(build(), windowed);
    store.put(session('a', 0, 5), '1');
    store.put(session('b', 0, 0), '1');
    store.remove(session('a', 0, 5));
    store.put(session('a', 0, 9), '2');
    expect(store.fetchSession('a', 0, 5)).toBeUndefined();
    expect(store.fetchSession('a', 0, 9)).toBe('2');
    store.flushCache();
    expect(flushed).toEqual(['b@0-0=1(null)', 'a@0-9=2(null)']);
    store.remove(session('b', 0, 0));
    store.flushCache();
    expect(flushed.at(-1)).toBe('b@0-0=null(1)');
    await store.close();
  });

  it('finds written sessions past the store retention while the cache still holds them, as a record bridging two sessions needs', async () => {
    // A session-windowed count with gap 5 000 and grace 2 000 (its store's retention: 7 000) fed A at 1 000 and
    // 10 000, each committed: at 5 500, findSessions(A, 500, 10 500) must find both, as Kafka Streams' does.
    const store = open(Stores.sessionStoreBuilder<string, string>(Stores.persistentSessionStore('gap-5s', 7_000)).withCachingEnabled().build(serdes), windowed);
    store.put(session('A', 1_000, 1_000), '1');
    store.flushCache();
    store.put(session('A', 10_000, 10_000), '1');
    store.flushCache();
    expect(flushed).toEqual(['A@1000-1000=1(null)', 'A@10000-10000=1(null)']);
    expect(entries(store.findSessions('A', 500, 10_500), windowed)).toEqual(['A@1000-1000=1', 'A@10000-10000=1']);
    expect(entries(store.fetch('A'), windowed)).toEqual(['A@1000-1000=1', 'A@10000-10000=1']);
    expect(store.fetchSession('A', 1_000, 1_000)).toBe('1');
    // Written entries stay in the cache clean: flushing again writes and forwards nothing.
    store.flushCache();
    expect(flushed).toHaveLength(2);
    await store.close();
  });

  it('merges cached sessions into fetches and session searches', async () => {
    const store = open(build(), windowed);
    store.put(session('a', 0, 5), 'stored');
    store.put(session('a', 100, 100), 'stored');
    store.flushCache();
    store.put(session('a', 20, 30), 'cached');
    store.remove(session('a', 100, 100));
    expect(entries(store.fetch('a'), windowed)).toEqual(['a@0-5=stored', 'a@20-30=cached']);
    expect(entries(store.findSessions('a', 6, 40), windowed)).toEqual(['a@20-30=cached']);
    await store.close();
  });
});
