/**
 * Three nodes in one process, each with its own stores, QueryService and peer server, talking real gRPC on
 * loopback: queries sent to any node answer for the whole cluster.
 */
import { QueryService } from '../query/query-service';
import { builders, FakeView, openStores, type FakeHost } from '../query/testing/fake-view';
import { longSerde } from '../streams/serdes/long';
import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type { SessionStore, StateStore, TimestampedKeyValueStore, VersionedKeyValueStore, WindowStore } from '../streams/state/store';
import { PeerClient } from './peer-client';
import type { PeerServer } from './peer-server';
import { startLoopbackPeer, type LoopbackNode } from './testing/loopback-peers';

const PARTITIONS = 6;
const KEYS = Array.from({ length: 60 }, (_, i) => `user-${i}`);
const valueOf = (key: string) => Number(key.slice('user-'.length)) * 10;
const WINDOW = 1000;
/** Window starts of the paged window store: every key in nine windows over two segments (the interval is 43 200 000). */
const STARTS = Array.from({ length: 9 }, (_, i) => i * 10_000_000);
/** Sessions of the paged session store, [start, end]: ends in both segments, one straddling their boundary. */
const SESSIONS = [
  { start: 0, end: 100 },
  { start: 43_000_000, end: 43_300_000 },
  { start: 50_000_000, end: 50_000_000 },
  { start: 80_000_000, end: 86_000_000 },
];

interface Node extends LoopbackNode {
  name: string;
  partitions: number[];
  view?: FakeView;
  server?: PeerServer;
}


const placement = new FakeView('placement', new Map(), [], PARTITIONS, stringSerde as Serde<unknown>);

describe('queries over a cluster of three nodes on loopback gRPC', () => {
  const nodes: Node[] = [
    { name: 'node-a:8080', partitions: [0, 3], frozen: false },
    { name: 'node-b:8080', partitions: [1, 4], frozen: false },
    { name: 'node-c:8080', partitions: [2, 5], frozen: false },
  ];
  const client = new PeerClient();

  beforeAll(async () => {
    for (const node of nodes) {
      node.server = await startLoopbackPeer(node);
    }
    for (const node of nodes) {
      const hosts: FakeHost[] = nodes.map((n) => ({
        endpoint: n.name,
        grpcEndpoint: `127.0.0.1:${n.server!.port}`,
        partitions: n.partitions,
        isLocal: n === node,
      }));
      const kv = openStores(node.partitions, builders.timestampedKeyValue('kv', stringSerde, longSerde));
      const win = openStores(node.partitions, builders.window('win', WINDOW, stringSerde, longSerde));
      const ses = openStores(node.partitions, builders.session('ses', stringSerde, longSerde));
      const ver = openStores(node.partitions, builders.versioned('ver', stringSerde, longSerde));
      const wins = openStores(node.partitions, builders.window('wins', WINDOW, stringSerde, longSerde));
      const sess = openStores(node.partitions, builders.session('sess', stringSerde, longSerde));
      for (const key of KEYS) {
        const partition = placement.partitionOf(key);
        if (!node.partitions.includes(partition)) continue;
        (kv.get(partition) as TimestampedKeyValueStore<string, number>).put(key, { value: valueOf(key), timestamp: 1 });
        (win.get(partition) as WindowStore<string, number>).put(key, valueOf(key), 0);
        (ses.get(partition) as SessionStore<string, number>).put({ key, window: { start: 10, end: 20 } }, valueOf(key));
        (ver.get(partition) as VersionedKeyValueStore<string, number>).put(key, 1, 100);
        (ver.get(partition) as VersionedKeyValueStore<string, number>).put(key, valueOf(key), 200);
        for (const start of STARTS) (wins.get(partition) as WindowStore<string, number>).put(key, valueOf(key) + start, start);
        for (const window of SESSIONS) (sess.get(partition) as SessionStore<string, number>).put({ key, window }, valueOf(key) + window.end);
      }
      const stores = new Map<string, Map<number, StateStore>>([
        ['kv', kv],
        ['win', win],
        ['ses', ses],
        ['ver', ver],
        ['wins', wins],
        ['sess', sess],
      ]);
      const view = new FakeView('app', stores, hosts, PARTITIONS, stringSerde as Serde<unknown>);
      // Node a reads its partitions on its own thread, node b one of them in a stream thread's worker, node c both.
      for (const partition of node.partitions.slice(nodes.indexOf(node) === 1 ? 1 : 0)) if (nodes.indexOf(node) > 0) view.inWorkers.set(partition, `StreamThread-${partition}`);
      node.view = view;
      node.service = new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: node.name, peers: client });
    }
  });

  afterAll(async () => {
    client.close();
    await Promise.all(nodes.map((node) => node.server?.close(100)));
  });

  const owner = (key: string) => nodes.find((node) => node.partitions.includes(placement.partitionOf(key)))!.name;

  it('a get for every key, sent to each node, answers the same value from the owner of the key', async () => {
    for (const node of nodes) {
      for (const key of KEYS) {
        const response = await node.service!.execute('app', 'kv', { type: 'key_value', query: { get: { key } } });
        expect(response.status).toBe('SUCCESS');
        expect(response.server).toBe(node.name);
        expect(response.result.success).toEqual([{ server: owner(key), remote: owner(key) !== node.name, total: 1, records: [{ key, value: valueOf(key) }] }]);
      }
    }
  });

  it('a versioned get as of a time goes to the owner of the key over gRPC, as a get does', async () => {
    for (const node of nodes) {
      for (const key of KEYS.slice(0, 12)) {
        const remote = owner(key) !== node.name;
        const past = await node.service!.execute('app', 'ver', { type: 'versioned_key_value', query: { get: { key, as_of: 150 } } });
        expect(past.result.success).toEqual([{ server: owner(key), remote, total: 1, records: [{ key, value: 1, timestamp: 100, valid_to: 200 }] }]);
        const latest = await node.service!.execute('app', 'ver', { type: 'versioned_key_value', query: { get: { key } } });
        expect(latest.result.success).toEqual([{ server: owner(key), remote, total: 1, records: [{ key, value: valueOf(key), timestamp: 200 }] }]);
      }
    }
  });

  it('all, count and range answer every record exactly once, in parts from the three nodes', async () => {
    for (const node of nodes) {
      const all = await node.service!.execute('app', 'kv', { type: 'timestamped_key_value', query: { all: {} } });
      expect(all.status).toBe('SUCCESS');
      expect(all.result.success.map((part) => part.server).sort()).toEqual(nodes.map((n) => n.name));
      expect(all.result.total).toBe(KEYS.length);
      const records = all.result.success.flatMap((part) => part.records) as { key: string; value: number; timestamp: number }[];
      expect(records.map((r) => r.key).sort()).toEqual([...KEYS].sort());
      expect(records.every((r) => r.value === valueOf(r.key) && r.timestamp === 1)).toBe(true);

      const count = await node.service!.execute('app', 'kv', { type: 'key_value', query: { count: {} } });
      expect(count.result.success).toHaveLength(3);
      const counts = count.result.success.map((part) => part.records as { key: string; value: number }[]);
      expect(counts.every((records) => records.length === 1 && records[0]!.key === 'count')).toBe(true);
      expect(counts.reduce((sum, records) => sum + records[0]!.value, 0)).toBe(KEYS.length);

      const range = await node.service!.execute('app', 'kv', { type: 'key_value', query: { range: { key_from: 'user-1', key_to: 'user-19' } } }, { recordsOnly: true });
      const expected = KEYS.filter((key) => key >= 'user-1' && key <= 'user-19').sort();
      expect((range as { key: string }[]).map((r) => r.key).sort()).toEqual(expected);
    }
  });

  it.each([
    ['all', {}, [...KEYS].sort()],
    ['reverse_all', {}, [...KEYS].sort().reverse()],
    ['range', { key_from: 'user-1', key_to: 'user-3' }, KEYS.filter((key) => key >= 'user-1' && key <= 'user-3').sort()],
    ['reverse_range', { key_from: 'user-1', key_to: 'user-3' }, KEYS.filter((key) => key >= 'user-1' && key <= 'user-3').sort().reverse()],
  ])('%s pages with limit and next: every key once over the pages, each partition in order, asked of any node', async (clause, params, expected) => {
    const seen: string[] = [];
    let next: string | undefined;
    for (let page = 0; page < 100; page++) {
      const node = nodes[page % nodes.length]!;
      const response = await node.service!.execute('app', 'kv', { type: 'key_value', query: { [clause]: params }, set_options: { limit: 4, ...(next ? { next } : {}) } });
      expect(response.status).toBe('SUCCESS');
      expect(response.result.success.every((part) => part.total <= 4)).toBe(true);
      seen.push(...response.result.success.flatMap((part) => (part.records as { key: string }[]).map((record) => record.key)));
      next = response.next;
      if (next === undefined) break;
      expect(next).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    }
    expect(next).toBeUndefined();
    expect([...seen].sort()).toEqual([...expected].sort());
    expect(seen).toHaveLength(expected.length);
    // Within each partition, keys come in the clause's order.
    for (const partition of [0, 1, 2, 3, 4, 5]) {
      const inPartition = seen.filter((key) => placement.partitionOf(key) === partition);
      expect(inPartition).toEqual(expected.filter((key) => placement.partitionOf(key) === partition));
    }
  });

  it('a continuation token is refused by another query, and for a clause that does not page', async () => {
    const node = nodes[0]!;
    const first = await node.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { limit: 2 } });
    const next = first.next!;
    await expect(node.service!.execute('app', 'kv', { type: 'key_value', query: { range: { key_from: 'a', key_to: 'z' } }, set_options: { next } })).rejects.toMatchObject({
      exception: 'InvalidQuery',
      message: expect.stringContaining('issued for another query'),
    });
    await expect(node.service!.execute('app', 'win', { type: 'window', query: { all: {} }, set_options: { next } })).rejects.toMatchObject({
      exception: 'InvalidQuery',
      message: expect.stringContaining('issued for another query'),
    });
    await expect(node.service!.execute('app', 'win', { type: 'window', query: { fetch: { key: 'user-1', time: 0 } }, set_options: { next } })).rejects.toMatchObject({
      exception: 'InvalidQuery',
      message: expect.stringContaining('does not page'),
    });
    // Without a limit the rest comes at once, and there is no next page.
    const rest = await node.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { next } });
    expect(rest.next).toBeUndefined();
    expect(rest.result.total + first.result.total).toBe(KEYS.length);
  });

  type Windowed = { key: { key: string; window_start: number; window_end: number }; value: number };
  const recordId = (record: Windowed) => `${record.key.key}@${record.key.window_start}-${record.key.window_end}=${record.value}`;

  it.each([
    ['wins', 'window', 'all', {}],
    ['wins', 'window', 'fetch_all', { time_from: 10_000_000, time_to: 60_000_000 }],
    ['wins', 'window', 'fetch_key_range', { key_from: 'user-2', key_to: 'user-4', time_from: 0, time_to: 80_000_000 }],
    ['wins', 'window', 'fetch_time_range', { key: 'user-7', time_from: 0, time_to: 80_000_000 }],
    ['sess', 'session', 'fetch_key_range', { key_from: 'user-1', key_to: 'user-3' }],
    ['sess', 'session', 'fetch', { key: 'user-7' }],
  ])('%s %s %s pages with limit and next: every record once, each partition in the order of the unpaged scan', async (store, type, clause, params) => {
    const query = { [clause]: params };
    const whole = (await nodes[0]!.service!.execute('app', store, { type, query }, { recordsOnly: true })) as Windowed[];
    expect(whole.length).toBeGreaterThan(3);
    const seen: Windowed[] = [];
    let next: string | undefined;
    let pages = 0;
    for (; pages < 1000; pages++) {
      // Pages asked of two nodes in turn.
      const node = nodes[pages % 2]!;
      const response = await node.service!.execute('app', store, { type, query, set_options: { limit: 3, ...(next ? { next } : {}) } });
      expect(response.status).toBe('SUCCESS');
      expect(response.result.success.every((part) => part.total <= 3)).toBe(true);
      seen.push(...response.result.success.flatMap((part) => part.records as Windowed[]));
      next = response.next;
      if (next === undefined) break;
    }
    expect(next).toBeUndefined();
    // `pages` is the last page's index: there were several.
    expect(pages).toBeGreaterThan(0);
    expect(seen.map(recordId).sort()).toEqual(whole.map(recordId).sort());
    expect(new Set(seen.map(recordId)).size).toBe(seen.length);
    for (const partition of [0, 1, 2, 3, 4, 5]) {
      const inPartition = (records: Windowed[]) => records.filter((r) => placement.partitionOf(r.key.key) === partition).map(recordId);
      expect(inPartition(seen)).toEqual(inPartition(whole));
    }
  });

  it('window fetch, fetch_key_range and session fetch answer over the cluster', async () => {
    const node = nodes[0]!;
    for (const key of KEYS.slice(0, 12)) {
      const fetched = await node.service!.execute('app', 'win', { type: 'window', query: { fetch: { key, time: 0 } } }, { recordsOnly: true });
      expect(fetched).toEqual([{ key: { key, window_start: 0, window_end: WINDOW }, value: valueOf(key) }]);
      const session = await node.service!.execute('app', 'ses', { type: 'session', query: { fetch: { key } } }, { recordsOnly: true });
      expect(session).toEqual([{ key: { key, window_start: 10, window_end: 20 }, value: valueOf(key) }]);
    }
    const ranged = await node.service!.execute('app', 'win', {
      type: 'window',
      query: { fetch_key_range: { key_from: 'user-0', key_to: 'user-9', time_from: 0, time_to: 0 } },
    });
    expect(ranged.result.success).toHaveLength(3);
    expect(ranged.result.total).toBe(KEYS.length);
  });

  it('with a node frozen, a non-keyed query is PARTIAL with a failure part naming it, within query_timeout_ms', async () => {
    const frozen = nodes[2]!;
    frozen.frozen = true;
    try {
      const started = Date.now();
      const response = await nodes[0]!.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { query_timeout_ms: 500 } });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(490);
      expect(took).toBeLessThan(800);
      expect(response).toMatchObject({ status: 'PARTIAL', timeout: true });
      expect(response.result.failure).toEqual([{ server: frozen.name, remote: true, errors: [{ message: 'no answer within the query timeout (query_timeout_ms)' }] }]);
      expect(response.result.success.map((part) => part.server)).toEqual([nodes[0]!.name, nodes[1]!.name]);
    } finally {
      frozen.frozen = false;
    }
  });

  it('with a node down, its part is a failure naming it', async () => {
    const down = nodes[1]!;
    await down.server!.close(0);
    const response = await nodes[0]!.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} } });
    expect(response.status).toBe('PARTIAL');
    expect(response.result.failure).toEqual([{ server: down.name, remote: true, errors: [{ message: expect.stringMatching(/^unreachable: /) }] }]);
    expect(response.timeout).toBe(false);
  });
});
