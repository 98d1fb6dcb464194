/**
 * The defects of issue 12's step 0, probed on a real `sluice start` process over real sockets, as they were found:
 * a deploy that names a module, application ids that name directories, user names that are Object.prototype's,
 * over-long ids, HEAD on an event stream, a body that never completes, malformed requests, secrets in clear, and a
 * node that served every interface without authentication by default.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { hashPassword } from '../../src/server/auth/password-hash';
import { createTopics } from '../../src/streams/kafka';
import { buildSluice, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { firstResponse, rawExchange, SecureNode } from './support/secure-node';

jest.setTimeout(4 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const input = uniqueName('security-in');
let build: SluiceBuild;
let workDir: string;
const nodes: SecureNode[] = [];

/** Secrets in the node's own configuration: they must appear nowhere the node shows or logs. */
const SECRETS = {
  'consumer.ssl.keystore.key': '-----BEGIN PRIVATE KEY-----SECRET-KEY-1',
  'producer.ssl.key.password': 'SECRET-PASSWORD-2',
  'admin.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET-JAAS-3";',
};

beforeAll(async () => {
  build = await buildSluice();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-security-'));
  await createTopics(await clients.admin(), [{ name: input, partitions: 2 }]);
}, 10 * 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await clients.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function startNode(name: string, options: { server?: Record<string, unknown>; streams?: Record<string, unknown> } = {}): Promise<SecureNode> {
  const node = await SecureNode.start({ build, name, workDir, applicationId: uniqueName(name), inputTopic: input, ...options });
  nodes.push(node);
  return node;
}

async function call(node: SecureNode, method: 'GET' | 'POST' | 'DELETE', pathname: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await request(`${node.url}${pathname}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The log lines at error level or above. */
function errorsLogged(node: SecureNode): string[] {
  return node
    .log()
    .filter((line) => (line.level ?? 0) >= 50)
    .map((line) => line.text);
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;
}

describe('a node without users and without a host', () => {
  let node: SecureNode;
  let appDir: string;

  beforeAll(async () => {
    node = await startNode('open', { server: { timeouts: { requestMs: 1000, headersMs: 1000 } }, streams: SECRETS });
    appDir = node.dir;
  });

  it('listens on loopback only, and says so at start', async () => {
    expect(node.log()).toContainEqual(expect.objectContaining({ level: 30, msg: expect.stringMatching(/^Listening on loopback only \(127\.0\.0\.1\)/) }));
    const address = externalAddress();
    if (address !== undefined) {
      await expect(request(`http://${address}:${node.port}/health`, { headersTimeout: 2000 })).rejects.toThrow(/ECONNREFUSED/);
    }
  });

  it('refuses a deploy that names a module, and loads nothing', async () => {
    const marker = path.join(workDir, 'setter-was-loaded');
    const setter = path.join(workDir, 'setter.js');
    fs.writeFileSync(setter, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded'); module.exports = () => undefined;\n`);
    const answer = await call(node, 'POST', '/api/v1/streams', {
      type: 'cluster-queries',
      config: { 'application.id': 'x', 'embeddedstore.config.setter': setter },
    });
    expect([answer.status, answer.json()]).toEqual([
      400,
      expect.objectContaining({ error_code: 400, exception: 'ConfigKeyNotAllowed', message: expect.stringContaining("'embeddedstore.config.setter'"), path: '/api/v1/streams' }),
    ]);
    expect(fs.existsSync(marker)).toBe(false);
    expect((await call(node, 'GET', '/api/v1/streams')).json()).not.toContain('x');
  });

  it('refuses the application id .. wherever it enters, and touches nothing outside the state directory', async () => {
    // Beside the state directory: a sentinel that the old defect would have deleted with its parent.
    const sentinel = path.join(appDir, 'sentinel');
    fs.mkdirSync(sentinel, { recursive: true });
    fs.writeFileSync(path.join(sentinel, 'keep.txt'), 'keep');
    const before = fs.readdirSync(appDir).sort();

    const deploys = [
      [{ 'application.id': '..', 'state.dir': path.join(node.stateDir, 'sub') }, 'ConfigKeyNotAllowed'],
      [{ 'application.id': '..' }, 'InvalidApplicationId'],
      [{ 'application.id': '.' }, 'InvalidApplicationId'],
      [{ 'application.id': '../sentinel' }, 'InvalidApplicationId'],
    ] as const;
    for (const [config, exception] of deploys) {
      const answer = await call(node, 'POST', '/api/v1/streams', { type: 'cluster-queries', config });
      expect([answer.status, answer.json().exception]).toEqual([400, exception]);
    }
    const named = await call(node, 'POST', '/api/v1/streams', { type: 'cluster-queries', name: '..' });
    expect([named.status, named.json().exception]).toEqual([400, 'InvalidApplicationId']);

    const cleanup = JSON.stringify({ cleanup: true });
    for (const [method, target] of [
      ['DELETE', '/api/v1/streams/%2E%2E/stop'],
      ['POST', '/api/v1/streams/../stop'],
      ['DELETE', '/api/v1/streams/%2e%2e'],
      ['DELETE', '/api/v1/streams/..%2Fsentinel'],
    ]) {
      const { text } = await rawExchange(
        node.port,
        `${method} ${target} HTTP/1.1\r\nHost: sluice\r\nContent-Type: application/json\r\nContent-Length: ${cleanup.length}\r\nConnection: close\r\n\r\n${cleanup}`,
      );
      const answer = firstResponse(text);
      expect([target, answer.status, answer.body.exception]).toEqual([target, 400, 'InvalidApplicationId']);
    }
    expect(fs.readdirSync(appDir).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(sentinel, 'keep.txt'), 'utf8')).toBe('keep');
    expect(fs.existsSync(node.stateDir)).toBe(true);
  });

  it('refuses an id too long for the API at deploy; the longest legal one is deployed, read and stopped', async () => {
    const tooLong = await call(node, 'POST', '/api/v1/streams', { type: 'cluster-queries', name: 'y'.repeat(101) });
    expect([tooLong.status, tooLong.json().exception]).toEqual([400, 'InvalidApplicationId']);
    const id = 'z'.repeat(100);
    expect((await call(node, 'POST', '/api/v1/streams', { type: 'cluster-queries', name: id })).status).toBe(201);
    expect((await call(node, 'GET', `/api/v1/streams/${id}`)).status).toBe(200);
    expect((await call(node, 'DELETE', `/api/v1/streams/${id}`, { cleanup: true })).json()).toEqual({ id, state: 'STOPPED' });
  });

  it('HEAD on a subscribe route answers the headers at once and frees the connection', async () => {
    const id = ((await call(node, 'GET', '/api/v1/streams')).json() as unknown as string[])[0]!;
    const { text, elapsedMs } = await rawExchange(
      node.port,
      `HEAD /api/v1/streams/${id}/subscribe/state HTTP/1.1\r\nHost: sluice\r\n\r\nGET /health/liveness HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n`,
    );
    const [head, next] = text.split(/(?=HTTP\/1\.1 )/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream; charset=utf-8\r\n[\s\S]*\r\n\r\n$/);
    expect(firstResponse(next!).body).toEqual({ status: 'UP' });
    expect(elapsedMs).toBeLessThan(5000);
  });

  it('cuts off a request whose body never completes, with a 408 and the error body', async () => {
    const { text, elapsedMs, closed } = await rawExchange(
      node.port,
      'POST /api/v1/streams HTTP/1.1\r\nHost: sluice\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type": "cluster-',
    );
    expect(closed).toBe(true);
    expect(elapsedMs).toBeLessThan(5000);
    const answer = firstResponse(text);
    expect([answer.status, answer.body]).toEqual([408, expect.objectContaining({ error_code: 408, exception: 'RequestTimeout', path: '/api/v1/streams' })]);
  });

  it.each([
    ['bad percent-encoding', 'GET /api/v1/streams/%ff HTTP/1.1', 400, 'InvalidRequest', '/api/v1/streams/%ff'],
    ['a path segment over 100 characters', `GET /api/v1/streams/${'s'.repeat(101)}/config HTTP/1.1`, 414, 'UriTooLong', `/api/v1/streams/${'s'.repeat(101)}/config`],
    ['a very long URL', `GET /api/v1/streams?q=${'q'.repeat(20_000)} HTTP/1.1`, 431, 'HeadersTooLarge', undefined],
    ['an unknown method', 'FROB /api/v1/streams HTTP/1.1', 400, 'InvalidRequest', '/api/v1/streams'],
    ['a method no route serves', 'PROPFIND /api/v1/streams HTTP/1.1', 405, 'MethodNotAllowed', '/api/v1/streams'],
  ])('%s: the documented error body', async (_what, line, status, exception, requestPath) => {
    const { text } = await rawExchange(node.port, `${line}\r\nHost: sluice\r\nConnection: close\r\n\r\n`);
    const answer = firstResponse(text);
    expect(answer.headers).toContain('content-type: application/json; charset=utf-8');
    expect([answer.status, answer.body]).toEqual([
      status,
      expect.objectContaining({ error_code: status, exception, message: expect.any(String), path: requestPath ?? expect.any(String) }),
    ]);
  });

  it('shows its secrets nowhere: config resource, instance description, event streams, logs', async () => {
    const id = ((await call(node, 'GET', '/api/v1/streams')).json() as unknown as string[])[0]!;
    const config = (await call(node, 'GET', `/api/v1/streams/${id}/config`)).json();
    for (const key of Object.keys(SECRETS)) expect([key, config[key]]).toEqual([key, '[hidden]']);
    const events = await rawExchange(node.port, `GET /api/v1/streams/${id}/subscribe/state HTTP/1.1\r\nHost: sluice\r\n\r\n`, {
      waitMs: 3000,
      until: (text) => text.includes('event: state'),
    });
    const shown = [
      JSON.stringify(config),
      (await call(node, 'GET', `/api/v1/streams/${id}`)).text,
      (await call(node, 'GET', `/api/v1/applications/${id}`)).text,
      events.text,
      node.log().map((line) => line.text).join('\n'),
    ].join('\n');
    for (const secret of ['SECRET-KEY-1', 'SECRET-PASSWORD-2', 'SECRET-JAAS-3']) expect(shown).not.toContain(secret);
  });

  it('logged no error for any of it', () => {
    expect(errorsLogged(node)).toEqual([]);
  });
});

describe('a node with users', () => {
  it('answers 401 to user names that are properties of every object, and logs no error', async () => {
    const node = await startNode('users', { server: { users: { admin: { password: await hashPassword('s3cret'), role: 'operator' } } } });
    const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      for (const [method, pathname] of [
        ['GET', '/api/v1/streams'],
        ['POST', '/api/v1/streams'],
      ] as const) {
        const answer = await call(node, method, pathname, method === 'POST' ? { type: 'cluster-queries' } : undefined, basic(`${name}:x`));
        expect([name, answer.status, answer.json().exception]).toEqual([name, 401, 'Unauthorized']);
      }
    }
    expect((await call(node, 'GET', '/api/v1/streams', undefined, basic('admin:s3cret'))).status).toBe(200);
    expect(errorsLogged(node)).toEqual([]);
  });
});

describe('a node told to listen on all interfaces', () => {
  it('refuses to start without users, naming the way to allow it', async () => {
    await expect(startNode('exposed', { server: { host: '0.0.0.0' } })).rejects.toThrow(
      /exited with 2[\s\S]*server\.host '0\.0\.0\.0' lets other machines reach the API[\s\S]*allowUnauthenticated/,
    );
  });

  it('starts when allowed explicitly, and warns that it serves without authentication', async () => {
    const node = await startNode('allowed', { server: { host: '0.0.0.0', allowUnauthenticated: true } });
    // The notice follows 'Sluice started', which may be written after the port already answers.
    const notice = (line: { level?: number; msg?: unknown }) => line.level === 40 && String(line.msg).includes('Serving 0.0.0.0 without authentication');
    await waitFor(() => node.log().some(notice), 'the unauthenticated-serving notice', 10_000);
    expect(node.log().filter(notice)).toHaveLength(1);
  });
});
