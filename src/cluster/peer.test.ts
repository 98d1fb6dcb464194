import * as net from 'node:net';
import { InvalidQuery, NoLocalInstance, UnknownStore } from '../errors';
import { PeerClient } from './peer-client';
import type { PeerAnswer, PeerQueryHandler, PeerQueryRequest } from './peer-protocol';
import { startPeerServer, type PeerServer } from './peer-server';

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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

  describeStore(applicationId: string, store: string) {
    if (store === 'missing') throw new UnknownStore(applicationId, store);
    return store === 'kv' ? { type: 'timestamped_key_value', keySerde: 'long' } : undefined;
  }
}

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
