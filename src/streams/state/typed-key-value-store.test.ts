import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidStateStore } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from './recording-store-context';
import type { KeyValue, KeyValueStore, StoreIterator, TimestampedKeyValueStore } from './store';
import type { KeyValueBytesStoreSupplier } from './store-suppliers';
import { Stores } from './stores';

const defaults = { keySerde: Serdes.String(), valueSerde: Serdes.String() };

function keys<V>(iterator: StoreIterator<KeyValue<string, V>>): string[] {
  return [...iterator].map((entry) => entry.key);
}

describe.each([
  ['persistent', (name: string): KeyValueBytesStoreSupplier => Stores.persistentKeyValueStore(name)],
  ['in-memory', (name: string): KeyValueBytesStoreSupplier => Stores.inMemoryKeyValueStore(name)],
])('%s key-value store', (kind, supplier) => {
  let dir: string;
  let context: RecordingStoreContext;
  let store: KeyValueStore<string, string>;

  function openStore(ctx = context): KeyValueStore<string, string> {
    const built = Stores.keyValueStoreBuilder<string, string>(supplier('words')).build(defaults);
    built.init(ctx);
    return built;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-kv-'));
    context = new RecordingStoreContext(dir);
    store = openStore();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads its own writes and answers point queries', () => {
    store.put('a', '1');
    expect(store.get('a')).toBe('1');
    expect(store.putIfAbsent('a', '2')).toBe('1');
    expect(store.putIfAbsent('b', '2')).toBeUndefined();
    expect(store.get('b')).toBe('2');
    expect(store.delete('a')).toBe('1');
    expect(store.get('a')).toBeUndefined();
    store.putAll([
      { key: 'c', value: '3' },
      { key: 'b', value: null },
    ]);
    expect(keys(store.all())).toEqual(['c']);
    expect(store.approximateNumEntries()).toBe(1);
    expect(store.keySerde).toBe(defaults.keySerde);
    expect(store.valueSerde).toBe(defaults.valueSerde);
    expect(store.persistent).toBe(kind === 'persistent');
  });

  it('orders ranges by the bytes of the serialized keys, not by JS string order', async () => {
    // UTF-8 bytes: 'Z' 5a < 'a' 61 < 'z' 7a < 'é' c3a9 < '€' e282ac < '\uffff' efbfbf < '😀' f09f9880, whereas JS
    // string order puts '😀' (surrogates d83d de00) before '\uffff'.
    for (const key of ['a', 'é', 'Z', '€', '😀', 'z', 'ab', '\uffff', '']) store.put(key, key);
    await store.flush();
    store.put('aa', 'aa');
    const byteOrder = ['', 'Z', 'a', 'aa', 'ab', 'z', 'é', '€', '\uffff', '😀'];
    expect(keys(store.all())).toEqual(byteOrder);
    expect(keys(store.reverseAll())).toEqual([...byteOrder].reverse());
    expect(keys(store.range('a', 'é'))).toEqual(['a', 'aa', 'ab', 'z', 'é']);
    expect(keys(store.reverseRange('a', 'é'))).toEqual(['é', 'z', 'ab', 'aa', 'a']);
    expect(keys(store.range(undefined, 'a'))).toEqual(['', 'Z', 'a']);
    expect(keys(store.range('€', undefined))).toEqual(['€', '\uffff', '😀']);
    expect(keys(store.range('z', 'a'))).toEqual([]);
    expect(keys(store.prefixScan('a', Serdes.String()))).toEqual(['a', 'aa', 'ab']);
    expect(keys(store.prefixScan('\u00e9', Serdes.String()))).toEqual(['é']);
    expect(keys(store.prefixScan(Buffer.from([0xef]), Serdes.Bytes()))).toEqual(['\uffff']);
    expect(keys(store.prefixScan('', Serdes.String()))).toEqual(byteOrder);
    expect(store.approximateNumEntries()).toBe(byteOrder.length);
  });

  it('sends every write to the changelog and restores from it, tombstones included', async () => {
    context.currentRecordTimestamp = 1234;
    store.put('a', '1');
    store.put('b', '2');
    store.delete('a');
    expect(context.changelog).toEqual([
      { key: Buffer.from('a'), value: Buffer.from('1'), timestamp: 1234 },
      { key: Buffer.from('b'), value: Buffer.from('2'), timestamp: 1234 },
      { key: Buffer.from('a'), value: null, timestamp: 1234 },
    ]);

    store.clear();
    expect(keys(store.all())).toEqual([]);
    store.put('stale', 'x');
    const logged = context.changelog.length;
    // Restoring needs the earlier writes flushed (the runtime flushes a new task's stores before restoring).
    await store.flush();
    store.restore([
      { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: 1 },
      { key: Buffer.from('k2'), value: Buffer.from('v2'), timestamp: 2 },
      { key: Buffer.from('stale'), value: null, timestamp: 3 },
      { key: Buffer.from('k1'), value: null, timestamp: 4 },
    ]);
    // Restored writes are read once the storage is flushed, as the runtime does before a task processes.
    await store.flush();
    expect(context.changelog).toHaveLength(logged);
    expect([...store.all()]).toEqual([{ key: 'k2', value: 'v2' }]);
  });

  it('does not log when logging is disabled for the task', () => {
    const quiet = new RecordingStoreContext(join(dir, 'quiet'), { loggingEnabled: false });
    const other = openStore(quiet);
    other.put('a', '1');
    expect(quiet.changelog).toEqual([]);
    return other.close();
  });

  it('closes iterators when the caller breaks early, and when the store closes', async () => {
    for (const key of ['a', 'b', 'c']) store.put(key, key);
    await store.flush();
    for (const entry of store.all()) {
      expect(entry.key).toBe('a');
      break;
    }
    expect(store.stats?.()?.openIterators).toBe(0);
    const explicit = store.range('a', 'c');
    explicit.next();
    expect(store.stats?.()?.openIterators).toBe(1);
    explicit.close();
    expect(store.stats?.()?.openIterators).toBe(0);
    const exhausted = store.all();
    expect([...exhausted]).toHaveLength(3);
    expect(store.stats?.()?.openIterators).toBe(0);

    const dangling = store.all();
    dangling.next();
    await store.close();
    expect(dangling.next()).toEqual({ done: true, value: undefined });
    expect(store.isOpen()).toBe(false);
    expect(() => store.get('a')).toThrow(InvalidStateStore);
    store = openStore();
  });

  it('reports statistics', async () => {
    store.put('a', '1');
    store.put('b', '2');
    store.get('a');
    await store.flush();
    const stats = store.stats?.();
    expect(stats).toEqual(expect.objectContaining({ entries: 2, puts: 2, gets: 1, openIterators: 0 }));
    if (kind === 'persistent') expect(stats?.sizeBytes).toBeGreaterThan(0);
    else expect(stats?.sizeBytes).toBeUndefined();
  });

  it(kind === 'persistent' ? 'survives close and reopen' : 'loses its data on close, as Kafka Streams in-memory stores do', async () => {
    store.put('Z', '1');
    store.put('a', '2');
    await store.close();
    store = openStore();
    expect(keys(store.all())).toEqual(kind === 'persistent' ? ['Z', 'a'] : []);
  });
});

describe('timestamped key-value store', () => {
  let dir: string;
  let context: RecordingStoreContext;
  let store: TimestampedKeyValueStore<string, number>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-tkv-'));
    context = new RecordingStoreContext(dir);
    store = Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore('counts'), Serdes.String(), Serdes.Long()).build(
      defaults,
    );
    store.init(context);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs the raw value with the value timestamp and restores the prefix', async () => {
    context.currentRecordTimestamp = 99;
    store.put('k', { value: 5, timestamp: 1000 });
    store.delete('k');
    expect(context.changelog).toEqual([
      { key: Buffer.from('k'), value: Buffer.from('0000000000000005', 'hex'), timestamp: 1000 },
      { key: Buffer.from('k'), value: null, timestamp: 99 },
    ]);

    await store.flush();
    store.restore([{ key: Buffer.from('r'), value: Buffer.from('0000000000000007', 'hex'), timestamp: 2000 }]);
    await store.flush();
    expect(store.get('r')).toEqual({ value: 7, timestamp: 2000 });
    expect(store.valueSerde).toBe(Serdes.Long());
    expect(store.type).toBe('timestamped_key_value');
  });

  it('stores [8-byte BE timestamp][value bytes]', async () => {
    store.put('k', { value: 1, timestamp: 1700000000000 });
    await store.close();
    const raw = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('counts'), Serdes.String(), Serdes.Bytes()).build(defaults);
    raw.init(context);
    expect(raw.get('k')?.toString('hex')).toBe('0000018bcfe56800' + '0000000000000001');
    await raw.close();
    store.init(context);
  });
});
