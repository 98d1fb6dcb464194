import * as net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { InvalidQuery, NoLocalInstance, UnknownStore } from '../errors';
import { drainPart, type PartEnd, type PartStream } from '../query/parts';
import type { PeerAnswer, PeerQuery, PeerQueryHandler, PeerQueryRequest } from '../query/peers';
import { PeerClient } from './peer-client';
import { startPeerServer, type PeerServer } from './peer-server';
import { peerService, type PeerQueryMessage, type QueryChunkMessage, type QueryReplyMessage, type QueryRequestMessage } from './peer-service';
import { closedPort } from './testing/loopback-peers';

/**
 * A TCP front that counts connections and forwards them to `target`, or, without a target, accepts them and never
 * answers: what a SIGSTOPped process looks like from outside (the kernel still completes the handshake).
 */
async function tcpProxy(target: number | undefined): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const proxy = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    if (target === undefined) return;
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

class FakeHandler implements PeerQueryHandler {
  readonly received: { request: PeerQueryRequest; deadline: number; at: number }[] = [];
  delayMs = 0;

  async answerPeer(request: PeerQueryRequest, deadline: number): Promise<PeerAnswer> {
    this.received.push({ request, deadline, at: Date.now() });
    if (request.store === 'missing') throw new UnknownStore(request.applicationId, request.store);
    // What the query layer throws on a node whose instance is restarting or not running yet.
    if (request.store === 'rebalancing') throw new NoLocalInstance(request.applicationId, 'REBALANCING');
    if (request.store === 'invalid') throw new InvalidQuery('range needs from and to');
    if (request.store === 'restoring') return { ok: false, messages: ['partition 2 is restoring'], kind: 'NOT_AVAILABLE', timedOut: false };
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs).unref());
    return { ok: true, records: [{ key: 'a', value: { nested: [1, 'x'] } }, { key: 'count', value: 3 }] };
  }

  readonly streamed: PeerQuery[] = [];
  /** Chunks the `many` store has written, and whether its stream was returned before its end. */
  written = 0;
  closedEarly = false;

  streamPeer(query: PeerQuery): PartStream {
    this.streamed.push(query);
    if (query.store === 'missing') throw new UnknownStore(query.applicationId, query.store);
    return this.part(query);
  }

  private async *part(query: PeerQuery): PartStream {
    if (query.store === 'broken') {
      yield { json: '{"key":"a","value":1}', count: 1 };
      return { ok: false, messages: ['store closed under the read'], kind: 'NOT_AVAILABLE', timedOut: false };
    }
    if (query.store === 'paged') return { ok: true, paging: { positions: query.positions, complete: false } };
    if (query.store === 'echo') {
      // A keyed query: its one record names the key it was asked for, after the handler's delay.
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs).unref());
      yield { json: JSON.stringify({ key: JSON.parse(query.keysJson.key!), value: 1 }), count: 1 };
      return { ok: true };
    }
    const chunks = query.store === 'many' ? 50 : 2;
    let ended = false;
    try {
      for (let c = 0; c < chunks; c++) {
        this.written = c + 1;
        yield { json: Array.from({ length: 100 }, (_, i) => JSON.stringify({ key: `${c}-${i}`, value: 'x'.repeat(1000) })).join(','), count: 100 };
      }
      ended = true;
      return { ok: true };
    } finally {
      this.closedEarly = !ended;
    }
  }

  describeStore(applicationId: string, store: string) {
    if (store === 'missing') throw new UnknownStore(applicationId, store);
    return store === 'kv' ? { type: 'timestamped_key_value', keySerde: 'long' } : undefined;
  }
}

const peerQuery = (store: string): PeerQuery => ({
  applicationId: 'app',
  store,
  allowStale: false,
  maxLag: -1,
  type: 'key_value',
  clause: 'all',
  keysJson: { key: '"k"' },
  times: { time_from: 1_767_225_600_000 },
  retries: 1,
  retryBackoffMs: 10,
  limit: -1,
  timeoutMs: 2000,
  positions: [
    { partition: 1, done: true },
    { partition: 4, done: false, afterKey: Buffer.from('k-7') },
    { partition: 5, done: false, afterEntry: Buffer.concat([Buffer.alloc(8), Buffer.from('k-8'), Buffer.alloc(12)]) },
  ],
});


describe('peer service over gRPC on loopback', () => {
  const handler = new FakeHandler();
  let server: PeerServer;
  let client: PeerClient;
  let endpoint: string;

  beforeAll(async () => {
    server = await startPeerServer({ host: '127.0.0.1', port: 0, handler, node: () => ({ server: 'node-a:8080', applications: ['app'] }) });
    endpoint = `127.0.0.1:${server.port}`;
    client = new PeerClient();
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  beforeEach(() => {
    handler.delayMs = 0;
  });

  const request = (store: string, timeoutMs = 2000): PeerQueryRequest => ({
    applicationId: 'app',
    store,
    queryJson: '{"type":"key_value","query":{"all":{}}}',
    timeoutMs,
  });

  it('answers the records of the peer, with the request and a deadline from its timeout', async () => {
    const before = Date.now();
    const answer = await client.query(endpoint, request('kv', 1500), Date.now() + 2000);
    expect(answer).toEqual({ ok: true, records: [{ key: 'a', value: { nested: [1, 'x'] } }, { key: 'count', value: 3 }] });
    const received = handler.received.at(-1)!;
    expect(received.request).toEqual(request('kv', 1500));
    expect(received.deadline).toBeGreaterThanOrEqual(before + 1500);
    expect(received.deadline).toBeLessThanOrEqual(Date.now() + 1500);
  });

  it("passes on a peer's failure as it gave it", async () => {
    expect(await client.query(endpoint, request('restoring'), Date.now() + 2000)).toEqual({
      ok: false,
      messages: ['partition 2 is restoring'],
      kind: 'NOT_AVAILABLE',
      timedOut: false,
    });
  });

  it('turns an error of the peer into a failure with its message', async () => {
    expect(await client.query(endpoint, request('missing'), Date.now() + 2000)).toEqual({
      ok: false,
      messages: ["Application 'app' has no state store 'missing'"],
      kind: 'UNKNOWN_STORE',
      timedOut: false,
    });
  });

  it('a live peer that is not ready answers NOT_AVAILABLE, and its connection is kept', async () => {
    const proxy = await tcpProxy(server.port);
    const reusing = new PeerClient();
    try {
      const peer = `127.0.0.1:${proxy.port}`;
      expect(await reusing.query(peer, request('rebalancing'), Date.now() + 2000)).toEqual({
        ok: false,
        messages: ["Application 'app' has no running local instance (state REBALANCING)"],
        kind: 'NOT_AVAILABLE',
        timedOut: false,
      });
      expect(await reusing.query(peer, request('invalid'), Date.now() + 2000)).toMatchObject({ ok: false, kind: 'INVALID_QUERY' });
      expect(await reusing.query(peer, request('missing'), Date.now() + 2000)).toMatchObject({ ok: false, kind: 'UNKNOWN_STORE' });
      expect((await reusing.query(peer, request('kv'), Date.now() + 2000)).ok).toBe(true);
      // One connection for all four: none of these failures read as "the peer is gone".
      expect(proxy.connections()).toBe(1);
    } finally {
      reusing.close();
      await proxy.close();
    }
  });

  it('gives up at the deadline on a peer that is too slow', async () => {
    handler.delayMs = 3000;
    const started = Date.now();
    const answer = await client.query(endpoint, request('kv', 250), started + 300);
    const took = Date.now() - started;
    expect(answer).toEqual({ ok: false, messages: ['no answer within the query timeout (query_timeout_ms)'], kind: 'TIMED_OUT', timedOut: true });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(600);
  });

  it('fails fast, with a failure naming the cause, when nothing listens on the port', async () => {
    const port = await closedPort();
    const started = Date.now();
    const answer = await client.query(`127.0.0.1:${port}`, request('kv'), started + 5000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer).toMatchObject({ ok: false, kind: 'UNREACHABLE', timedOut: false });
    expect(!answer.ok && answer.messages[0]).toMatch(/^unreachable: /);
  });

  it('never waits past the deadline on a peer that accepts the connection and then says nothing (a frozen process)', async () => {
    const frozen = await tcpProxy(undefined);
    try {
      const started = Date.now();
      const answer = await client.query(`127.0.0.1:${frozen.port}`, request('kv'), started + 400);
      const took = Date.now() - started;
      expect(answer).toEqual({ ok: false, messages: ['no answer within the query timeout (query_timeout_ms)'], kind: 'TIMED_OUT', timedOut: true });
      expect(took).toBeGreaterThanOrEqual(390);
      expect(took).toBeLessThan(700);
      expect(frozen.connections()).toBeGreaterThanOrEqual(1);
    } finally {
      await frozen.close();
    }
  });

  it('reuses one connection for the calls to a peer', async () => {
    const proxy = await tcpProxy(server.port);
    const reusing = new PeerClient();
    try {
      for (let i = 0; i < 5; i++) {
        expect((await reusing.query(`127.0.0.1:${proxy.port}`, request('kv'), Date.now() + 2000)).ok).toBe(true);
      }
      expect(proxy.connections()).toBe(1);
    } finally {
      reusing.close();
      await proxy.close();
    }
  });

  it('connects afresh after a peer could not be reached', async () => {
    const port = await closedPort();
    const reconnecting = new PeerClient();
    try {
      expect((await reconnecting.query(`127.0.0.1:${port}`, request('kv'), Date.now() + 2000)).ok).toBe(false);
      // The peer comes back on the same port: the next query reaches it, without waiting out a reconnection backoff.
      const back = await startPeerServer({ host: '127.0.0.1', port, handler });
      try {
        const started = Date.now();
        expect((await reconnecting.query(`127.0.0.1:${port}`, request('kv'), Date.now() + 2000)).ok).toBe(true);
        expect(Date.now() - started).toBeLessThan(1000);
      } finally {
        await back.close();
      }
    } finally {
      reconnecting.close();
    }
  });

  it('streams a part in chunks, sending the request in fields (int64 times as numbers)', async () => {
    const { chunks, end } = await drainPart(client.streamQuery(endpoint, peerQuery('kv'), Date.now() + 2000, () => 'unused'));
    expect(end).toEqual({ ok: true });
    expect(chunks.map((c) => c.count)).toEqual([100, 100]);
    expect(JSON.parse(`[${chunks.map((c) => c.json).join(',')}]`)).toHaveLength(200);
    // A repeated field not sent arrives empty.
    expect(handler.streamed.at(-1)).toEqual({ ...peerQuery('kv'), standInPartitions: [] });
  });

  it('carries the positions of a paged read both ways, after a key or after an entry', async () => {
    const { end } = await drainPart(client.streamQuery(endpoint, peerQuery('paged'), Date.now() + 2000, () => 'unused'));
    expect(handler.streamed.at(-1)!.positions).toEqual(peerQuery('paged').positions);
    expect(end).toEqual({ ok: true, paging: { positions: peerQuery('paged').positions, complete: false } });
  });

  it('carries the partitions a stand-in reads', async () => {
    await drainPart(client.streamQuery(endpoint, { ...peerQuery('kv'), allowStale: true, standInPartitions: [1, 4] }, Date.now() + 2000, () => 'unused'));
    expect(handler.streamed.at(-1)).toMatchObject({ allowStale: true, standInPartitions: [1, 4] });
  });

  it('many short streams at once on one channel all answer (none is cancelled, which the server would take for a flood)', async () => {
    const failures: PartEnd[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 100; i++) {
          const { end } = await drainPart(client.streamQuery(endpoint, peerQuery('kv'), Date.now() + 5000, () => 'unused'));
          if (!end.ok) failures.push(end);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it('passes on a failure after some chunks, and a refusal before any, as failures', async () => {
    const broken = await drainPart(client.streamQuery(endpoint, peerQuery('broken'), Date.now() + 2000, () => 'unused'));
    expect(broken.chunks).toEqual([{ json: '{"key":"a","value":1}', count: 1 }]);
    expect(broken.end).toEqual({ ok: false, messages: ['store closed under the read'], kind: 'NOT_AVAILABLE', timedOut: false });
    const missing = await drainPart(client.streamQuery(endpoint, peerQuery('missing'), Date.now() + 2000, () => 'unused'));
    expect(missing).toEqual({ chunks: [], end: { ok: false, messages: ["Application 'app' has no state store 'missing'"], kind: 'UNKNOWN_STORE', timedOut: false } });
  });

  it('paces the peer: it reads ahead only what flow control lets through, and a returned stream ends its reads', async () => {
    const stream = client.streamQuery(endpoint, peerQuery('many'), Date.now() + 5000, () => 'unused');
    await stream.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 50 chunks of 100 kB: the peer waits for the caller long before its last one.
    expect(handler.written).toBeLessThan(50);
    await stream.return({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(handler.closedEarly).toBe(true);
  });

  it('falls back to the unary Query for a peer of the previous version (no StreamQuery)', async () => {
    const legacy = new grpc.Server();
    const received: string[] = [];
    legacy.addService(peerService() as unknown as grpc.ServiceDefinition, {
      Query(call: grpc.ServerUnaryCall<QueryRequestMessage, QueryReplyMessage>, callback: grpc.sendUnaryData<QueryReplyMessage>) {
        received.push(call.request.queryJson);
        callback(null, { records: { recordsJson: '[{"key":"k","value":1},{"key":"l","value":2}]' } });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      legacy.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    try {
      for (let i = 0; i < 2; i++) {
        const { chunks, end } = await drainPart(client.streamQuery(`127.0.0.1:${port}`, peerQuery('kv'), Date.now() + 2000, () => '{"legacy":true}'));
        expect(end).toEqual({ ok: true });
        expect(chunks).toEqual([{ json: '{"key":"k","value":1},{"key":"l","value":2}', count: 2 }]);
      }
      expect(received).toEqual(['{"legacy":true}', '{"legacy":true}']);
    } finally {
      legacy.forceShutdown();
    }
  });

  describe('keyed queries on one multiplexed call', () => {
    const keyed = (key: string): PeerQuery => ({ ...peerQuery('echo'), clause: 'get', keysJson: { key: JSON.stringify(key) }, positions: [] });
    const keyOf = (json: string) => (JSON.parse(`[${json}]`) as { key: string }[])[0]!.key;

    afterEach(() => jest.restoreAllMocks());

    it('answers each query its own records, many at once, on a single call', async () => {
      const multiplexed = jest.spyOn(grpc.Client.prototype, 'makeBidiStreamRequest');
      const streams = jest.spyOn(grpc.Client.prototype, 'makeServerStreamRequest');
      const fresh = new PeerClient();
      try {
        const keys = Array.from({ length: 64 }, (_, i) => `key-${i}`);
        const parts = await Promise.all(keys.map((key) => drainPart(fresh.keyedQuery(endpoint, keyed(key), Date.now() + 2000, () => 'unused'))));
        expect(parts.map(({ end }) => end)).toEqual(keys.map(() => ({ ok: true })));
        expect(parts.map(({ chunks }) => keyOf(chunks[0]!.json))).toEqual(keys);
        const again = await drainPart(fresh.keyedQuery(endpoint, keyed('last'), Date.now() + 2000, () => 'unused'));
        expect(keyOf(again.chunks[0]!.json)).toBe('last');
        expect(multiplexed).toHaveBeenCalledTimes(1);
        expect(streams).not.toHaveBeenCalled();
      } finally {
        fresh.close();
      }
    });

    it('ends a query not answered in time as TIMED_OUT, and the call goes on answering the others', async () => {
      const multiplexed = jest.spyOn(grpc.Client.prototype, 'makeBidiStreamRequest');
      const fresh = new PeerClient();
      try {
        handler.delayMs = 1000;
        const started = Date.now();
        const late = await drainPart(fresh.keyedQuery(endpoint, keyed('slow'), Date.now() + 200, () => 'unused'));
        expect(late.end).toMatchObject({ ok: false, kind: 'TIMED_OUT', timedOut: true });
        expect(Date.now() - started).toBeLessThan(900);
        handler.delayMs = 0;
        const next = await drainPart(fresh.keyedQuery(endpoint, keyed('quick'), Date.now() + 2000, () => 'unused'));
        expect(next.end).toEqual({ ok: true });
        expect(keyOf(next.chunks[0]!.json)).toBe('quick');
        expect(multiplexed).toHaveBeenCalledTimes(1);
      } finally {
        fresh.close();
      }
    });

    it('fails the queries under way as unreachable when the peer goes, and opens a new call to it when it is back', async () => {
      const peer = await startPeerServer({ host: '127.0.0.1', port: 0, handler });
      const port = peer.port;
      const fresh = new PeerClient();
      try {
        handler.delayMs = 2000;
        const pending = drainPart(fresh.keyedQuery(`127.0.0.1:${port}`, keyed('pending'), Date.now() + 5000, () => 'unused'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await peer.close(0);
        expect((await pending).end).toMatchObject({ ok: false, kind: 'UNREACHABLE' });
        handler.delayMs = 0;
        const back = await startPeerServer({ host: '127.0.0.1', port, handler });
        try {
          const answered = await drainPart(fresh.keyedQuery(`127.0.0.1:${port}`, keyed('again'), Date.now() + 2000, () => 'unused'));
          expect(answered.end).toEqual({ ok: true });
          expect(keyOf(answered.chunks[0]!.json)).toBe('again');
        } finally {
          await back.close();
        }
      } finally {
        fresh.close();
      }
    });

    it('lets a closing server end its multiplexed calls at once, without waiting out its grace', async () => {
      const peer = await startPeerServer({ host: '127.0.0.1', port: 0, handler });
      const fresh = new PeerClient();
      try {
        expect((await drainPart(fresh.keyedQuery(`127.0.0.1:${peer.port}`, keyed('k'), Date.now() + 2000, () => 'unused'))).end).toEqual({ ok: true });
        const started = Date.now();
        await peer.close(10_000);
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        fresh.close();
      }
    });

    it('holds back the queries past 1 024 under way on one call until earlier ones end, rather than failing them', async () => {
      const fresh = new PeerClient();
      try {
        handler.delayMs = 300;
        const keys = Array.from({ length: 1100 }, (_, i) => `key-${i}`);
        const parts = await Promise.all(keys.map((key) => drainPart(fresh.keyedQuery(endpoint, keyed(key), Date.now() + 10_000, () => 'unused'))));
        expect(parts.filter(({ end }) => !end.ok)).toEqual([]);
        expect(parts.map(({ chunks }) => keyOf(chunks[0]!.json))).toEqual(keys);
      } finally {
        fresh.close();
      }
    });

    it('while closing, answers the queries under way and new ones NOT_AVAILABLE, so that they are asked elsewhere', async () => {
      const peer = await startPeerServer({ host: '127.0.0.1', port: 0, handler });
      const fresh = new PeerClient();
      const at = `127.0.0.1:${peer.port}`;
      try {
        expect((await drainPart(fresh.keyedQuery(at, keyed('open'), Date.now() + 2000, () => 'unused'))).end).toEqual({ ok: true });
        handler.delayMs = 500;
        const underWay = drainPart(fresh.keyedQuery(at, keyed('under-way'), Date.now() + 5000, () => 'unused'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const closed = peer.close(10_000);
        const late = await drainPart(fresh.keyedQuery(at, keyed('late'), Date.now() + 5000, () => 'unused'));
        expect(late.end).toMatchObject({ ok: false, kind: 'NOT_AVAILABLE' });
        const answered = await underWay;
        expect(answered.end).toEqual({ ok: true });
        expect(keyOf(answered.chunks[0]!.json)).toBe('under-way');
        const started = Date.now();
        await closed;
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        fresh.close();
      }
    });

    it('asks a peer without Multiplexed with StreamQuery, from then on', async () => {
      const multiplexed = jest.spyOn(grpc.Client.prototype, 'makeBidiStreamRequest');
      const older = new grpc.Server();
      older.addService(peerService() as unknown as grpc.ServiceDefinition, {
        StreamQuery(call: grpc.ServerWritableStream<PeerQueryMessage, QueryChunkMessage>) {
          call.write({ records: { recordsJson: JSON.stringify({ key: JSON.parse(call.request.keysJson.key!), value: 2 }), count: 1 }, end: {} });
          call.end();
        },
      });
      const port = await new Promise<number>((resolve, reject) =>
        older.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
      );
      const fresh = new PeerClient();
      try {
        for (const key of ['first', 'second']) {
          const { chunks, end } = await drainPart(fresh.keyedQuery(`127.0.0.1:${port}`, keyed(key), Date.now() + 2000, () => 'unused'));
          expect(end).toEqual({ ok: true });
          expect(keyOf(chunks[0]!.json)).toBe(key);
        }
        expect(multiplexed).toHaveBeenCalledTimes(1);
      } finally {
        fresh.close();
        older.forceShutdown();
      }
    });
  });

  it('describes a store, or says it cannot', async () => {
    expect(await client.describeStore(endpoint, 'app', 'kv', Date.now() + 2000)).toEqual({ type: 'timestamped_key_value', keySerde: 'long' });
    expect(await client.describeStore(endpoint, 'app', 'other', Date.now() + 2000)).toBeUndefined();
    await expect(client.describeStore(endpoint, 'app', 'missing', Date.now() + 2000)).rejects.toThrow("has no state store 'missing'");
  });

  it('answers Ping with the node', async () => {
    expect(await client.ping(endpoint, Date.now() + 2000)).toEqual({ server: 'node-a:8080', applications: ['app'] });
  });

  it('refuses to start on a port already taken, saying which', async () => {
    // grpc-js also logs the failed bind; the rejection is what matters here.
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(startPeerServer({ host: '127.0.0.1', port: server.port, handler })).rejects.toThrow(
      `The peer service cannot listen on 127.0.0.1:${server.port}`,
    );
  });
});
