/**
 * Stale reads (KIP-535, `allow_stale` and `max_lag`) over three nodes in one process, on loopback gRPC: each node
 * holds the active partitions of its own keys and a standby of the next node's, whose values lag (they are one
 * less than the active's). A keyed query whose active does not answer is answered by a standby within max_lag;
 * a query over every partition asks the standbys of a node that does not answer for its partitions.
 */
import { parseQueryRequest, requestToJson, requestToPeer } from '../query/parse';
import { drainPart } from '../query/parts';
import { QueryService } from '../query/query-service';
import { builders, FakeView, openStores, type FakeHost } from '../query/testing/fake-view';
import { longSerde } from '../streams/serdes/long';
import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type { StateStore, TimestampedKeyValueStore } from '../streams/state/store';
import { PeerClient } from './peer-client';
import type { PeerServer } from './peer-server';
import { startLoopbackPeer, type LoopbackNode } from './testing/loopback-peers';

const PARTITIONS = 3;
const KEYS = Array.from({ length: 30 }, (_, i) => `user-${i}`);
const valueOf = (key: string) => Number(key.slice('user-'.length)) * 10;
const STANDBY_LAG = 7;

interface Node extends LoopbackNode {
  name: string;
  active: number;
  standby: number;
  view?: FakeView;
  server?: PeerServer;
}


const placement = new FakeView('placement', new Map(), [], PARTITIONS, stringSerde as Serde<unknown>);

function fill(stores: Map<number, TimestampedKeyValueStore<string, number>>, partition: number, offset: number): void {
  for (const key of KEYS) if (placement.partitionOf(key) === partition) stores.get(partition)!.put(key, { value: valueOf(key) - offset, timestamp: 1 });
}

describe('stale reads over three nodes with a standby each', () => {
  const nodes: Node[] = [
    { name: 'node-a:8080', active: 0, standby: 1, frozen: false },
    { name: 'node-b:8080', active: 1, standby: 2, frozen: false },
    { name: 'node-c:8080', active: 2, standby: 0, frozen: false },
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
        partitions: [n.active],
        standbyPartitions: [n.standby],
        isLocal: n === node,
      }));
      const build = builders.timestampedKeyValue('kv', stringSerde, longSerde);
      const active = openStores([node.active], build);
      fill(active, node.active, 0);
      const standby = openStores([node.standby], build);
      fill(standby, node.standby, 1);
      const view = new FakeView('app', new Map<string, Map<number, StateStore>>([['kv', active]]), hosts, PARTITIONS, stringSerde as Serde<unknown>);
      view.standbys.set('kv', new Map([[node.standby, { store: standby.get(node.standby)!, lag: STANDBY_LAG }]]));
      node.view = view;
      node.service = new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: node.name, peers: client });
    }
  });

  afterAll(async () => {
    client.close();
    await Promise.all(nodes.map((node) => node.server?.close(100)));
  });

  afterEach(() => {
    for (const node of nodes) node.frozen = false;
  });

  const keyOn = (node: Node) => KEYS.find((key) => placement.partitionOf(key) === node.active)!;
  const get = (asked: Node, key: string, options: object) => asked.service!.execute('app', 'kv', { type: 'key_value', query: { get: { key } }, set_options: options });

  it('answers from the active while it answers, saying so; without allow_stale the parts are as before', async () => {
    const [a, , c] = nodes as [Node, Node, Node];
    const key = keyOn(c);
    const stale = await get(a, key, { allow_stale: true });
    expect(stale.result.success).toEqual([{ server: c.name, remote: true, total: 1, records: [{ key, value: valueOf(key) }], standby: false, lag: 0 }]);
    const plain = await get(a, key, {});
    expect(plain.result.success).toEqual([{ server: c.name, remote: true, total: 1, records: [{ key, value: valueOf(key) }] }]);
  });

  it('with the active frozen, a standby answers within the query timeout, with its lag; without allow_stale the query times out', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    c.frozen = true;
    const key = keyOn(c);
    const started = Date.now();
    // The standby is asked at half the timeout: 2 s left for it to answer even on a loaded machine.
    const stale = await get(a, key, { allow_stale: true, query_timeout_ms: 4000 });
    // Within the query timeout (plus scheduling slack): the frozen active is not waited for past it.
    expect(Date.now() - started).toBeLessThan(5000);
    // Node b holds the standby of node c's partition.
    expect(stale.status).toBe('SUCCESS');
    expect(stale.result.success).toEqual([{ server: b.name, remote: true, total: 1, records: [{ key, value: valueOf(key) - 1 }], standby: true, lag: STANDBY_LAG }]);

    const plain = await get(a, key, { query_timeout_ms: 500 });
    expect(plain.status).toBe('ERROR');
    expect(plain.timeout).toBe(true);
    expect(plain.result.success).toEqual([]);
  });

  it('reads its own standby first when the active is down', async () => {
    const [a, b] = nodes as [Node, Node, Node];
    b.frozen = true;
    // Node a holds the standby of node b's partition.
    const key = keyOn(b);
    const stale = await get(a, key, { allow_stale: true, query_timeout_ms: 2000 });
    expect(stale.result.success).toEqual([{ server: a.name, remote: false, total: 1, records: [{ key, value: valueOf(key) - 1 }], standby: true, lag: STANDBY_LAG }]);
  });

  it('refuses a standby further behind than max_lag, saying why', async () => {
    const [a, , c] = nodes as [Node, Node, Node];
    c.frozen = true;
    const stale = await get(a, keyOn(c), { allow_stale: true, max_lag: STANDBY_LAG - 1, query_timeout_ms: 1000 });
    expect(stale.result.success).toEqual([]);
    expect(stale.result.failure).toHaveLength(1);
    expect(stale.result.failure[0]!.errors[0]!.message).toContain(`is ${STANDBY_LAG} records behind, more than max_lag=${STANDBY_LAG - 1}`);
    const within = await get(a, keyOn(c), { allow_stale: true, max_lag: STANDBY_LAG, query_timeout_ms: 4000 });
    expect(within.result.success[0]).toMatchObject({ standby: true, lag: STANDBY_LAG });
  });

  it('all with allow_stale marks every part as read from an active', async () => {
    const [a] = nodes as [Node, Node, Node];
    const all = await a.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { allow_stale: true } });
    expect(all.status).toBe('SUCCESS');
    expect(all.result.total).toBe(KEYS.length);
    expect(all.result.success.every((part) => part.standby === false && part.lag === 0)).toBe(true);
  });

  it('all and count with allow_stale read a frozen node\'s partitions from their standbys, and every record once', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    // 4 s: each peer has half of it before its standbys stand in, which is slow on a loaded machine.
    c.frozen = true;
    const all = await a.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { allow_stale: true, query_timeout_ms: 4000 } });
    expect(all.status).toBe('SUCCESS');
    expect(all.result.failure).toEqual([]);
    expect(all.result.success.map((part) => [part.server, part.standby, part.lag])).toEqual([
      [a.name, false, 0],
      [b.name, false, 0],
      [b.name, true, STANDBY_LAG],
    ]);
    const records = all.result.success.flatMap((part) => part.records) as { key: string; value: number }[];
    expect(records.map((r) => r.key).sort()).toEqual([...KEYS].sort());
    // Node c's keys, from node b's standby: one less than the active's.
    for (const r of records) expect(r.value).toBe(valueOf(r.key) - (placement.partitionOf(r.key) === c.active ? 1 : 0));

    const count = await a.service!.execute('app', 'kv', { type: 'key_value', query: { count: {} }, set_options: { allow_stale: true, query_timeout_ms: 4000 } });
    expect(count.status).toBe('SUCCESS');
    expect(count.result.success.reduce((n, part) => n + Number((part.records[0] as { value: number }).value), 0)).toBe(KEYS.length);

    // Without allow_stale the frozen node's part fails, as before.
    const plain = await a.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { query_timeout_ms: 500 } });
    expect(plain.result.failure.map((f) => f.server)).toEqual([c.name]);
  });

  it('all with allow_stale reads this node\'s own standby of a frozen node\'s partition', async () => {
    const [a, b] = nodes as [Node, Node, Node];
    b.frozen = true;
    const all = await a.service!.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { allow_stale: true, query_timeout_ms: 4000 } });
    expect(all.status).toBe('SUCCESS');
    expect(all.result.total).toBe(KEYS.length);
    expect(all.result.success.filter((part) => part.standby).map((part) => [part.server, part.remote])).toEqual([[a.name, false]]);
  });

  describe('stand-in partitions as a peer asks them, over gRPC', () => {
    /** Asks node b (active 1, standby 2) over its peer server to read these partitions in place of another node. */
    async function standIn(partitions: number[]) {
      const [, b] = nodes as [Node, Node, Node];
      const request = parseQueryRequest({ type: 'key_value', query: { all: {} }, set_options: { allow_stale: true, retries: 0 } });
      const query = { ...requestToPeer(request, 'app', 'kv', 2000), standInPartitions: partitions };
      const { chunks, end } = await drainPart(client.streamQuery(`127.0.0.1:${b.server!.port}`, query, Date.now() + 2000, () => requestToJson(request, request.options)));
      return { records: chunks.reduce((n, chunk) => n + chunk.count, 0), end };
    }

    it('reads each partition listed once, from its active or its standby', async () => {
      const { records, end } = await standIn([2, 1]);
      expect(end).toMatchObject({ ok: true, replica: { standby: true, lag: STANDBY_LAG } });
      expect(records).toBe(KEYS.filter((key) => placement.partitionOf(key) !== 0).length);
    });

    it.each([
      ['partition 1 two thousand times', Array<number>(2000).fill(1), 'stand_in_partitions names partitions more than once: 1'],
      ['partitions twice among others', [1, 2, 2, 1], 'stand_in_partitions names partitions more than once: 1, 2'],
      ['partitions the store does not have', [1, 3, 7, 2], "stand_in_partitions names partitions store 'kv' does not have (it has 3): 3, 7"],
      ['more partitions than the store has', [0, 1, 2, 3, 4, 5], "does not have (it has 3): 3, 4, 5"],
    ])('refuses %s: an invalid query naming them, and no record', async (_name, partitions, message) => {
      const { records, end } = await standIn(partitions);
      expect(records).toBe(0);
      expect(end).toEqual({ ok: false, kind: 'INVALID_QUERY', timedOut: false, messages: [expect.stringContaining(message)] });
    });
  });

  it.each([
    [{ max_lag: 5 }, 'set_options.max_lag bounds the lag of stale reads: it needs allow_stale=true'],
    [{ allow_stale: 'perhaps' }, 'set_options.allow_stale must be true or false'],
    [{ allow_stale: true, max_lag: -1 }, 'set_options.max_lag must be an integer >= 0'],
  ])('refuses set_options %j', async (options, message) => {
    const [a] = nodes as [Node, Node, Node];
    await expect(get(a, 'user-1', options)).rejects.toMatchObject({ exception: 'InvalidQuery', message: expect.stringContaining(message) });
  });
});
