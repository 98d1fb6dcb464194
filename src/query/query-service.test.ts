import { SluiceError } from '../errors';
import { longSerde } from '../streams/serdes/long';
import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type { KeyValueStore, StateStore } from '../streams/state/store';
import type { PartStream } from './parts';
import type { PeerAnswer, PeerQuery, PeerTransport } from './peers';
import { QueryService } from './query-service';
import type { StoreDescription } from './schema';
import { builders, FakeView, openStores, type FakeHost } from './testing/fake-view';
import type { StoreQueryResponse } from './types';

const HOSTS: FakeHost[] = [
  { endpoint: 'node-a:8080', grpcEndpoint: 'node-a:9090', partitions: [0, 3], isLocal: true },
  { endpoint: 'node-b:8080', grpcEndpoint: 'node-b:9090', partitions: [1, 4] },
  { endpoint: 'node-c:8080', grpcEndpoint: 'node-c:9090', partitions: [2, 5] },
];

/** Peers answered by hand: one answer (or a promise) per gRPC endpoint; every call is kept. */
class FakePeers implements PeerTransport {
  readonly calls: { endpoint: string; query: PeerQuery; deadline: number; legacyJson: string }[] = [];
  readonly answers = new Map<string, () => Promise<PeerAnswer>>();
  description: StoreDescription | undefined = undefined;
  describeCalls = 0;

  streamQuery(endpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    this.calls.push({ endpoint, query, deadline, legacyJson: legacyJson() });
    const answer = this.answers.get(endpoint);
    return partOf(answer ? answer() : Promise.resolve({ ok: true, records: [] }));
  }

  /** Keyed queries go the same way here: the fake has no multiplexed call. */
  keyedQuery(endpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    return this.streamQuery(endpoint, query, deadline, legacyJson);
  }

  async describeStore(): Promise<StoreDescription | undefined> {
    this.describeCalls++;
    return this.description;
  }
}

/** A peer's answer as the stream of one chunk that the peer client makes of it. */
async function* partOf(answer: Promise<PeerAnswer>): PartStream {
  const settled = await answer;
  if (!settled.ok) return settled;
  if (settled.records.length > 0) yield { json: JSON.stringify(settled.records).slice(1, -1), count: settled.records.length };
  return { ok: true };
}

function setup() {
  const stores = openStores([0, 3], builders.keyValue('kv', stringSerde, longSerde));
  const view = new FakeView('app', new Map<string, Map<number, StateStore>>([['kv', stores]]), HOSTS, 6, stringSerde as Serde<unknown>);
  const peers = new FakePeers();
  const service = new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: 'node-a:8080', peers });
  /** A key placed on the given node, written to the local store when local. */
  const keyOn = (host: FakeHost, value?: number): string => {
    for (let i = 0; ; i++) {
      const key = `key-${i}`;
      const partition = view.partitionOf(key);
      if (!host.partitions.includes(partition)) continue;
      if (value !== undefined) (stores.get(partition) as KeyValueStore<string, number>).put(key, value);
      return key;
    }
  };
  return { view, peers, service, keyOn, stores };
}

async function rejection(promise: Promise<unknown>): Promise<SluiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    return error as SluiceError;
  }
  throw new Error('expected a rejection');
}

describe('QueryService', () => {
  it('404 for an unknown application or store, 400 for an invalid query, 503 without a running instance', async () => {
    const { service, view } = setup();
    const all = { type: 'key_value', query: { all: {} } };
    expect(await rejection(service.execute('nope', 'kv', all))).toMatchObject({ exception: 'UnknownApplication', kind: 'not-found' });
    expect(await rejection(service.execute('app', 'nope', all))).toMatchObject({ exception: 'UnknownStore', kind: 'not-found' });
    expect(await rejection(service.execute('app', 'kv', { type: 'key_value', query: {} }))).toMatchObject({ exception: 'InvalidQuery', kind: 'invalid' });
    expect(await rejection(service.execute('app', 'kv', { type: 'key_value', query: { get: { key: 5 } } }))).toMatchObject({
      exception: 'InvalidQuery',
      message: expect.stringContaining("parameter 'key' is not a key of this store"),
    });
    expect(await rejection(service.execute('app', 'kv', { type: 'window', query: { all: {} } }))).toMatchObject({
      exception: 'InvalidQuery',
      message: expect.stringContaining("store 'kv' is a key_value store"),
    });
    view.state = 'NOT_RUNNING';
    expect(await rejection(service.execute('app', 'kv', all))).toMatchObject({ exception: 'NoLocalInstance', kind: 'unavailable' });
  });

  it('answers a get of a local key from the local store, named by this server', async () => {
    const { service, peers, keyOn } = setup();
    const key = keyOn(HOSTS[0]!, 42);
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } } });
    expect(response).toEqual({
      took: expect.any(Number),
      timeout: false,
      server: 'node-a:8080',
      status: 'SUCCESS',
      result: { store: 'kv', type: 'key_value', total: 1, success: [{ server: 'node-a:8080', remote: false, total: 1, records: [{ key, value: 42 }] }], failure: [] },
    });
    expect(peers.calls).toEqual([]);
  });

  it('answers a get of a key held here in one piece, read at once; an absent key as an empty part', async () => {
    const { service, keyOn, view } = setup();
    const key = keyOn(HOSTS[0]!, 42);
    const answer = await service.stream('app', 'kv', { type: 'key_value', query: { get: { key } } });
    expect(answer.streamed).toBe(false);
    expect('text' in answer && JSON.parse(answer.text)).toMatchObject({ status: 'SUCCESS', result: { total: 1, success: [{ records: [{ key, value: 42 }] }] } });
    const records = await service.stream('app', 'kv', { type: 'key_value', query: { get: { key } } }, { recordsOnly: true });
    expect('text' in records && JSON.parse(records.text)).toEqual([{ key, value: 42 }]);

    const missing = [...Array(100).keys()].map((i) => `missing-${i}`).find((k) => HOSTS[0]!.partitions.includes(view.partitionOf(k)))!;
    const absent = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key: missing } } });
    expect(absent).toMatchObject({ status: 'SUCCESS', result: { total: 0, success: [{ server: 'node-a:8080', remote: false, total: 0, records: [] }], failure: [] } });
  });

  it('forwards a get of a remote key to its owner only, never to fan out again, within the time left', async () => {
    const { service, peers, keyOn } = setup();
    const key = keyOn(HOSTS[1]!);
    peers.answers.set('node-b:9090', async () => ({ ok: true, records: [{ key, value: 7 }] }));
    const started = Date.now();
    const response = await service.execute('app', 'kv', { type: 'KEY_VALUE', query: { GET: { key } }, set_options: { query_timeout_ms: '5000' } });
    expect(response.status).toBe('SUCCESS');
    expect(response.result.success).toEqual([{ server: 'node-b:8080', remote: true, total: 1, records: [{ key, value: 7 }] }]);
    expect(peers.calls).toHaveLength(1);
    const call = peers.calls[0]!;
    expect(call.endpoint).toBe('node-b:9090');
    // The parsed request in fields, keys as JSON text; the JSON body only for peers of the previous version.
    expect(call.query).toEqual({
      applicationId: 'app',
      store: 'kv',
      type: 'key_value',
      clause: 'get',
      keysJson: { key: JSON.stringify(key) },
      times: {},
      retries: 0,
      retryBackoffMs: 100,
      limit: -1,
      timeoutMs: expect.any(Number),
      positions: [],
      allowStale: false,
      maxLag: -1,
    });
    expect(JSON.parse(call.legacyJson)).toEqual({
      type: 'key_value',
      query: { get: { key } },
      set_options: { retries: 0, retry_backoff_ms: 100, query_timeout_ms: call.query.timeoutMs, remote_access_allowed: false, limit: -1 },
    });
    expect(call.deadline).toBeGreaterThanOrEqual(started + 5000);
    expect(call.deadline).toBeLessThanOrEqual(Date.now() + 5000);
    expect(call.query.timeoutMs).toBeLessThan(5000);
    expect(call.query.timeoutMs).toBeGreaterThan(4500);
  });

  it('answers NO_RESULT for a remote key when remote access is not allowed', async () => {
    const { service, peers, keyOn } = setup();
    const response = await service.execute('app', 'kv', {
      type: 'key_value',
      query: { get: { key: keyOn(HOSTS[2]!) } },
      set_options: { remote_access_allowed: false },
    });
    expect(response).toMatchObject({ status: 'NO_RESULT', result: { total: 0, success: [], failure: [], error: expect.stringContaining('node-c:8080') } });
    expect(peers.calls).toEqual([]);
  });

  it('runs all on every node: a local part and one part per peer', async () => {
    const { service, peers, keyOn } = setup();
    const local = keyOn(HOSTS[0]!, 1);
    peers.answers.set('node-b:9090', async () => ({ ok: true, records: [{ key: 'b', value: 2 }] }));
    peers.answers.set('node-c:9090', async () => ({ ok: true, records: [{ key: 'c', value: 3 }] }));
    const response = (await service.execute('app', 'kv', { type: 'key_value', query: { all: {} } })) as StoreQueryResponse;
    expect(response.status).toBe('SUCCESS');
    expect(response.result.total).toBe(3);
    expect(response.result.success).toEqual([
      { server: 'node-a:8080', remote: false, total: 1, records: [{ key: local, value: 1 }] },
      { server: 'node-b:8080', remote: true, total: 1, records: [{ key: 'b', value: 2 }] },
      { server: 'node-c:8080', remote: true, total: 1, records: [{ key: 'c', value: 3 }] },
    ]);
    expect(peers.calls.map((c) => c.endpoint)).toEqual(['node-b:9090', 'node-c:9090']);
    expect(await service.execute('app', 'kv', { type: 'key_value', query: { all: {} } }, { recordsOnly: true })).toEqual([
      { key: local, value: 1 },
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ]);
  });

  it('keeps a non-keyed query local when remote access is not allowed', async () => {
    const { service, peers } = setup();
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { count: {} }, set_options: { remoteAccessAllowed: 'false' } });
    expect(response.result.success).toEqual([{ server: 'node-a:8080', remote: false, total: 1, records: [{ key: 'count', value: 0 }] }]);
    expect(peers.calls).toEqual([]);
  });

  it('PARTIAL with a failure part naming the peer that failed', async () => {
    const { service, peers } = setup();
    peers.answers.set('node-c:9090', async () => ({ ok: false, messages: ['unreachable: connection refused'], kind: 'UNREACHABLE', timedOut: false }));
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { all: {} } });
    expect(response.status).toBe('PARTIAL');
    expect(response.result.success.map((p) => p.server)).toEqual(['node-a:8080', 'node-b:8080']);
    expect(response.result.failure).toEqual([{ server: 'node-c:8080', remote: true, errors: [{ message: 'unreachable: connection refused' }] }]);
  });

  it('NOT_AVAILABLE for a get whose owner is down, with a failure part naming it', async () => {
    const { service, peers, keyOn } = setup();
    peers.answers.set('node-b:9090', async () => ({ ok: false, messages: ['unreachable: connection refused'], kind: 'UNREACHABLE', timedOut: false }));
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key: keyOn(HOSTS[1]!) } } });
    expect(response.status).toBe('NOT_AVAILABLE');
    expect(response.result.failure).toEqual([{ server: 'node-b:8080', remote: true, errors: [{ message: 'unreachable: connection refused' }] }]);
  });

  it('counts peers that answered in time as answered, even when their parts are read after the deadline', async () => {
    const { service, peers, keyOn } = setup();
    keyOn(HOSTS[0]!, 1);
    peers.answers.set('node-b:9090', async () => ({ ok: true, records: [{ key: 'b', value: 2 }] }));
    peers.answers.set('node-c:9090', async () => ({ ok: true, records: [{ key: 'c', value: 3 }] }));
    const answer = await service.stream('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { query_timeout_ms: 300 } });
    // A client that reads slowly: the parts are read on after the deadline, though every peer had answered by then.
    let text = '';
    for await (const chunk of 'body' in answer ? answer.body : []) {
      text += chunk;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const response = JSON.parse(text) as StoreQueryResponse;
    expect(response.result.failure).toEqual([]);
    expect(response.status).toBe('SUCCESS');
    expect(response.result.success.map((part) => part.server)).toEqual(['node-a:8080', 'node-b:8080', 'node-c:8080']);
  });

  it('never waits past query_timeout_ms for a peer that does not answer', async () => {
    const { service, peers } = setup();
    peers.answers.set('node-b:9090', () => new Promise<PeerAnswer>(() => undefined));
    const started = Date.now();
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { query_timeout_ms: 300 } });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(500);
    expect(response).toMatchObject({ status: 'PARTIAL', timeout: true });
    expect(response.result.failure).toEqual([
      { server: 'node-b:8080', remote: true, errors: [{ message: 'no answer within the query timeout (query_timeout_ms)' }] },
    ]);
  });

  it('a local part whose partitions restore past the retries is a failure; NOT_AVAILABLE when it is the only part', async () => {
    const { service, view, keyOn } = setup();
    const key = keyOn(HOSTS[0]!, 1);
    view.restoring.add(view.partitionOf(key));
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } }, set_options: { retries: 1, retry_backoff_ms: 10 } });
    expect(response.status).toBe('NOT_AVAILABLE');
    expect(response.result.failure).toEqual([
      { server: 'node-a:8080', remote: false, errors: [{ message: expect.stringContaining(`partition ${view.partitionOf(key)} of store 'kv' is not queryable`) }] },
    ]);
    expect(response.result.error).toContain('node-a:8080: partition');
  });

  it('follows a key whose partition moved on while this node still named itself its owner, retry by retry', async () => {
    const hosts: FakeHost[] = HOSTS.map((host) => ({ ...host, partitions: [...host.partitions] }));
    const stores = openStores([0, 3], builders.keyValue('kv', stringSerde, longSerde));
    const view = new FakeView('app', new Map<string, Map<number, StateStore>>([['kv', stores]]), hosts, 6, stringSerde as Serde<unknown>);
    const peers = new FakePeers();
    const service = new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: 'node-a:8080', peers });
    const key = [...Array(100).keys()].map((i) => `key-${i}`).find((k) => view.partitionOf(k) === 0)!;
    // Partition 0 is closed here (it moved), and the host map learns its new owner a moment later.
    view.restoring.add(0);
    setTimeout(() => {
      hosts[0]!.partitions = [3];
      hosts[1]!.partitions.push(0);
    }, 150);
    peers.answers.set('node-b:9090', async () => ({ ok: true, records: [{ key, value: 7 }] }));
    const moved = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } }, set_options: { retries: 10, retry_backoff_ms: 50 } });
    expect(moved.status).toBe('SUCCESS');
    expect(moved.result.success).toEqual([{ server: 'node-b:8080', remote: true, total: 1, records: [{ key, value: 7 }] }]);

    // Without retries it is answered where the host map says, as before.
    hosts[0]!.partitions = [0, 3];
    hosts[1]!.partitions = [1, 4];
    const once = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } } });
    expect(once.status).toBe('NOT_AVAILABLE');
    expect(once.result.failure.map((f) => f.server)).toEqual(['node-a:8080']);
  });

  it('follows a key whose old owner, a peer, says it is not queryable there, to the owner the group names next', async () => {
    const hosts: FakeHost[] = HOSTS.map((host) => ({ ...host, partitions: [...host.partitions] }));
    const stores = openStores([0, 3], builders.keyValue('kv', stringSerde, longSerde));
    const view = new FakeView('app', new Map<string, Map<number, StateStore>>([['kv', stores]]), hosts, 6, stringSerde as Serde<unknown>);
    const peers = new FakePeers();
    const service = new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: 'node-a:8080', peers });
    const key = [...Array(100).keys()].map((i) => `key-${i}`).find((k) => view.partitionOf(k) === 1)!;
    // Node b has closed partition 1 (it moved to node c); this node's host map learns so a moment later.
    peers.answers.set('node-b:9090', async () => ({ ok: false, messages: ["partition 1 of store 'kv' is not queryable on this server"], kind: 'NOT_AVAILABLE', timedOut: false }));
    peers.answers.set('node-c:9090', async () => ({ ok: true, records: [{ key, value: 11 }] }));
    setTimeout(() => {
      hosts[1]!.partitions = [4];
      hosts[2]!.partitions.push(1);
    }, 150);
    const moved = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } }, set_options: { retries: 10, retry_backoff_ms: 50 } });
    expect(moved.status).toBe('SUCCESS');
    expect(moved.result.success).toEqual([{ server: 'node-c:8080', remote: true, total: 1, records: [{ key, value: 11 }] }]);
    // Each owner is asked once an attempt, without retries of its own.
    const endpoints = peers.calls.map((call) => call.endpoint);
    expect(endpoints.at(-1)).toBe('node-c:9090');
    expect(endpoints.filter((endpoint) => endpoint === 'node-b:9090').length).toBeGreaterThanOrEqual(2);
    expect(peers.calls.every((call) => call.query.retries === 0)).toBe(true);

    // With the retries spent, the failure names the owner and says how often it was asked.
    hosts[1]!.partitions = [1, 4];
    hosts[2]!.partitions = [2, 5];
    const spent = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } }, set_options: { retries: 2, retry_backoff_ms: 10 } });
    expect(spent.status).toBe('NOT_AVAILABLE');
    expect(spent.result.failure).toEqual([
      { server: 'node-b:8080', remote: true, errors: [{ message: "partition 1 of store 'kv' is not queryable on this server (after 2 retries)" }] },
    ]);
  });

  it('learns the store from a peer when no local partition is queryable', async () => {
    const { service, view, peers, keyOn } = setup();
    view.restoring.add(0).add(3);
    const key = keyOn(HOSTS[1]!);
    peers.description = { type: 'key_value', keySerde: 'string' };
    peers.answers.set('node-b:9090', async () => ({ ok: true, records: [{ key, value: 9 }] }));
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { get: { key } } });
    expect(response.status).toBe('SUCCESS');
    expect(response.result.success[0]).toMatchObject({ server: 'node-b:8080', records: [{ key, value: 9 }] });
    expect(peers.describeCalls).toBe(2);
  });

  it('NOT_AVAILABLE when no server can describe the store, after the retries', async () => {
    const { service, view, peers } = setup();
    view.restoring.add(0).add(3);
    const response = await service.execute('app', 'kv', { type: 'key_value', query: { all: {} }, set_options: { retries: 2, retry_backoff_ms: 5 } });
    expect(response).toMatchObject({
      status: 'NOT_AVAILABLE',
      result: { total: 0, success: [], failure: [], error: "store 'kv' is not queryable on any server right now (rebalancing or restoring) (after 2 retries)" },
    });
    expect(peers.describeCalls).toBe(3 * 2);
  });
});
