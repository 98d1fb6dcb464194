import pino from 'pino';
import * as grpc from '@grpc/grpc-js';
import { drainPart, type PartStream } from '../query/parts';
import type { PeerAnswer, PeerQuery, PeerQueryHandler, PeerQueryRequest } from '../query/peers';
import { makeTestCertificates } from '../streams/kafka/testing/certificates';
import { PeerClient } from './peer-client';
import { callMetadata, carriesSecret, isAuthenticated, PEER_SECRET_METADATA, type PeerSecurity, type PeerTls } from './peer-security';
import { startPeerServer, type PeerServer } from './peer-server';
import { peerService, type QueryReplyMessage } from './peer-service';

const SECRET = 'cluster-secret-0123456789abcdef';

const withAuthorization = (...values: string[]) => {
  const metadata = new grpc.Metadata();
  for (const value of values) metadata.add(PEER_SECRET_METADATA, value);
  return metadata;
};

describe('carriesSecret', () => {
  it('accepts exactly the secret as a bearer value', () => {
    expect(carriesSecret(withAuthorization(`Bearer ${SECRET}`), SECRET)).toBe(true);
    expect(carriesSecret(callMetadata({ secret: SECRET }), SECRET)).toBe(true);
  });

  it.each([
    ['no authorization', []],
    ['an empty value', ['']],
    ['the secret without the scheme', [SECRET]],
    ['another scheme', [`Basic ${SECRET}`]],
    ['a prefix of the secret', [`Bearer ${SECRET.slice(0, -1)}`]],
    ['the secret and more', [`Bearer ${SECRET}x`]],
    ['another secret of the same length', [`Bearer ${SECRET.replace('c', 'd')}`]],
    ['a different case', [`Bearer ${SECRET.toUpperCase()}`]],
    ['the secret twice', [`Bearer ${SECRET}`, `Bearer ${SECRET}`]],
    ['a wrong value beside the right one', ['Bearer wrong', `Bearer ${SECRET}`]],
  ])('refuses %s', (_what, values) => {
    expect(carriesSecret(withAuthorization(...values), SECRET)).toBe(false);
  });

  it('refuses a binary value', () => {
    const metadata = new grpc.Metadata();
    metadata.add(`${PEER_SECRET_METADATA}-bin`, Buffer.from(`Bearer ${SECRET}`));
    expect(carriesSecret(metadata, SECRET)).toBe(false);
  });

  it('sends nothing without a secret', () => {
    expect(callMetadata({}).get(PEER_SECRET_METADATA)).toEqual([]);
    expect(isAuthenticated({})).toBe(false);
    expect(isAuthenticated({ secret: SECRET })).toBe(true);
  });
});

class CountingHandler implements PeerQueryHandler {
  calls = 0;

  answerPeer(_request: PeerQueryRequest): Promise<PeerAnswer> {
    this.calls++;
    return Promise.resolve({ ok: true, records: [{ key: 'k', value: 'v' }] });
  }

  async *streamPeer(): PartStream {
    this.calls++;
    yield { json: '{"key":"k","value":"v"}', count: 1 };
    return { ok: true };
  }

  describeStore() {
    this.calls++;
    return { type: 'key_value', keySerde: 'string' };
  }
}

/**
 * A Query as any gRPC client sends it, with the credentials and metadata given: the reply, or the error's code and
 * details. By name: grpc-js sends the host as the TLS server name, which Node 26 refuses to be an IP address.
 */
function rawQuery(port: number, credentials: grpc.ChannelCredentials, metadata: grpc.Metadata): Promise<{ reply?: QueryReplyMessage; code?: grpc.status; details?: string }> {
  const client = new grpc.Client(`localhost:${port}`, credentials);
  const method = peerService().Query;
  const request = { applicationId: 'app', store: 'kv', queryJson: '{"type":"key_value","query":{"all":{}}}', timeoutMs: 2000 };
  return new Promise((resolve) => {
    client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, request, metadata, { deadline: Date.now() + 5000 }, (error, reply) => {
      client.close();
      resolve(error ? { code: error.code, details: error.details } : { reply });
    });
  });
}

describe('peer service with authentication', () => {
  const certificates = makeTestCertificates(['127.0.0.1', 'localhost'], 'unused');
  const other = makeTestCertificates(['127.0.0.1'], 'unused');
  const tls: PeerTls = { ca: Buffer.from(certificates.ca), certificate: Buffer.from(certificates.broker.chain), key: Buffer.from(certificates.broker.key) };
  const strangerTls: PeerTls = { ca: Buffer.from(certificates.ca), certificate: Buffer.from(other.broker.chain), key: Buffer.from(other.broker.key) };
  const request: PeerQueryRequest = { applicationId: 'app', store: 'kv', queryJson: '{"type":"key_value","query":{"all":{}}}', timeoutMs: 2000 };
  const handler = new CountingHandler();
  const servers: PeerServer[] = [];
  const start = async (security: PeerSecurity) => {
    const server = await startPeerServer({ host: '127.0.0.1', port: 0, handler, security });
    servers.push(server);
    return server.port;
  };
  const query = async (port: number, security: PeerSecurity, host = '127.0.0.1') => {
    const client = new PeerClient({ security });
    try {
      return await client.query(`${host}:${port}`, request, Date.now() + 5000);
    } finally {
      client.close();
    }
  };

  beforeEach(() => {
    handler.calls = 0;
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close(0)));
  });

  it('with a secret: answers a client that sends it, refuses others with UNAUTHENTICATED before the handler runs', async () => {
    const port = await start({ secret: SECRET });
    expect(await query(port, { secret: SECRET })).toEqual({ ok: true, records: [{ key: 'k', value: 'v' }] });
    expect(handler.calls).toBe(1);
    handler.calls = 0;
    const insecure = grpc.credentials.createInsecure();
    for (const metadata of [new grpc.Metadata(), withAuthorization('Bearer wrong'), withAuthorization(`Bearer ${SECRET}-`)]) {
      expect(await rawQuery(port, insecure, metadata)).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong cluster secret' });
    }
    expect(await query(port, { secret: `${SECRET}-other` })).toEqual({ ok: false, messages: ['refused by the peer: missing or wrong cluster secret'], kind: 'REFUSED', timedOut: false });
    const client = new PeerClient();
    try {
      // The multiplexed call of keyed queries is refused as a whole, each query under way with it.
      const keyed: PeerQuery = { applicationId: 'app', store: 'kv', type: 'key_value', clause: 'get', keysJson: { key: '"k"' }, times: {}, retries: 0, retryBackoffMs: 0, limit: -1, timeoutMs: 2000, positions: [], allowStale: false, maxLag: -1 };
      expect(await drainPart(client.keyedQuery(`127.0.0.1:${port}`, keyed, Date.now() + 5000, () => 'unused'))).toEqual({
        chunks: [],
        end: { ok: false, messages: ['refused by the peer: missing or wrong cluster secret'], kind: 'REFUSED', timedOut: false },
      });
      await expect(client.ping(`127.0.0.1:${port}`, Date.now() + 5000)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      await expect(client.describeStore(`127.0.0.1:${port}`, 'app', 'kv', Date.now() + 5000)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    } finally {
      client.close();
    }
    expect(handler.calls).toBe(0);
  });

  it("guards the timeline call as the queries: refused without the secret, answered with it", async () => {
    const port = await start({ secret: SECRET });
    const timeline = async (security: PeerSecurity) => {
      const client = new PeerClient({ security });
      try {
        return await client.timeline(`127.0.0.1:${port}`, 'app', Date.now() + 5000);
      } finally {
        client.close();
      }
    };
    expect(await timeline({})).toEqual({ ok: false, messages: ['refused by the peer: missing or wrong cluster secret'], kind: 'REFUSED', timedOut: false });
    // Past the secret: this server keeps no timelines, so it knows no application.
    expect(await timeline({ secret: SECRET })).toEqual({ ok: false, messages: ["No application 'app' in this process"], kind: 'UNKNOWN_STORE', timedOut: false });
  });

  it('a refusal is a warning on both sides, naming the peer', async () => {
    const lines = (): { logger: pino.Logger; seen: Record<string, unknown>[] } => {
      const seen: Record<string, unknown>[] = [];
      return { seen, logger: pino({ level: 'info', base: undefined, timestamp: false }, { write: (line: string) => void seen.push(JSON.parse(line) as Record<string, unknown>) }) };
    };
    const serverLog = lines();
    const clientLog = lines();
    const server = await startPeerServer({ host: '127.0.0.1', port: 0, handler, security: { secret: SECRET }, logger: serverLog.logger });
    servers.push(server);
    const client = new PeerClient({ security: { secret: `${SECRET}-other` }, logger: clientLog.logger });
    try {
      expect(await client.query(`127.0.0.1:${server.port}`, request, Date.now() + 5000)).toMatchObject({ ok: false, kind: 'REFUSED' });
    } finally {
      client.close();
    }
    expect(serverLog.seen).toEqual([{ level: 40, peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/), msg: expect.stringContaining('without the cluster secret') }]);
    expect(clientLog.seen).toEqual([{ level: 40, peer: `127.0.0.1:${server.port}`, reason: 'refused by the peer: missing or wrong cluster secret', msg: expect.stringContaining('refused this node') }]);
  });

  it('with mutual TLS: answers a client with a certificate of the CA, refuses one without or from another CA', async () => {
    const port = await start({ tls });
    expect(await query(port, { tls })).toMatchObject({ ok: true });
    handler.calls = 0;
    const refusals = [
      await rawQuery(port, grpc.credentials.createInsecure(), new grpc.Metadata()),
      await rawQuery(port, grpc.credentials.createSsl(tls.ca), new grpc.Metadata()),
      await rawQuery(port, grpc.credentials.createSsl(tls.ca, strangerTls.key, strangerTls.certificate), new grpc.Metadata()),
    ];
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(handler.calls).toBe(0);
  });

  it('with both: a client needs its certificate and the secret', async () => {
    const port = await start({ tls, secret: SECRET });
    expect(await query(port, { tls, secret: SECRET })).toMatchObject({ ok: true });
    handler.calls = 0;
    expect(await query(port, { tls })).toMatchObject({ ok: false, messages: ['refused by the peer: missing or wrong cluster secret'], kind: 'REFUSED' });
    expect(await query(port, { secret: SECRET })).toMatchObject({ ok: false, messages: [expect.stringMatching(/^unreachable: /)] });
    expect(handler.calls).toBe(0);
  });

  it('checks a peer at an IP address against that address, which it does not send as the TLS server name (Node 26 refuses that), and a peer by name against its name', async () => {
    // This server's certificate names 127.0.0.1 only.
    const port = await start({ tls: strangerTls });
    const client: PeerSecurity = { tls: { ...tls, ca: Buffer.from(other.ca) } };
    expect(await query(port, client)).toMatchObject({ ok: true });
    expect(await query(port, client, 'localhost')).toMatchObject({ ok: false, messages: [expect.stringMatching(/^unreachable: .*ERR_TLS_CERT_ALTNAME_INVALID.*Host: localhost\./)] });
    // This one's names 127.0.0.1 and localhost, and listens on another loopback address.
    const elsewhere = await startPeerServer({ host: '127.0.0.2', port: 0, handler, security: { tls } });
    servers.push(elsewhere);
    expect(await query(elsewhere.port, { tls }, '127.0.0.2')).toMatchObject({ ok: false, messages: [expect.stringMatching(/^unreachable: .*IP: 127\.0\.0\.2 is not in the cert's list/)] });
    expect(handler.calls).toBe(1);
  });

  it('a client refuses a server whose certificate is not from its CA', async () => {
    // The server trusts the client's CA, but shows a certificate of another CA.
    const port = await start({ tls: strangerTls });
    expect(await query(port, { tls: { ...tls, ca: Buffer.from(other.ca) } })).toMatchObject({ ok: true });
    handler.calls = 0;
    expect(await query(port, { tls })).toMatchObject({ ok: false, messages: [expect.stringMatching(/^unreachable: /)] });
    expect(handler.calls).toBe(0);
  });
});
