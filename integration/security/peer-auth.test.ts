/**
 * The gRPC peer port of a real `sluice start` node, called by a plain @grpc/grpc-js client built from
 * proto/sluice.proto: without the cluster secret, with a wrong one, without a client certificate or with one of
 * another CA, the call is refused (UNAUTHENTICATED, or the TLS handshake fails) and answers no record; with the
 * node's credentials it answers the store's records, which proves there were records to give away.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { makeTestCertificates } from '../../src/streams/kafka/testing/certificates';
import { KV_STORE } from '../cluster/fixtures/cluster-topology';
import { writePeerSecurity, type PeerSecurityFiles } from '../cluster/support/peer-security';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(2 * BROKER_TEST_TIMEOUT_MS);

type Callback = (error: grpc.ServiceError | null, reply?: { records?: { recordsJson: string }; failure?: unknown }) => void;
type PeerStub = grpc.Client & { Query(request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback): void };

const definition = protoLoader.loadSync(path.resolve(__dirname, '../../proto/sluice.proto'), { keepCase: false, defaults: true, oneofs: true });
const PeerService = (grpc.loadPackageDefinition(definition) as unknown as { sluice: { peer: { v1: { PeerService: new (address: string, credentials: grpc.ChannelCredentials) => PeerStub } } } }).sluice.peer.v1
  .PeerService;

interface Outcome {
  code: grpc.status;
  details?: string;
  records: unknown[];
}

const clients = new KafkaTestClients();
const applicationId = uniqueName('peer-auth');
const input = uniqueName('peer-auth-in');
const KEYS = ['a', 'b', 'c'];
let build: SluiceBuild;
let workDir: string;
let security: PeerSecurityFiles;
let secured: SluiceNode;
let secretOnly: SluiceNode;

function metadataWith(authorization?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (authorization !== undefined) metadata.set('authorization', authorization);
  return metadata;
}

/**
 * An `all` query on the store, as any gRPC client can send it: by name, as grpc-js sends the host as the TLS server
 * name, which Node 26 refuses to be an IP address.
 */
function query(port: number, credentials: grpc.ChannelCredentials, metadata: grpc.Metadata, target = { applicationId, store: KV_STORE }): Promise<Outcome> {
  const client = new PeerService(`localhost:${port}`, credentials);
  const request = { ...target, queryJson: JSON.stringify({ type: 'key_value', query: { all: {} } }), timeoutMs: 3000 };
  return new Promise((resolve) => {
    client.Query(request, metadata, { deadline: Date.now() + 5000 }, (error, reply) => {
      client.close();
      if (error) resolve({ code: error.code, details: error.details, records: [] });
      else resolve({ code: grpc.status.OK, records: reply?.records ? (JSON.parse(reply.records.recordsJson) as unknown[]) : [] });
    });
  });
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-peer-auth-'));
  security = writePeerSecurity(path.join(workDir, 'peers'));
  build = await buildSluice();
  const admin = await clients.admin();
  await createTopics(admin, [{ name: input, partitions: 1 }]);
  await (await clients.producer()).send({ topic: input, messages: KEYS.map((key) => ({ key, value: `value-${key}` })) });
  const common = { build, bootstrapServers: bootstrapServers().join(','), inputTopic: input, workDir };
  // Two applications of the same topology: each node owns every partition of its own.
  [secured, secretOnly] = await Promise.all([
    SluiceNode.start({ ...common, name: 'secured', applicationId, peers: security.peers }),
    SluiceNode.start({ ...common, name: 'secret-only', applicationId: `${applicationId}-b`, peers: { secret: security.peers.secret } }),
  ]);
}, 10 * 60_000);

afterAll(async () => {
  await Promise.all([secured, secretOnly].filter((node) => node !== undefined).map((node) => node.stop()));
  await clients.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('the peer port of a node with mutual TLS and the cluster secret', () => {
  const tls = () => grpc.credentials.createSsl(Buffer.from(security.certificates.ca), Buffer.from(security.certificates.broker.key), Buffer.from(security.certificates.broker.chain));

  it('answers the records to a caller with the certificate and the secret', async () => {
    const answer = await eventually(
      'the store to hold the input',
      () => query(secured.grpcPort, tls(), metadataWith(`Bearer ${security.secret}`)),
      (outcome) => outcome.records.length === KEYS.length,
      90_000,
    );
    expect(answer.code).toBe(grpc.status.OK);
  });

  it('refuses, with UNAUTHENTICATED and no record, a caller with the certificate but no secret or a wrong one', async () => {
    const refusals = await Promise.all([
      query(secured.grpcPort, tls(), metadataWith()),
      query(secured.grpcPort, tls(), metadataWith('Bearer wrong')),
      query(secured.grpcPort, tls(), metadataWith(`Bearer ${security.secret.slice(0, -1)}x`)),
      query(secured.grpcPort, tls(), metadataWith(security.secret)),
      // A store that does not exist: the handler would say so (NOT_FOUND); the refusal comes before it.
      query(secured.grpcPort, tls(), metadataWith('Bearer wrong'), { applicationId, store: 'no-such-store' }),
    ]);
    for (const refusal of refusals) expect(refusal).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong cluster secret', records: [] });
  });

  it('refuses, in the TLS handshake, a plaintext caller, one without a certificate and one whose certificate is of another CA', async () => {
    const stranger = makeTestCertificates(['127.0.0.1'], 'unused');
    const secret = metadataWith(`Bearer ${security.secret}`);
    const refusals = await Promise.all([
      query(secured.grpcPort, grpc.credentials.createInsecure(), secret),
      query(secured.grpcPort, grpc.credentials.createSsl(Buffer.from(security.certificates.ca)), secret),
      query(secured.grpcPort, grpc.credentials.createSsl(Buffer.from(security.certificates.ca), Buffer.from(stranger.broker.key), Buffer.from(stranger.broker.chain)), secret),
    ]);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: grpc.status.UNAVAILABLE, records: [] });
  });

  it('logs neither the secret nor the private key', () => {
    const log = secured.tail(100_000);
    expect(log).not.toContain(security.secret);
    expect(log).not.toContain('PRIVATE KEY');
  });
});

describe('the peer port of a node with the cluster secret only', () => {
  // Its own application (same topology, another id): it owns every partition of it.
  const call = (authorization?: string) =>
    query(secretOnly.grpcPort, grpc.credentials.createInsecure(), metadataWith(authorization), { applicationId: `${applicationId}-b`, store: KV_STORE });

  it('answers a caller with the secret, refuses one without it or with a wrong one', async () => {
    await eventually('the store to hold the input', () => call(`Bearer ${security.secret}`), (outcome) => outcome.records.length === KEYS.length, 90_000);
    for (const authorization of [undefined, '', 'Bearer ', `Bearer ${security.secret} `, `Basic ${security.secret}`, 'Bearer wrong']) {
      expect({ authorization, outcome: await call(authorization) }).toEqual({
        authorization,
        outcome: { code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong cluster secret', records: [] },
      });
    }
  });
});
