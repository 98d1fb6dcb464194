import { longSerde } from '../streams/serdes/long';
import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type {
  KeyValueStore,
  SessionStore,
  StateStore,
  TimestampedKeyValueStore,
  TimestampedWindowStore,
  VersionedKeyValueStore,
  WindowStore,
} from '../streams/state/store';
import { executeLocal } from './execute-local';
import { parseQueryRequest } from './parse';
import type { PeerAnswer } from './peers';
import { builders, FakeView, openStores } from './testing/fake-view';

const PARTITIONS = [0, 1];
const SIZE = 1000;

function records(answer: PeerAnswer): unknown[] {
  if (!answer.ok) throw new Error(`expected records, got ${answer.messages.join('; ')}`);
  return answer.records;
}

const byKey = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

// Each case again with partitions held by stream threads in workers: read there, after this thread's.
describe.each([
  { where: 'both on this thread', inWorkers: [] as number[] },
  { where: "partition 1 in a stream thread's worker", inWorkers: [1] },
  { where: "both in stream threads' workers", inWorkers: [0, 1] },
])('executeLocal over real in-memory stores of two partitions, $where', ({ inWorkers }) => {
  const kv = openStores(PARTITIONS, builders.keyValue('kv', stringSerde, longSerde));
  const tkv = openStores(PARTITIONS, builders.timestampedKeyValue('tkv', stringSerde, longSerde));
  const win = openStores(PARTITIONS, builders.window('win', SIZE, stringSerde, longSerde));
  const twin = openStores(PARTITIONS, builders.timestampedWindow('twin', SIZE, stringSerde, longSerde));
  const ses = openStores(PARTITIONS, builders.session('ses', stringSerde, longSerde));
  const ver = openStores(PARTITIONS, builders.versioned('ver', stringSerde, longSerde));
  const view = new FakeView(
    'app',
    new Map<string, Map<number, StateStore>>([
      ['kv', kv],
      ['tkv', tkv],
      ['win', win],
      ['twin', twin],
      ['ses', ses],
      ['ver', ver],
    ]),
    [{ endpoint: 'localhost:8080', partitions: PARTITIONS, isLocal: true }],
    PARTITIONS.length,
    stringSerde as Serde<unknown>,
  );
  for (const partition of inWorkers) view.inWorkers.set(partition, `StreamThread-${partition + 2}`);
  const at = <S>(stores: Map<number, S>, key: string): S => stores.get(view.partitionOf(key))!;
  const keys = ['a', 'ab', 'abc', 'b', 'c', 'd'];
  keys.forEach((key, i) => {
    (at(kv, key) as KeyValueStore<string, number>).put(key, i + 1);
    (at(tkv, key) as TimestampedKeyValueStore<string, number>).put(key, { value: i + 1, timestamp: 100 + i });
    (at(win, key) as WindowStore<string, number>).put(key, i + 1, 0);
    (at(win, key) as WindowStore<string, number>).put(key, 10 * (i + 1), SIZE);
    (at(twin, key) as TimestampedWindowStore<string, number>).put(key, { value: i + 1, timestamp: 7 }, 0);
    (at(ses, key) as SessionStore<string, number>).put({ key, window: { start: 5, end: 50 } }, i + 1);
    (at(ver, key) as VersionedKeyValueStore<string, number>).put(key, i + 1, 100);
    (at(ver, key) as VersionedKeyValueStore<string, number>).put(key, 10 * (i + 1), 200);
  });
  // Both partitions must hold keys, or the test proves nothing about reading several.
  expect(new Set(keys.map((key) => view.partitionOf(key))).size).toBe(2);

  const run = (store: string, body: unknown, timeoutMs = 5000) =>
    executeLocal(view.asView(), store, parseQueryRequest(body), Date.now() + timeoutMs);

  afterEach(() => {
    view.state = 'RUNNING';
    view.restoring.clear();
  });

  describe('versioned key-value', () => {
    it('get: the latest version, or with as_of (asOf) the one valid then, with its validity', async () => {
      const get = async (params: object) => records(await run('ver', { type: 'versioned_key_value', query: { get: { key: 'abc', ...params } } }));
      expect(await get({})).toEqual([{ key: 'abc', value: 30, timestamp: 200 }]);
      expect(await get({ as_of: 150 })).toEqual([{ key: 'abc', value: 3, timestamp: 100, valid_to: 200 }]);
      expect(await get({ asOf: '250' })).toEqual([{ key: 'abc', value: 30, timestamp: 200 }]);
      expect(await get({ as_of: 99 })).toEqual([]);
    });

    it('answers a key_value get with the latest value, and refuses the other key_value clauses', async () => {
      expect(records(await run('ver', { type: 'key_value', query: { get: { key: 'abc' } } }))).toEqual([{ key: 'abc', value: 30 }]);
      expect(await run('ver', { type: 'key_value', query: { all: {} } })).toMatchObject({
        ok: false,
        kind: 'INVALID_QUERY',
        messages: ["Invalid query: store 'ver' is a versioned_key_value store; clause 'all' does not apply to it"],
      });
      expect(await run('ver', { type: 'window', query: { fetch: { key: 'abc', time: 0 } } })).toMatchObject({
        ok: false,
        kind: 'INVALID_QUERY',
        messages: ["Invalid query: store 'ver' is a versioned_key_value store; a window query does not apply to it"],
      });
    });

    it('refuses as_of on other stores, a time that is not one, and clauses versioned stores do not have', () => {
      expect(() => parseQueryRequest({ type: 'key_value', query: { get: { key: 'abc', as_of: 5 } } })).toThrow(/no parameter 'as_of'/);
      expect(() => parseQueryRequest({ type: 'versioned_key_value', query: { get: { key: 'abc', as_of: 'yesterday' } } })).toThrow(/'as_of' must be a time/);
      expect(() => parseQueryRequest({ type: 'versioned_key_value', query: { all: {} } })).toThrow(/does not apply to versioned_key_value stores/);
    });
  });

  describe('key-value', () => {
    it('get: the value of the key, from its partition; nothing for a missing key', async () => {
      expect(records(await run('kv', { type: 'key_value', query: { get: { key: 'abc' } } }))).toEqual([{ key: 'abc', value: 3 }]);
      expect(records(await run('kv', { type: 'key_value', query: { get: { key: 'zz' } } }))).toEqual([]);
    });

    it('range, reverse_range, all, reverse_all: every matching record of every partition once', async () => {
      const range = records(await run('kv', { type: 'key_value', query: { range: { key_from: 'ab', key_to: 'b' } } }));
      expect(range.sort(byKey)).toEqual([
        { key: 'ab', value: 2 },
        { key: 'abc', value: 3 },
        { key: 'b', value: 4 },
      ]);
      const reversed = records(await run('kv', { type: 'key_value', query: { reverse_range: { key_from: 'ab', key_to: 'b' } } }));
      expect(reversed.sort(byKey)).toEqual(range);
      expect(records(await run('kv', { type: 'key_value', query: { all: {} } }))).toHaveLength(6);
      expect(records(await run('kv', { type: 'key_value', query: { reverse_all: {} } }))).toHaveLength(6);
    });

    it('prefix_scan: the keys that start with the prefix', async () => {
      const found = records(await run('kv', { type: 'key_value', query: { prefix_scan: { prefix: 'ab' } } }));
      expect(found.sort(byKey)).toEqual([
        { key: 'ab', value: 2 },
        { key: 'abc', value: 3 },
      ]);
    });

    it('count: one record for all the partitions of the server', async () => {
      expect(records(await run('kv', { type: 'key_value', query: { count: {} } }))).toEqual([{ key: 'count', value: 6 }]);
      expect(records(await run('kv', { type: 'key_value', query: { count: {} }, set_options: { limit: 1 } }))).toEqual([{ key: 'count', value: 6 }]);
    });

    it('limit caps the records of the part, across partitions', async () => {
      expect(records(await run('kv', { type: 'key_value', query: { all: {} }, set_options: { limit: 4 } }))).toHaveLength(4);
      expect(records(await run('kv', { type: 'key_value', query: { all: {} }, set_options: { limit: '0' } }))).toEqual([]);
    });

    it('timestamped store: the timestamp for a timestamped query, the plain value for a key_value query', async () => {
      expect(records(await run('tkv', { type: 'timestamped_key_value', query: { get: { key: 'b' } } }))).toEqual([
        { key: 'b', value: 4, timestamp: 103 },
      ]);
      expect(records(await run('tkv', { type: 'key_value', query: { get: { key: 'b' } } }))).toEqual([{ key: 'b', value: 4 }]);
    });
  });

  describe('window', () => {
    it('fetch: the window of the key that starts at time', async () => {
      expect(records(await run('win', { type: 'window', query: { fetch: { key: 'b', time: SIZE } } }))).toEqual([
        { key: { key: 'b', window_start: SIZE, window_end: 2 * SIZE }, value: 40 },
      ]);
      expect(records(await run('win', { type: 'window', query: { fetch: { key: 'b', time: 1 } } }))).toEqual([]);
    });

    it('fetch_time_range: the windows of the key starting in the time range', async () => {
      expect(records(await run('win', { type: 'window', query: { fetch_time_range: { key: 'c', time_from: 0, time_to: SIZE } } }))).toEqual([
        { key: { key: 'c', window_start: 0, window_end: SIZE }, value: 5 },
        { key: { key: 'c', window_start: SIZE, window_end: 2 * SIZE }, value: 50 },
      ]);
    });

    it('fetch_key_range, fetch_all, all: windows of several keys from every partition', async () => {
      const ranged = records(await run('win', { type: 'window', query: { fetch_key_range: { key_from: 'b', key_to: 'c', time_from: SIZE, time_to: SIZE } } }));
      expect(ranged.sort(byKey)).toEqual([
        { key: { key: 'b', window_start: SIZE, window_end: 2 * SIZE }, value: 40 },
        { key: { key: 'c', window_start: SIZE, window_end: 2 * SIZE }, value: 50 },
      ]);
      expect(records(await run('win', { type: 'window', query: { fetch_all: { time_from: 0, time_to: 0 } } }))).toHaveLength(6);
      expect(records(await run('win', { type: 'window', query: { all: {} } }))).toHaveLength(12);
    });

    it('timestamped window store: with the timestamp for a timestamped query only', async () => {
      expect(records(await run('twin', { type: 'timestamped_window', query: { fetch: { key: 'a', time: 0 } } }))).toEqual([
        { key: { key: 'a', window_start: 0, window_end: SIZE }, value: 1, timestamp: 7 },
      ]);
      expect(records(await run('twin', { type: 'window', query: { fetch: { key: 'a', time: 0 } } }))).toEqual([
        { key: { key: 'a', window_start: 0, window_end: SIZE }, value: 1 },
      ]);
    });
  });

  describe('session', () => {
    it('fetch and fetch_key_range: sessions with their windows', async () => {
      expect(records(await run('ses', { type: 'session', query: { fetch: { key: 'd' } } }))).toEqual([
        { key: { key: 'd', window_start: 5, window_end: 50 }, value: 6 },
      ]);
      expect(records(await run('ses', { type: 'session', query: { fetch_key_range: { key_from: 'a', key_to: 'abc' } } })).sort(byKey)).toEqual([
        { key: { key: 'a', window_start: 5, window_end: 50 }, value: 1 },
        { key: { key: 'ab', window_start: 5, window_end: 50 }, value: 2 },
        { key: { key: 'abc', window_start: 5, window_end: 50 }, value: 3 },
      ]);
    });
  });

  describe('partitions not queryable yet', () => {
    it('without retries: a failure that says which partition is restoring', async () => {
      view.restoring.add(1);
      const answer = await run('kv', { type: 'key_value', query: { all: {} } });
      expect(answer).toEqual({ ok: false, messages: ["partition 1 of store 'kv' is restoring"], kind: 'NOT_AVAILABLE', timedOut: false });
    });

    it('a keyed query only waits for the partition of its key', async () => {
      const other = view.partitionOf('a') === 0 ? 1 : 0;
      view.restoring.add(other);
      expect(records(await run('kv', { type: 'key_value', query: { get: { key: 'a' } } }))).toEqual([{ key: 'a', value: 1 }]);
      view.restoring.clear();
      view.restoring.add(view.partitionOf('a'));
      const answer = await run('kv', { type: 'key_value', query: { get: { key: 'a' } } });
      expect(answer.ok).toBe(false);
      expect(!answer.ok && answer.messages[0]).toContain(`partition ${view.partitionOf('a')} of store 'kv' is not queryable on this server`);
    });

    it('retries with backoff until the partition is queryable', async () => {
      view.restoring.add(0);
      setTimeout(() => view.restoring.clear(), 120);
      const calls = view.queryableCalls;
      const started = Date.now();
      const answer = await run('kv', { type: 'key_value', query: { all: {} }, set_options: { retries: 20, retry_backoff_ms: 50 } });
      expect(records(answer)).toHaveLength(6);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      expect(view.queryableCalls - calls).toBeGreaterThanOrEqual(3);
    });

    it('gives up when the retries run out', async () => {
      view.restoring.add(0);
      const answer = await run('kv', { type: 'key_value', query: { all: {} }, set_options: { retries: 2, retry_backoff_ms: 10 } });
      expect(answer).toEqual({ ok: false, messages: ["partition 0 of store 'kv' is restoring (after 2 retries)"], kind: 'NOT_AVAILABLE', timedOut: false });
    });

    it('never retries past the deadline', async () => {
      view.restoring.add(0);
      const started = Date.now();
      const answer = await run('kv', { type: 'key_value', query: { all: {} }, set_options: { retries: 1000, retry_backoff_ms: 50 } }, 200);
      expect(Date.now() - started).toBeLessThan(300);
      expect(answer).toMatchObject({ ok: false, kind: 'NOT_AVAILABLE', timedOut: true });
      expect(!answer.ok && answer.messages[0]).toContain('the query timeout (query_timeout_ms) ran out');
    });

    it('does not read a non-keyed query while the instance rebalances', async () => {
      view.state = 'REBALANCING';
      const answer = await run('kv', { type: 'key_value', query: { count: {} } });
      expect(answer).toMatchObject({ ok: false, kind: 'NOT_AVAILABLE' });
      expect(!answer.ok && answer.messages[0]).toContain("store 'kv' is not queryable while the application is REBALANCING");
    });

    it('answers a store type mismatch found here as a failure, not a crash', async () => {
      const answer = await run('win', { type: 'key_value', query: { all: {} } });
      expect(answer).toMatchObject({ ok: false, kind: 'INVALID_QUERY' });
      expect(!answer.ok && answer.messages[0]).toContain("store 'win' is a window store");
    });
  });
});
