import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from './recording-store-context';
import type { KeyValue, SessionStore, StoreIterator, Windowed } from './store';
import type { SessionBytesStoreSupplier } from './store-suppliers';
import { Stores } from './stores';

const defaults = { keySerde: Serdes.String(), valueSerde: Serdes.Long() };

function sessions(iterator: StoreIterator<KeyValue<Windowed<string>, number>>): string[] {
  return [...iterator].map((entry) => `${entry.key.key}[${entry.key.window.start},${entry.key.window.end}]=${entry.value}`);
}

const session = (key: string, start: number, end: number): Windowed<string> => ({ key, window: { start, end } });

describe.each([
  ['persistent', (): SessionBytesStoreSupplier => Stores.persistentSessionStore('sessions', 1000)],
  ['in-memory', (): SessionBytesStoreSupplier => Stores.inMemorySessionStore('sessions', 1000)],
])('%s session store', (kind, supplier) => {
  let dir: string;
  let context: RecordingStoreContext;
  let store: SessionStore<string, number>;

  function openStore(): SessionStore<string, number> {
    const built = Stores.sessionStoreBuilder<string, number>(supplier()).build(defaults);
    built.init(context);
    return built;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-session-'));
    context = new RecordingStoreContext(dir);
    store = openStore();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the sessions a new record merges with: end >= earliest end and start <= latest start', () => {
    store.put(session('u', 0, 10), 1);
    store.put(session('u', 20, 30), 2);
    store.put(session('u', 50, 60), 3);
    store.put(session('v', 25, 25), 9);
    // A record at 27 with an inactivity gap of 5 merges with sessions ending >= 22 and starting <= 32.
    expect(sessions(store.findSessions('u', 22, 32))).toEqual(['u[20,30]=2']);
    expect(sessions(store.findSessions('u', 5, 55))).toEqual(['u[0,10]=1', 'u[20,30]=2', 'u[50,60]=3']);
    expect(sessions(store.findSessions('u', 61, 100))).toEqual([]);
    expect(sessions(store.findSessions('u', 0, -1))).toEqual([]);
    expect(sessions(store.fetch('u'))).toEqual(['u[0,10]=1', 'u[20,30]=2', 'u[50,60]=3']);
    expect(sessions(store.fetchKeyRange('u', 'v'))).toEqual(['u[0,10]=1', 'u[20,30]=2', 'u[50,60]=3', 'v[25,25]=9']);
    expect(sessions(store.fetchKeyRange(undefined, 'u'))).toEqual(['u[0,10]=1', 'u[20,30]=2', 'u[50,60]=3']);
    expect(sessions(store.fetchKeyRange('v', 'u'))).toEqual([]);
    expect(store.fetchSession('u', 20, 30)).toBe(2);
    expect(store.fetchSession('u', 20, 31)).toBeUndefined();

    // Merging: remove the old sessions, put the merged one.
    store.remove(session('u', 20, 30));
    store.put(session('u', 20, 32), 4);
    expect(sessions(store.fetch('u'))).toEqual(['u[0,10]=1', 'u[20,32]=4', 'u[50,60]=3']);
  });

  it('keeps other keys out of single-key scans', () => {
    store.put(session('u', 0, 10), 1);
    store.put(session('u\u0000', 0, 10), 2);
    expect(sessions(store.fetch('u'))).toEqual(['u[0,10]=1']);
    expect(sessions(store.findSessions('u', 0, 100))).toEqual(['u[0,10]=1']);
  });

  it('expires sessions ending at or before observed stream time minus retention', async () => {
    store.put(session('u', 0, 100), 1);
    store.put(session('u', 500, 1500), 2);
    expect(sessions(store.fetch('u'))).toEqual(['u[500,1500]=2']);
    store.put(session('u', 400, 500), 3);
    expect(store.fetchSession('u', 400, 500)).toBeUndefined();
    await store.close();
    store = openStore();
    expect(sessions(store.fetch('u'))).toEqual(kind === 'persistent' ? ['u[500,1500]=2'] : []);
  });

  it('logs [key][8-byte end][8-byte start] with the record timestamp and restores tombstones', async () => {
    context.currentRecordTimestamp = 31;
    store.put(session('u', 1, 2), 5);
    store.remove(session('u', 1, 2));
    const key = Buffer.from('75' + '0000000000000002' + '0000000000000001', 'hex');
    expect(context.changelog).toEqual([
      { key, value: Buffer.from('0000000000000005', 'hex'), timestamp: 31 },
      { key, value: null, timestamp: 31 },
    ]);
    await store.flush();
    store.restore([
      { key, value: Buffer.from('0000000000000006', 'hex'), timestamp: 1 },
      { key: Buffer.from('76' + '0000000000000003' + '0000000000000003', 'hex'), value: Buffer.from('0000000000000007', 'hex'), timestamp: 1 },
      { key, value: null, timestamp: 2 },
    ]);
    await store.flush();
    expect(sessions(store.fetchKeyRange(undefined, undefined))).toEqual(['v[3,3]=7']);
    expect(context.changelog).toHaveLength(2);
  });
});
