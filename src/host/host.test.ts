import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { StreamsBuilder } from '../streams/kstream/streams-builder';
import type { HostConfig } from './config/host-config';
import { SluiceHost } from './host';
import { fakeRuntimes } from './testing/fake-runtime';
import type { TopologyDefinition } from './topology-definition';
import { testServerConfig } from './testing/server-config';

const passThrough: TopologyDefinition = {
  name: 'io.sluice.test.PassThrough',
  version: '2.0.0',
  description: 'Copies in to out',
  aliases: ['pass-through'],
  defaults: { 'default.value.serde': 'json', 'commit.interval.ms': 5 },
  build: () => {
    const builder = new StreamsBuilder();
    builder.stream('in').to('out');
    return builder.build();
  },
};

function config(overrides: Partial<HostConfig> = {}): HostConfig {
  return {
    server: testServerConfig(),
    log: { level: 'silent' },
    streams: { 'bootstrap.servers': 'localhost:9092', 'commit.interval.ms': 1000 },
    topologies: [],
    instances: [{ topology: 'pass-through', config: { 'num.stream.threads': 2 } }],
    shutdownTimeoutMs: 1000,
    ...overrides,
  };
}

const hosts: SluiceHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

async function startHost(hostConfig = config(), logger = pino({ level: 'silent' })) {
  const runtimes = fakeRuntimes();
  const host = await SluiceHost.start({
    config: hostConfig,
    topologies: [passThrough],
    logger,
    createRuntime: runtimes.factory,
  });
  hosts.push(host);
  const get = async (url: string) => {
    const response = await request(`${host.url}${url}`);
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
  };
  const send = async (method: 'POST' | 'DELETE', url: string, body?: unknown) => {
    const response = await request(`${host.url}${url}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
  };
  return { host, runtimes, get, send };
}

describe('SluiceHost', () => {
  it('listens, then starts the configured instances with application.server and grpc.endpoint set to this node', async () => {
    const { host, runtimes, get } = await startHost();
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(host.applicationServer).toBe(host.url.slice('http://'.length));
    expect(runtimes.made).toHaveLength(1);
    const instance = (await get('/api/v1/streams/pass-through')).body;
    expect(instance).toEqual(expect.objectContaining({ id: 'pass-through', name: 'io.sluice.test.PassThrough', version: '2.0.0', description: 'Copies in to out' }));
    const effective = (await get('/api/v1/streams/pass-through/config')).body;
    // Topology defaults < host streams config < instance config.
    expect(effective).toEqual(
      expect.objectContaining({
        'application.id': 'pass-through',
        'application.server': host.applicationServer,
        'default.value.serde': 'json',
        'commit.interval.ms': 1000,
        'num.stream.threads': 2,
        'grpc.endpoint': expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      }),
    );
    expect((await get('/api/v1/topologies')).body).toEqual([
      { name: 'io.sluice.test.PassThrough', version: '2.0.0', description: 'Copies in to out', aliases: ['pass-through'] },
    ]);
  });

  it('deploys, restarts and stops through the API; stop and remove clean up', async () => {
    const { runtimes, get, send } = await startHost();
    const deployed = await send('POST', '/api/v1/streams', { type: 'io.sluice.test.PassThrough', version: 'latest', name: 'copy-2', description: 'second' });
    expect(deployed).toEqual({ status: 201, body: { id: 'copy-2' } });
    expect((await get('/api/v1/streams')).body).toEqual(['pass-through', 'copy-2']);
    expect((await get('/api/v1/streams/copy-2')).body).toEqual(expect.objectContaining({ description: 'second' }));
    expect((await send('POST', '/api/v1/streams', { type: 'pass-through', name: 'copy-2' })).status).toBe(409);
    expect((await send('POST', '/api/v1/streams', { type: 'pass-through', name: 'bad', config: { 'no.such.key': 1 } })).body).toEqual(
      expect.objectContaining({ error_code: 400, exception: 'ConfigException', message: "Invalid configuration: unknown configuration key 'no.such.key'" }),
    );

    const stopped = await send('DELETE', '/api/v1/streams/copy-2/stop', { cleanup: true });
    expect(stopped.body).toEqual({ id: 'copy-2', state: 'STOPPED' });
    const copy = runtimes.made.find((r) => r.applicationId === 'copy-2')!;
    expect(copy.cleanedUp).toBe(1);
    const restarted = await send('POST', '/api/v1/streams/copy-2/restart');
    expect(restarted.status).toBe(200);
    const deadline = Date.now() + 2000;
    while (runtimes.made.filter((r) => r.applicationId === 'copy-2').length < 2) {
      if (Date.now() > deadline) throw new Error('no restart');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(((await get('/api/v1/streams/copy-2')).body.state as { state: string }).state).toBe('REBALANCING');
    expect((await send('DELETE', '/api/v1/streams/copy-2')).body).toEqual({ id: 'copy-2', state: 'STOPPED' });
    expect((await get('/api/v1/streams')).body).toEqual(['pass-through']);
  });

  it('stop closes the instances, then the server', async () => {
    const { host, runtimes } = await startHost();
    const runtime = runtimes.made[0]!;
    runtime.run();
    const seen: string[] = [];
    runtime.on('state', (change) => seen.push(change.state));
    await host.stop();
    expect(seen).toEqual(['PENDING_SHUTDOWN', 'NOT_RUNNING']);
    await expect(request(`${host.url}/health`)).rejects.toThrow();
  });

  it('reports a bad instance configuration or an unknown topology before listening', async () => {
    await expect(startHost(config({ instances: [{ topology: 'nope' }] }))).rejects.toThrow("No topology named 'nope'");
    await expect(startHost(config({ instances: [{ topology: 'pass-through', config: { 'num.stream.threads': 'two' } }] }))).rejects.toThrow(
      "'num.stream.threads' must be an integer",
    );
  });

  it('loads topology modules named in the configuration', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-module-'));
    const builder = require.resolve('../streams/kstream/streams-builder');
    fs.writeFileSync(
      path.join(dir, 'topologies.js'),
      `const { StreamsBuilder } = require(${JSON.stringify(builder)});
       exports.copy = { name: 'io.example.Copy', version: '1', aliases: ['copy'], build: () => { const b = new StreamsBuilder(); b.stream('a').to('b'); return b.build(); } };`,
    );
    try {
      const { get } = await startHost(config({ topologies: [{ module: path.join(dir, 'topologies.js') }], instances: [{ topology: 'copy' }] }));
      expect((await get('/api/v1/streams')).body).toEqual(['copy']);
      await expect(startHost(config({ topologies: [{ module: path.join(dir, 'missing.js') }] }))).rejects.toThrow(
        /cannot load topology module '.*missing\.js'/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ name: '..' }, 'InvalidApplicationId'],
    [{ name: '.' }, 'InvalidApplicationId'],
    [{ name: 'a/b' }, 'InvalidApplicationId'],
    [{ config: { 'application.id': '..' } }, 'InvalidApplicationId'],
    [{ name: 'x'.repeat(101) }, 'InvalidApplicationId'],
    [{ config: { 'application.id': 'x', 'state.dir': '/data/sub' } }, 'ConfigKeyNotAllowed'],
  ])('refuses to deploy %j with a 400: no runtime is made, nothing is listed', async (body, exception) => {
    const { runtimes, get, send } = await startHost();
    const answer = await send('POST', '/api/v1/streams', { type: 'pass-through', ...body });
    expect(answer).toEqual({ status: 400, body: expect.objectContaining({ error_code: 400, exception, path: '/api/v1/streams' }) });
    expect(runtimes.made.map((runtime) => runtime.applicationId)).toEqual(['pass-through']);
    expect((await get('/api/v1/streams')).body).toEqual(['pass-through']);
  });

  it('deploys the longest legal id, and reads and stops it', async () => {
    const { get, send } = await startHost();
    const id = 'x'.repeat(100);
    expect(await send('POST', '/api/v1/streams', { type: 'pass-through', name: id })).toEqual({ status: 201, body: { id } });
    expect((await get(`/api/v1/streams/${id}`)).status).toBe(200);
    expect((await send('DELETE', `/api/v1/streams/${id}/stop`, { cleanup: true })).body).toEqual({ id, state: 'STOPPED' });
  });

  it('refuses an illegal application id in the configuration file before listening', async () => {
    await expect(startHost(config({ instances: [{ topology: 'pass-through', applicationId: '..' }] }))).rejects.toThrow(
      "Invalid application id '..'",
    );
  });

  describe('whom it serves', () => {
    function capture() {
      const lines: { level: number; msg: string }[] = [];
      const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk)) as { level: number; msg: string }), done()) });
      return { lines, logger: pino({ level: 'info' }, sink) };
    }

    it('says at start that it listens on loopback only', async () => {
      const { lines, logger } = capture();
      await startHost(config(), logger);
      expect(lines).toContainEqual(expect.objectContaining({ level: 30, msg: expect.stringMatching(/^Listening on loopback only \(127\.0\.0\.1\)/) }));
    });

    it('refuses another interface without users before listening, unless told to serve it without authentication', async () => {
      const open = (more: object) => config({ server: { ...config().server, host: '0.0.0.0', ...more } });
      const secured = (hostConfig: HostConfig): HostConfig => ({ ...hostConfig, peers: { secret: 'peer-secret-0123456789' } });
      await expect(startHost(open({}))).rejects.toThrow(/server\.host '0\.0\.0\.0' lets other machines reach the API, and no credentials are configured/);
      const { lines, logger } = capture();
      const { host } = await startHost(open({ allowUnauthenticated: true }), logger);
      expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('Serving 0.0.0.0 without authentication') }));
      await host.stop();
      const withUsers = capture();
      const usersOnly = open({ users: { admin: { password: 's3cret', role: 'operator' } }, allowPlaintextPasswords: true });
      // Users, and a peer port that would answer anyone: refused; with the cluster secret, it starts.
      await expect(startHost(usersOnly)).rejects.toThrow(/lets other machines reach the gRPC peer port.*set peers\.secret/);
      await startHost(secured(usersOnly), withUsers.logger);
      expect(withUsers.lines).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('authenticated by the cluster secret but not encrypted') }));
      expect(withUsers.lines.map((line) => line.msg)).not.toContainEqual(expect.stringMatching(/loopback|without authentication/));
    });
  });
});
