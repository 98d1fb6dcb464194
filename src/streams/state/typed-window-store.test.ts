import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TopologyException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from './recording-store-context';
import type { KeyValue, StoreIterator, TimestampedWindowStore, WindowStore, Windowed } from './store';
import type { WindowBytesStoreSupplier } from './store-suppliers';
import { Stores } from './stores';

const defaults = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
const SIZE = 10;
const RETENTION = 100;

function windows<V>(iterator: StoreIterator<KeyValue<Windowed<string>, V>>): string[] {
  return [...iterator].map((entry) => `${entry.key.key}@${entry.key.window.start}-${entry.key.window.end}=${String(entry.value)}`);
}

function starts<V>(iterator: StoreIterator<KeyValue<number, V>>): string[] {
  return [...iterator].map((entry) => `${entry.key}=${String(entry.value)}`);
}

describe.each([
  ['persistent', (retainDuplicates: boolean): WindowBytesStoreSupplier => Stores.persistentWindowStore('win', RETENTION, SIZE, retainDuplicates)],
  ['in-memory', (retainDuplicates: boolean): WindowBytesStoreSupplier => Stores.inMemoryWindowStore('win', RETENTION, SIZE, retainDuplicates)],
])('%s window store', (kind, supplier) => {
  let dir: string;
  let context: RecordingStoreContext;
  let store: WindowStore<string, string>;

  function openStore(retainDuplicates = false): WindowStore<string, string> {
    const built = Stores.windowStoreBuilder<string, string>(supplier(retainDuplicates)).build(defaults);
    built.init(context);
    return built;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-window-'));
    context = new RecordingStoreContext(dir);
    store = openStore();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fetches one window, a key over time, key ranges and everything, both ways', () => {
    store.put('a', 'a0', 0);
    store.put('a', 'a10', 10);
    store.put('b', 'b10', 10);
    store.put('a', 'a20', 20);
    store.put('c', 'c20', 20);
    expect(store.fetch('a', 10)).toBe('a10');
    expect(store.fetch('a', 11)).toBeUndefined();
    expect(starts(store.fetchRange('a', 5, 20))).toEqual(['10=a10', '20=a20']);
    expect(starts(store.backwardFetchRange('a', 0, 20))).toEqual(['20=a20', '10=a10', '0=a0']);
    expect(windows(store.fetchKeyRange('a', 'b', 10, 20))).toEqual(['a@10-20=a10', 'a@20-30=a20', 'b@10-20=b10']);
    expect(windows(store.backwardFetchKeyRange('a', 'b', 10, 20))).toEqual(['b@10-20=b10', 'a@20-30=a20', 'a@10-20=a10']);
    expect(windows(store.fetchKeyRange(undefined, 'a', 0, 0))).toEqual(['a@0-10=a0']);
    expect(windows(store.fetchKeyRange('b', undefined, 0, 100))).toEqual(['b@10-20=b10', 'c@20-30=c20']);
    expect(windows(store.fetchKeyRange('c', 'a', 0, 100))).toEqual([]);
    expect(windows(store.fetchAll(10, 10))).toEqual(['a@10-20=a10', 'b@10-20=b10']);
    expect(windows(store.backwardFetchAll(20, 20))).toEqual(['c@20-30=c20', 'a@20-30=a20']);
    expect(windows(store.all())).toEqual(['a@0-10=a0', 'a@10-20=a10', 'a@20-30=a20', 'b@10-20=b10', 'c@20-30=c20']);
    expect(windows(store.backwardAll())).toEqual(['c@20-30=c20', 'b@10-20=b10', 'a@20-30=a20', 'a@10-20=a10', 'a@0-10=a0']);
    store.put('a', null, 10);
    expect(store.fetch('a', 10)).toBeUndefined();
  });

  it('keeps other keys out of a key scan even when their bytes fall within its byte range', () => {
    // 'a' + suffix and 'a\0' + suffix, 'a\0\0...' share leading bytes: a raw byte range of 'a' covers them.
    store.put('a', 'short', 5);
    store.put('a\u0000', 'longer', 5);
    store.put('a\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0005', 'tricky', 0);
    expect(starts(store.fetchRange('a', 0, 10))).toEqual(['5=short']);
    expect(store.fetch('a', 5)).toBe('short');
    expect(windows(store.fetchKeyRange('a', 'a', 0, 10))).toEqual(['a@5-15=short']);
    // Within a segment the order is that of the store keys, as in Kafka Streams: 'a\0' + 00.. sorts before 'a' + 00..05.
    expect(windows(store.fetchKeyRange('a', 'a\u0000', 5, 5))).toEqual(['a\u0000@5-15=longer', 'a@5-15=short']);
  });

  it('drops windows at or before observed stream time minus retention, and never returns them', async () => {
    // Segment interval is 60000 (the minimum): expiry here is by filtering within one segment.
    store.put('k', 'old', 10);
    store.put('k', 'mid', 50);
    store.put('k', 'new', 100);
    expect(starts(store.fetchRange('k', 0, 200))).toEqual(['10=old', '50=mid', '100=new']);
    store.put('other', 'x', 150);
    // observed 150, retention 100: windows starting at or before 50 have expired (Kafka: start <= observed - retention).
    expect(starts(store.fetchRange('k', 0, 200))).toEqual(['100=new']);
    expect(store.fetch('k', 50)).toBeUndefined();
    expect(windows(store.all())).toEqual(['k@100-110=new', 'other@150-160=x']);
    const logged = context.changelog.length;
    store.put('k', 'late', 40);
    expect(store.fetch('k', 40)).toBeUndefined();
    expect(context.changelog).toHaveLength(logged);
    store.put('k', 'boundary', 51);
    expect(store.fetch('k', 51)).toBe('boundary');

    await store.close();
    store = openStore();
    expect(windows(store.all())).toEqual(
      kind === 'persistent' ? ['k@51-61=boundary', 'k@100-110=new', 'other@150-160=x'] : [],
    );
    if (kind === 'persistent') {
      store.put('k', 'after-reopen', 45);
      expect(store.fetch('k', 45)).toBeUndefined();
    }
  });

  it('drops whole segments once expired, after open iterators close', async () => {
    const long = Stores.windowStoreBuilder<string, string>(
      kind === 'persistent' ? Stores.persistentWindowStore('segmented', 200000, 1000, false) : Stores.inMemoryWindowStore('segmented', 200000, 1000, false),
    ).build(defaults);
    long.init(context);
    // Segment interval 100000: segments 0, 1, 2, 3.
    long.put('k', 's0', 1);
    long.put('k', 's1', 100000);
    long.put('k', 's2', 200000);
    expect(long.stats?.()?.entries).toBe(3);
    const reading = long.all();
    expect(reading.next().value?.value).toBe('s0');
    long.put('k', 's3', 300000);
    // 300000 - 200000: everything at or before 100000 has expired; segment 0 is retired, segment 1 filtered. The
    // iterator opened before keeps reading what it was given (segment 0 is only dropped once it is closed).
    expect(starts(long.fetchRange('k', 0, 400000))).toEqual(['200000=s2', '300000=s3']);
    expect([...reading].map((entry) => entry.value)).toEqual(['s1', 's2']);
    expect(long.stats?.()?.entries).toBe(3);
    await long.close();
    if (kind === 'persistent') {
      const reopened = Stores.windowStoreBuilder<string, string>(Stores.persistentWindowStore('segmented', 200000, 1000, false)).build(defaults);
      reopened.init(context);
      expect(starts(reopened.fetchRange('k', 0, 400000))).toEqual(['200000=s2', '300000=s3']);
      expect(reopened.stats?.()?.entries).toBe(3);
      await reopened.close();
    }
  });

  it('logs store keys [key][8-byte start][4-byte seqnum] and restores them', async () => {
    context.currentRecordTimestamp = 77;
    store.put('k', 'v', 1);
    expect(context.changelog).toEqual([
      { key: Buffer.from('6b' + '0000000000000001' + '00000000', 'hex'), value: Buffer.from('v'), timestamp: 77 },
    ]);
    store.clear();
    expect(windows(store.all())).toEqual([]);
    await store.flush();
    store.restore([
      { key: Buffer.from('6b' + '0000000000000005' + '00000000', 'hex'), value: Buffer.from('r5'), timestamp: 5 },
      { key: Buffer.from('6b' + '0000000000000006' + '00000000', 'hex'), value: Buffer.from('r6'), timestamp: 6 },
      { key: Buffer.from('6b' + '0000000000000005' + '00000000', 'hex'), value: null, timestamp: 7 },
    ]);
    await store.flush();
    expect(windows(store.all())).toEqual(['k@6-16=r6']);
    expect(context.changelog).toHaveLength(1);
  });

  it('retains duplicates with increasing sequence numbers when asked (stream-stream joins)', async () => {
    await store.close();
    store = openStore(true);
    store.put('k', 'first', 10);
    store.put('k', 'second', 10);
    store.put('k', null, 10);
    expect(starts(store.fetchRange('k', 10, 10))).toEqual(['10=first', '10=second']);
    expect(store.fetch('k', 10)).toBe('first');
    expect(context.changelog.map((record) => record.key.subarray(-4).readUInt32BE(0))).toEqual([1, 2]);
  });
});

describe('timestamped window store', () => {
  it('logs raw values with their timestamps and restores the prefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-twindow-'));
    const context = new RecordingStoreContext(dir);
    const store: TimestampedWindowStore<string, number> = Stores.timestampedWindowStoreBuilder(
      Stores.persistentTimestampedWindowStore('tw', 1000, 100, false),
      Serdes.String(),
      Serdes.Integer(),
    ).build(defaults);
    store.init(context);
    store.put('k', { value: -1, timestamp: 42 }, 0);
    expect(context.changelog).toEqual([
      { key: Buffer.from('6b' + '0000000000000000' + '00000000', 'hex'), value: Buffer.from('ffffffff', 'hex'), timestamp: 42 },
    ]);
    await store.flush();
    store.restore([{ key: Buffer.from('6b' + '0000000000000064' + '00000000', 'hex'), value: Buffer.from('00000002', 'hex'), timestamp: 150 }]);
    await store.flush();
    expect(store.fetch('k', 100)).toEqual({ value: 2, timestamp: 150 });
    expect(store.type).toBe('timestamped_window');
    expect(store.valueSerde).toBe(Serdes.Integer());
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects a window size above the retention period', () => {
    expect(() => Stores.persistentWindowStore('w', 10, 20, false)).toThrow(TopologyException);
    expect(() => Stores.inMemoryWindowStore('w', -1, 0, false)).toThrow(TopologyException);
  });
});
