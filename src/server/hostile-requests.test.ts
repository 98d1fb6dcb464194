/**
 * Requests a hostile client sends: configuration that would make the node load a module or write elsewhere, ids that
 * name directories, user names that are Object.prototype's, store query keys nested deep enough to overflow the
 * stack, malformed URLs and requests that never finish. Each gets the documented 4xx error body, and nothing behind
 * it happens. And connections that send nothing, or too many of them.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pino from 'pino';
import { PeerClient } from '../cluster/peer-client';
import { MAX_KEY_DEPTH } from '../query/parse';
import { QueryService } from '../query/query-service';
import { builders, FakeView, openStores } from '../query/testing/fake-view';
import { makeTestCertificates } from '../streams/kafka/testing/certificates';
import { MAX_APPLICATION_ID_LENGTH } from '../streams/runtime/application-id';
import { jsonSerde } from '../streams/serdes/json';
import type { StateStore } from '../streams/state/store';
import { buildServer, type ServerOptions } from './app';
import type { UserSpec } from './auth/users';
import { MAX_PATH_SEGMENT_LENGTH } from './error-handling';
import { errorBody } from './schemas/common';
import { FakeQueries, FakeRegistry } from './testing/fake-instances';
import { expectMatchesSchema } from './testing/schema-check';

let registry: FakeRegistry;
let app: FastifyInstance;
let logged: string[];

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  await app?.close();
  registry = new FakeRegistry('wc');
  logged = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (logged.push(String(chunk)), done()) });
  app = await buildServer({ instances: registry, queries: new FakeQueries(), logger: pino({ level: 'debug' }, sink), ...options });
}

beforeEach(() => start());
afterAll(() => app.close());

/** Asserts the documented error body and answers it. */
async function expectError(options: InjectOptions, status: number, exception: string): Promise<{ message: string; path: string }> {
  const response = await app.inject(options);
  expect([response.statusCode, response.headers['content-type']]).toEqual([status, 'application/json; charset=utf-8']);
  const body = response.json() as { message: string; path: string };
  expectMatchesSchema(errorBody, body);
  expect(body).toEqual(expect.objectContaining({ error_code: status, exception }));
  return body;
}

describe('deploying with configuration from the API', () => {
  it.each([
    ['embeddedstore.config.setter', '/some/file.js'],
    ['state.dir', '/data/sub'],
    ['log.dir', '/data/logs'],
    ['log.maxFileSize', 1],
    ['bootstrap.servers', 'elsewhere:9092'],
    ['application.server', 'elsewhere:8080'],
    ['grpc.endpoint', 'elsewhere:9090'],
    ['consumer.ssl.keystore.location', '/etc/passwd'],
    ['producer.sasl.jaas.config', 'x'],
    ['consumer.interceptor.classes', './interceptor.js'],
    ['security.protocol', 'SSL'],
    ['rocksdb.config.setter', './setter.js'],
  ])('refuses %s with a 400 naming the key, and deploys nothing', async (key, value) => {
    const body = await expectError(
      { method: 'POST', url: '/api/v1/streams', payload: { type: 'word-count', config: { 'application.id': 'x', [key]: value } } },
      400,
      'ConfigKeyNotAllowed',
    );
    expect(body.message).toContain(`'${key}'`);
    expect(body.path).toBe('/api/v1/streams');
    expect(registry.deploys).toEqual([]);
    expect(registry.get('x')).toBeUndefined();
  });

  it('accepts streams and client tuning', async () => {
    const config = {
      'application.id': 'tuned',
      'num.stream.threads': 2,
      'commit.interval.ms': 500,
      'processing.guarantee': 'exactly_once_v2',
      'cache.max.bytes.buffering': 0,
      'consumer.max.poll.records': 100,
      'producer.linger.ms': 5,
      'restore.consumer.fetch.max.bytes': 1024,
      'global.consumer.fetch.max.bytes': 2048,
      'topic.retention.ms': 1000,
    };
    const response = await app.inject({ method: 'POST', url: '/api/v1/streams', payload: { type: 'word-count', config } });
    expect([response.statusCode, response.json()]).toEqual([201, { id: 'tuned' }]);
    expect(registry.deploys).toEqual([{ type: 'word-count', config }]);
  });

  it('lists the keys it accepts in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: { config: { description: string } } } }> } } }>;
    };
    const description = document.paths['/api/v1/streams']!.post.requestBody.content['application/json']!.schema.properties.config.description;
    expect(description).toContain('num.stream.threads');
    expect(description).not.toContain('state.dir');
  });
});

describe('application ids in the path', () => {
  // `%2E%2E` and `..` are in the socket tests below: inject's URL parser resolves them as dot segments.
  it.each(['a%2Fb', '..%2F..%2Fetc', 'a%20b', 'w%C3%B6rd', 'a%00'])('%s is a 400 before anything is looked up or stopped', async (id) => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['DELETE', '/stop'],
      ['POST', '/stop'],
      ['POST', '/restart'],
      ['GET', '/subscribe/state'],
    ] as const) {
      await expectError({ method, url: `/api/v1/streams/${id}${suffix}`, payload: method === 'GET' ? undefined : { cleanup: true } }, 400, 'InvalidApplicationId');
    }
    await expectError({ method: 'GET', url: `/api/v1/applications/${id}` }, 400, 'InvalidApplicationId');
    expect(registry.stops).toEqual([]);
    expect(registry.list().map((instance) => instance.id)).toEqual(['wc']);
  });

  it('fit the router: the longest legal id is looked up, a longer segment is a 414 with the error body', async () => {
    expect(MAX_APPLICATION_ID_LENGTH).toBeLessThanOrEqual(MAX_PATH_SEGMENT_LENGTH);
    await expectError({ method: 'GET', url: `/api/v1/streams/${'x'.repeat(MAX_APPLICATION_ID_LENGTH)}` }, 404, 'UnknownApplication');
    const long = `/api/v1/streams/${'x'.repeat(MAX_PATH_SEGMENT_LENGTH + 1)}`;
    const body = await expectError({ method: 'DELETE', url: `${long}/stop` }, 414, 'UriTooLong');
    expect(body.path).toBe(`${long}/stop`);
  });
});

describe('malformed URLs', () => {
  it.each(['/api/v1/streams/%ff', '/api/v1/streams/%E0%A4%A', '/api/v1/applications/%zz/topology'])('%s: 400 with the error body', async (url) => {
    const body = await expectError({ method: 'GET', url }, 400, 'InvalidRequest');
    expect(body.path).toBe(url);
  });

});

describe('user names that are properties of every object', () => {
  const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])('%s gets a 401, logged only as a failed login', async (name) => {
    await start({ access: { users: { admin: { password: 's3cret', role: 'operator' } }, allowPlaintextPasswords: true } });
    logged = [];
    for (const password of ['', 'x', 's3cret']) {
      await expectError({ method: 'GET', url: '/api/v1/streams', headers: basic(`${name}:${password}`) }, 401, 'Unauthorized');
    }
    await expectError({ method: 'POST', url: '/api/v1/streams/wc/restart', headers: basic(`${name}:x`) }, 401, 'Unauthorized');
    expect(logged.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      Array(4).fill(expect.objectContaining({ level: 40, msg: 'Failed login', failedLogin: expect.objectContaining({ reason: 'unknown user' }) })),
    );
    expect(logged.join('')).not.toContain(name);
  });

  it('a configured user of such a name is just a user', async () => {
    const users = JSON.parse('{"__proto__": {"password": "pw", "role": "viewer"}, "admin": {"password": "s3cret", "role": "operator"}}') as Record<string, UserSpec>;
    await start({ access: { users, allowPlaintextPasswords: true } });
    expect((await app.inject({ method: 'GET', url: '/api/v1/streams', headers: basic('__proto__:pw') })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/v1/streams', headers: basic('admin:s3cret') })).statusCode).toBe(200);
    await expectError({ method: 'GET', url: '/api/v1/streams', headers: basic('__proto__:s3cret') }, 401, 'Unauthorized');
  });
});

describe('store query keys nested deeper than any key', () => {
  // 20 000 levels of arrays, 39 KiB: written as text, since building it as a value and serializing it overflows the stack.
  const DEEP = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const peers = new PeerClient();
  const STORES = { key_value: 'kv', timestamped_key_value: 'tkv', window: 'win', timestamped_window: 'twin', session: 'sessions', versioned_key_value: 'versions' };

  beforeEach(async () => {
    const stores = new Map<string, Map<number, StateStore>>([
      [STORES.key_value, openStores([0, 1], builders.keyValue(STORES.key_value, jsonSerde, jsonSerde))],
      [STORES.timestamped_key_value, openStores([0, 1], builders.timestampedKeyValue(STORES.timestamped_key_value, jsonSerde, jsonSerde))],
      [STORES.window, openStores([0, 1], builders.window(STORES.window, 1000, jsonSerde, jsonSerde))],
      [STORES.timestamped_window, openStores([0, 1], builders.timestampedWindow(STORES.timestamped_window, 1000, jsonSerde, jsonSerde))],
      [STORES.session, openStores([0, 1], builders.session(STORES.session, jsonSerde, jsonSerde))],
      [STORES.versioned_key_value, openStores([0, 1], builders.versioned(STORES.versioned_key_value, jsonSerde, jsonSerde))],
    ]);
    const view = new FakeView('app', stores, [{ endpoint: 'node-a:8080', partitions: [0, 1], isLocal: true }], 2, jsonSerde);
    const instances = new FakeRegistry('app');
    instances.get('app')!.view = view.asView();
    await start({ instances, queries: new QueryService({ applications: (id) => (id === 'app' ? view.asView() : undefined), localServer: 'node-a:8080', peers }) });
  });
  afterAll(() => peers.close());

  const cases: [keyof typeof STORES, string, Record<string, string>][] = [
    ['key_value', 'get', { key: '"a"' }],
    ['key_value', 'range', { key_from: '"a"', key_to: '"z"' }],
    ['key_value', 'reverse_range', { key_from: '"a"', key_to: '"z"' }],
    ['key_value', 'prefix_scan', { prefix: '"a"' }],
    ['timestamped_key_value', 'get', { key: '"a"' }],
    ['timestamped_key_value', 'range', { key_from: '"a"', key_to: '"z"' }],
    ['window', 'fetch', { key: '"a"', time: '0' }],
    ['window', 'fetch_key_range', { key_from: '"a"', key_to: '"z"', time_from: '0', time_to: '10' }],
    ['window', 'fetch_time_range', { key: '"a"', time_from: '0', time_to: '10' }],
    ['timestamped_window', 'fetch_key_range', { key_from: '"a"', key_to: '"z"', time_from: '0', time_to: '10' }],
    ['session', 'fetch', { key: '"a"' }],
    ['session', 'fetch_key_range', { key_from: '"a"', key_to: '"z"' }],
    ['versioned_key_value', 'get', { key: '"a"', as_of: '10' }],
  ];
  const deepCases = cases.flatMap(([type, clause, params]) =>
    Object.keys(params)
      .filter((name) => !/time|as_of/.test(name))
      .map((deep) => [type, clause, deep, Object.entries(params).map(([name, json]) => `"${name}":${name === deep ? DEEP : json}`).join(',')] as const),
  );

  it.each(deepCases)('%s %s with a deep %s: 400 InvalidQuery with the error body, nothing logged as an error', async (type, clause, deep, params) => {
    for (const [route, options] of [['', ''], ['/records', ''], ['', ',"set_options":{"limit":1}']] as const) {
      const url = `/api/v1/applications/app/stores/${STORES[type]}${route}`;
      const body = await expectError(
        { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: `{"type":"${type}","query":{"${clause}":{${params}}}${options}}` },
        400,
        'InvalidQuery',
      );
      expect(body.message).toContain(`parameter '${deep}' nests more than ${MAX_KEY_DEPTH} levels`);
      expect(body.path).toBe(url);
    }
    expect(logged.map((line) => (JSON.parse(line) as { level: number }).level).filter((level) => level >= 50)).toEqual([]);
  });
});

describe("what Node's HTTP parser refuses, over a real socket", () => {
  let port: number;

  beforeEach(async () => {
    await start({ timeouts: { requestMs: 500, headersMs: 500 } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  /** Sends `text` and collects the answer until the server closes the connection. */
  function exchange(text: string, waitMs = 5000): Promise<{ answer: string; elapsedMs: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', () => undefined);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no close within ${waitMs} ms; got ${JSON.stringify(answer.slice(0, 200))}`));
      }, waitMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ answer, elapsedMs: Date.now() - started });
      });
    });
  }

  function errorOf(answer: string, status: number): Record<string, unknown> {
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expectMatchesSchema(errorBody, body);
    return body;
  }

  it.each(['%2E%2E', '..', '%2e', '.', '%2E%2E%2F%2E%2E'])('the application id %s: 400 with the error body, nothing stopped', async (id) => {
    const body = JSON.stringify({ cleanup: true });
    const { answer } = await exchange(
      `DELETE /api/v1/streams/${id}/stop HTTP/1.1\r\nHost: sluice\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(errorOf(answer, 400)).toEqual(expect.objectContaining({ exception: 'InvalidApplicationId', path: `/api/v1/streams/${id}/stop` }));
    expect(registry.stops).toEqual([]);
  });

  it('headers over the limit (a very long URL): 431 with the error body', async () => {
    const { answer } = await exchange(`GET /api/v1/streams?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: sluice\r\n\r\n`);
    expect(errorOf(answer, 431)).toEqual(expect.objectContaining({ error_code: 431, exception: 'HeadersTooLarge' }));
  });

  it('an unknown method: 400 with the error body', async () => {
    const { answer } = await exchange('FROB /api/v1/streams HTTP/1.1\r\nHost: sluice\r\n\r\n');
    expect(errorOf(answer, 400)).toEqual(expect.objectContaining({ error_code: 400, exception: 'InvalidRequest' }));
  });

  it('a method Node knows and no route serves: 405 with the error body', async () => {
    const { answer } = await exchange('PROPFIND /api/v1/streams HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n');
    expect(errorOf(answer, 405)).toEqual(expect.objectContaining({ exception: 'MethodNotAllowed', path: '/api/v1/streams' }));
  });

  it('CONNECT: 404 with the error body', async () => {
    const { answer } = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(errorOf(answer, 404)).toEqual(expect.objectContaining({ exception: 'RouteNotFound', path: 'example.com:443' }));
  });

  it('a body that stalls is cut off by the request timeout: 408 with the error body, and the deploy never happens', async () => {
    const { answer, elapsedMs } = await exchange(
      'POST /api/v1/streams HTTP/1.1\r\nHost: sluice\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":',
    );
    expect(errorOf(answer, 408)).toEqual(expect.objectContaining({ exception: 'RequestTimeout', path: '/api/v1/streams' }));
    expect(elapsedMs).toBeLessThan(3000);
    expect(registry.deploys).toEqual([]);
  });

  it('headers that stall are cut off too', async () => {
    const { answer } = await exchange('GET /api/v1/streams HTTP/1.1\r\nHost: sluice\r\nX-Slow: ');
    expect(errorOf(answer, 408)).toEqual(expect.objectContaining({ exception: 'RequestTimeout' }));
  });
});

describe('connections that send nothing, and more connections than the cap', () => {
  const headersMs = 500;
  const opened: net.Socket[] = [];
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

  // What a failed test leaves open would hold up closing the server.
  afterEach(() => {
    opened.splice(0).forEach((socket) => socket.destroy());
    keepAlive.destroy();
  });

  async function listen(options: Partial<ServerOptions>): Promise<number> {
    await start({ timeouts: { headersMs }, ...options });
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as AddressInfo).port;
  }

  /** Resolves with what the server sent and how long it took once the connection closes; rejects after `waitMs`. */
  function closed(socket: net.Socket, waitMs = 5000): Promise<{ answer: string; elapsedMs: number }> {
    const started = Date.now();
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`still open after ${waitMs} ms`));
      }, waitMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ answer, elapsedMs: Date.now() - started });
      });
    });
  }

  function connectIdle(port: number): Promise<net.Socket> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      opened.push(socket);
    });
  }

  async function serverHolds(count: number): Promise<void> {
    const held = () => new Promise<number>((resolve, reject) => app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    while ((await held()) !== count) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  function get(port: number, agent: http.Agent | false = false): Promise<number> {
    return new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/api/v1/streams', agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      }).on('error', reject);
    });
  }

  it('over HTTP, one that sends nothing is closed after the headers timeout', async () => {
    const port = await listen({});
    const sockets = await Promise.all(Array.from({ length: 5 }, () => connectIdle(port)));
    for (const { elapsedMs } of await Promise.all(sockets.map((socket) => closed(socket)))) expect(elapsedMs).toBeLessThan(headersMs + 2000);
  });

  it('over HTTPS, one that sends nothing is closed after the headers timeout, before its handshake or after it', async () => {
    const certificates = makeTestCertificates(['127.0.0.1'], 'key-password');
    const port = await listen({ https: { cert: certificates.broker.chain, key: certificates.broker.key } });
    const raw = await Promise.all(Array.from({ length: 5 }, () => connectIdle(port)));
    for (const { elapsedMs } of await Promise.all(raw.map((socket) => closed(socket)))) expect(elapsedMs).toBeLessThan(headersMs + 2000);

    const secured = await new Promise<tls.TLSSocket>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: certificates.ca }, () => resolve(socket));
      opened.push(socket);
    });
    const { answer, elapsedMs } = await closed(secured);
    expect(elapsedMs).toBeLessThan(headersMs + 2000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('past the cap, a new connection is closed as it is accepted and logged once; those held are served, and new ones once one is free', async () => {
    const port = await listen({ maxConnections: 3, timeouts: { headersMs: 10_000 } });
    expect(await get(port, keepAlive)).toBe(200);
    const idle = await Promise.all([connectIdle(port), connectIdle(port)]);
    await serverHolds(3);

    const refused = await Promise.all(Array.from({ length: 4 }, async () => closed(await connectIdle(port), 2000)));
    expect(refused.map(({ answer }) => answer)).toEqual(['', '', '', '']);
    expect(await get(port, keepAlive)).toBe(200);
    const warnings = logged.map((line) => JSON.parse(line) as { level: number; msg: string }).filter(({ msg }) => msg.startsWith('Refusing new connections'));
    expect(warnings).toEqual([expect.objectContaining({ level: 40, maxConnections: 3 })]);
    expect(warnings[0]!.msg).toContain('server.maxConnections');

    idle[0]!.destroy();
    await serverHolds(2);
    expect(await get(port)).toBe(200);
    expect(logged.join('')).toContain('after refusing 4 at the cap');
  });
});
