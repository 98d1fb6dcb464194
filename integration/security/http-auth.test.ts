/**
 * Authentication, roles and HTTPS on a real `sluice start` over real sockets (issue 12, steps 2, 4 and 5): every route
 * and method of /openapi.json called with no credentials, wrong ones, a viewer, an operator, API tokens and JWTs
 * (signed by the test against a JWKS file it wrote); HTTPS with a certificate of a CA the test made, and mutual TLS
 * refusing a client without a certificate; the configured secrets searched for, literally, in the config resource,
 * the instance description, an event stream, every error body and the node's log.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { Agent, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { hashApiToken, newApiToken } from '../../src/server/auth/api-tokens';
import { hashPassword } from '../../src/server/auth/password-hash';
import { createTopics } from '../../src/streams/kafka';
import { makeTestCertificates, type TestCertificates } from '../../src/streams/kafka/testing/certificates';
import { KV_STORE } from '../cluster/fixtures/cluster-topology';
import { buildSluice, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { SecureNode } from './support/secure-node';

jest.setTimeout(4 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const input = uniqueName('http-auth-in');
const PASSWORDS = { viewer: 'viewer-pw-SECRET-1', operator: 'operator-pw-SECRET-2' };
const TOKENS = { viewer: newApiToken(), operator: newApiToken() };
/** Secrets in the node's streams configuration. */
const STREAMS_SECRETS = {
  'consumer.ssl.keystore.key': '-----BEGIN PRIVATE KEY-----SECRET-KEY-3',
  'producer.ssl.key.password': 'SECRET-PASSWORD-4',
  'admin.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET-JAAS-5";',
};

let build: SluiceBuild;
let workDir: string;
let certificates: TestCertificates;
let files: { cert: string; key: string; ca: string; jwks: string };
let signingKey: KeyLike;
let trusting: Agent;
const nodes: SecureNode[] = [];

beforeAll(async () => {
  build = await buildSluice();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-http-auth-'));
  certificates = makeTestCertificates(['127.0.0.1', 'localhost'], 'client-key-SECRET-6');
  const write = (name: string, content: string) => {
    const file = path.join(workDir, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  const signing = await generateKeyPair('RS256');
  signingKey = signing.privateKey;
  files = {
    cert: write('server.crt', certificates.broker.chain),
    key: write('server.key', certificates.broker.key),
    ca: write('ca.crt', certificates.ca),
    jwks: write('jwks.json', JSON.stringify({ keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'test', alg: 'RS256', use: 'sig' }] })),
  };
  // Every request of this file (the readiness wait of SecureNode too) trusts the test CA and offers the client certificate.
  trusting = new Agent({ connect: { ca: certificates.ca, cert: certificates.client.chain, key: certificates.client.key, passphrase: certificates.client.keyPassword } });
  setGlobalDispatcher(trusting);
  await createTopics(await clients.admin(), [{ name: input, partitions: 2 }]);
}, 10 * 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await clients.close();
  await trusting?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function startNode(name: string, server: Record<string, unknown>, applicationId = uniqueName(name)): Promise<SecureNode> {
  const node = await SecureNode.start({ build, name, workDir, applicationId, inputTopic: input, server, streams: STREAMS_SECRETS, scheme: 'https' });
  nodes.push(node);
  return node;
}

function jwt(claims: Record<string, unknown>, audience = 'sluice'): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'test' })
    .setSubject('jwt-user')
    .setIssuer('https://idp.test/')
    .setAudience(audience)
    .setExpirationTime('10m')
    .sign(signingKey);
}

interface Answer {
  status: number;
  text: string;
}

async function call(node: SecureNode, method: string, pathname: string, headers: Record<string, string>, body?: unknown, dispatcher?: Dispatcher): Promise<Answer> {
  const response = await request(`${node.url}${pathname}`, {
    method: method as Dispatcher.HttpMethod,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher,
    headersTimeout: 30_000,
  });
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    // An event stream never ends: its first event is enough.
    const iterator = response.body[Symbol.asyncIterator]();
    const first = await iterator.next();
    response.body.destroy();
    return { status: response.statusCode, text: first.done ? '' : String(first.value) };
  }
  return { status: response.statusCode, text: await response.body.text() };
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Store queries read, even though they are POSTs; every other method but GET changes an instance. */
const isMutation = (method: string, route: string) => method !== 'GET' && !/\/stores\/\{name\}(\/records)?$/.test(route);

describe('a node over HTTPS with users, API tokens and JWTs', () => {
  let node: SecureNode;
  const id = uniqueName('https-auth');
  /** Every answer's text, the error bodies among them: searched for the secrets at the end. */
  const seen: string[] = [];

  beforeAll(async () => {
    node = await startNode('https-auth', {
      users: {
        vic: { password: await hashPassword(PASSWORDS.viewer), role: 'viewer' },
        olga: { password: await hashPassword(PASSWORDS.operator), role: 'operator' },
      },
      tokens: [
        { name: 'dashboard', hash: hashApiToken(TOKENS.viewer), role: 'viewer' },
        { name: 'ci', hash: hashApiToken(TOKENS.operator), role: 'operator' },
      ],
      jwt: { jwks: files.jwks, issuer: 'https://idp.test/', audience: 'sluice', roleClaim: 'sluice.role' },
      tls: { certificate: files.cert, key: files.key },
      // The walk below tries a wrong password on every route: far more than a client is allowed by default (429).
      failedLogins: { perAddress: 10_000, perUser: 10_000 },
    }, id);
  });

  it('serves HTTPS only, with the certificate of the test CA', async () => {
    expect(node.url.startsWith('https://')).toBe(true);
    expect((await call(node, 'GET', '/health/liveness', {})).status).toBe(200);
    await expect(request(`http://${node.server}/health`, { headersTimeout: 5000 })).rejects.toThrow();
    const untrusting = new Agent();
    await expect(request(`${node.url}/health`, { dispatcher: untrusting })).rejects.toThrow(/certificate/i);
    await untrusting.close();
  });

  it('answers every route and method of /openapi.json as the caller is allowed: 401, 403 or success', async () => {
    const viewer = basic('vic', PASSWORDS.viewer);
    const operator = basic('olga', PASSWORDS.operator);
    // Waits for RUNNING, so that reads succeed.
    for (let i = 0; i < 120 && (await call(node, 'GET', '/health/readiness', {})).status !== 200; i++) await new Promise((r) => setTimeout(r, 500));
    const document = JSON.parse((await call(node, 'GET', '/openapi.json', viewer)).text) as { paths: Record<string, Record<string, unknown>> };
    const group = (JSON.parse((await call(node, 'GET', `/api/v1/streams/${id}/metrics`, viewer)).text) as { name: string; metrics: { name: string }[] }[])[0]!;

    const identities: [string, Record<string, string>, 'none' | 'viewer' | 'operator' | 'no-role'][] = [
      ['no credentials', {}, 'none'],
      ['wrong password', basic('olga', 'wrong'), 'none'],
      ['unknown user', basic('mallory', PASSWORDS.operator), 'none'],
      ['wrong token', bearer(`${TOKENS.operator}x`), 'none'],
      ['JWT of another audience', bearer(await jwt({ sluice: { role: 'operator' } }, 'other')), 'none'],
      ['viewer', viewer, 'viewer'],
      ['viewer token', bearer(TOKENS.viewer), 'viewer'],
      ['viewer JWT', bearer(await jwt({ sluice: { role: 'viewer' } })), 'viewer'],
      ['JWT without a role', bearer(await jwt({ sluice: { role: 'admin' } })), 'no-role'],
      ['operator', operator, 'operator'],
      ['operator token', bearer(TOKENS.operator), 'operator'],
      ['operator JWT', bearer(await jwt({ sluice: { role: ['viewer', 'operator'] } })), 'operator'],
    ];
    let walked = 0;
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
        const mutation = isMutation(method, route);
        // Changes are aimed at an instance that does not exist: reaching the handler (404) shows the access granted.
        const target = mutation ? 'no-such-instance' : id;
        const pathname = route
          .replace('{applicationId}', target)
          .replace('/stores/{name}', `/stores/${KV_STORE}`)
          .replace('{group}', encodeURIComponent(group.name))
          .replace('{name}', encodeURIComponent(group.metrics[0]!.name))
          .replace('{eventType}', 'state');
        const environments = route === '/api/v1/environments';
        const body =
          method === 'GET'
            ? undefined
            : route.includes('/stores/')
              ? { type: 'key_value', query: { all: {} } }
              : route === '/api/v1/streams'
                ? { type: 'no-such-topology' }
                : environments
                  ? { name: 'no-such-environment' }
                  : {};
        for (const [who, headers, role] of identities) {
          const answer = await call(node, method, pathname, headers, body);
          seen.push(answer.text);
          walked++;
          const at = `${who}: ${method} ${pathname}`;
          if (route.startsWith('/health')) {
            expect([at, answer.status]).toEqual([at, 200]);
          } else if (role === 'none') {
            expect([at, answer.status, JSON.parse(answer.text)]).toEqual([at, 401, { error_code: 401, exception: 'Unauthorized', message: 'Missing or wrong credentials', path: pathname }]);
          } else if (role === 'no-role' || (mutation && role === 'viewer')) {
            expect([at, answer.status, JSON.parse(answer.text).exception]).toEqual([at, 403, 'Forbidden']);
          } else if (mutation) {
            // The operator reached the handler, which found no such instance or topology (or environment: 409).
            expect([at, answer.status]).toEqual([at, environments ? 409 : 404]);
          } else if (route === '/ui' && answer.status === 503) {
            // This node runs a tsc build outside the repository, without the web console: the handler was reached.
            expect([at, JSON.parse(answer.text).exception]).toEqual([at, 'ConsoleNotBuilt']);
          } else {
            expect([at, answer.status >= 200 && answer.status < 300]).toEqual([at, true]);
          }
        }
      }
    }
    expect(walked).toBeGreaterThan(30 * identities.length);
  });

  it('an operator does change an instance: a restart', async () => {
    const answer = await call(node, 'POST', `/api/v1/streams/${id}/restart`, bearer(TOKENS.operator));
    expect(answer.status).toBe(200);
  });

  it('shows no secret in the config resource, the instance description, an event stream, any answer or the log', async () => {
    const viewer = basic('vic', PASSWORDS.viewer);
    const config = await call(node, 'GET', `/api/v1/streams/${id}/config`, viewer);
    expect(JSON.parse(config.text)).toEqual(expect.objectContaining(Object.fromEntries(Object.keys(STREAMS_SECRETS).map((key) => [key, '[hidden]']))));
    seen.push(config.text, (await call(node, 'GET', `/api/v1/streams/${id}`, viewer)).text);
    seen.push((await call(node, 'GET', `/api/v1/streams/${id}/subscribe/state`, viewer)).text);
    const secrets = [
      ...Object.values(STREAMS_SECRETS),
      'SECRET-KEY-3',
      'SECRET-JAAS-5',
      ...Object.values(PASSWORDS),
      ...Object.values(TOKENS),
      certificates.broker.key.split('\n')[1]!,
      certificates.client.keyPassword!,
    ];
    const log = node.log().map((line) => line.text).join('\n');
    expect(log).toContain('Failed login');
    for (const [where, text] of [['answers', seen.join('\n')], ['log', log]] as const) {
      for (const secret of secrets) expect([where, secret, text.includes(secret)]).toEqual([where, secret, false]);
    }
  });
});

describe('a node requiring client certificates (mutual TLS)', () => {
  it('refuses a client without a certificate in the handshake, and answers one with a certificate of the CA', async () => {
    const node = await startNode('mutual-tls', { tls: { certificate: files.cert, key: files.key, clientCa: files.ca } });
    expect([200, 503]).toContain((await call(node, 'GET', '/health', {})).status);
    const withoutCertificate = new Agent({ connect: { ca: certificates.ca } });
    await expect(call(node, 'GET', '/health', {}, undefined, withoutCertificate)).rejects.toThrow();
    const otherCa = makeTestCertificates(['127.0.0.1'], 'x');
    const foreignCertificate = new Agent({ connect: { ca: certificates.ca, cert: otherCa.client.chain, key: otherCa.client.key, passphrase: 'x' } });
    await expect(call(node, 'GET', '/health', {}, undefined, foreignCertificate)).rejects.toThrow();
    await Promise.all([withoutCertificate.close(), foreignCertificate.close()]);
  });
});
