/**
 * sluice/client and the `sluice` commands on it against a real node (the word count on the integration broker, with
 * users and API tokens): the counts they read, the resources they show, the errors they carry, the events they
 * tail, the output formats and exit codes; the commands run as the real binary (bin/sluice.js over Sluice compiled
 * for the test). A second node joins one application only for the partial answer's exit code.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SluiceApiError, SluiceClient } from '../../src/client';
import { hashApiToken, newApiToken } from '../../src/server/auth/api-tokens';
import * as applicationSchemas from '../../src/server/schemas/applications';
import * as streamSchemas from '../../src/server/schemas/streams';
import { expectMatchesSchema } from '../../src/server/testing/schema-check';
import { SluiceHost } from '../../src/host/host';
import { testServerConfig } from '../../src/host/testing/server-config';
import { createTopics } from '../../src/streams/kafka';
import { wordCountReport } from '../../examples/client-queries';
import { pageViewsTopology, type PageViewTopics } from '../../examples/page-views';
import { wordCountDefinition } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, KafkaTestClients, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor } from '../support/streams';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const REPO = path.resolve(__dirname, '../..');
const kafka = new KafkaTestClients();
const input = uniqueName('client-in');
const output = uniqueName('client-out');
const id = uniqueName('client-wc');
/** The word count again, with static members on this node and a second one: stopped, the second stays in its host map. */
const split = uniqueName('client-split');
const splitConfig = (member: string) => ({ 'group.instance.id': member, 'session.timeout.ms': 60_000, 'ssl.truststore.password': 'not-to-be-shown' });
const pageViews = uniqueName('client-pv');
const pageViewTopics: PageViewTopics = {
  pageViews: uniqueName('client-pv-views'),
  users: uniqueName('client-pv-users'),
  viewCounts: uniqueName('client-pv-counts'),
  finalViewCounts: uniqueName('client-pv-final'),
  userSessions: uniqueName('client-pv-sessions'),
  enrichedViews: uniqueName('client-pv-enriched'),
};
const token = newApiToken();
const viewerToken = newApiToken();
const stateDir = tempStateDir('sluice-client-');
let host: SluiceHost;
let client: SluiceClient;
let buildDir: string;
const secondStateDir = tempStateDir('sluice-client-b-');

/** Compiles Sluice beside the repository (so that it finds node_modules) and puts the real bin/sluice.js over it. */
function buildCli(): string {
  fs.mkdirSync(path.join(REPO, '.sluice'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(REPO, '.sluice', 'cli-test-'));
  const tsconfig = {
    extends: path.join(REPO, 'tsconfig.json'),
    compilerOptions: { outDir: path.join(dir, 'dist'), rootDir: REPO, declaration: false, sourceMap: false, noEmit: false, incremental: false },
    include: [path.join(REPO, 'src'), path.join(REPO, 'examples')],
    exclude: [path.join(REPO, '**/*.test.ts')],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  const compiled = spawnSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  if (!fs.existsSync(path.join(dir, 'dist/src/host/cli.js'))) throw new Error(`compiling Sluice failed:\n${compiled.stdout}${compiled.stderr}`);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(REPO, 'bin/sluice.js'), path.join(dir, 'bin/sluice.js'));
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sluice <args>` against the node; SLUICE_URL and the token unless the environment given says otherwise. */
function sluice(args: string[], env: NodeJS.ProcessEnv = { SLUICE_TOKEN: token }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(buildDir, 'bin/sluice.js'), ...args], {
      env: { PATH: process.env.PATH, SLUICE_URL: host.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A table's rows as objects keyed by its header. */
function rows(text: string): Record<string, string>[] {
  const [header, ...lines] = text.trimEnd().split('\n');
  const names = header!.split(/\s{2,}/);
  return lines.map((line) => Object.fromEntries(line.split(/\s{2,}/).map((cell, i) => [names[i], cell])));
}

async function refusal(run: () => Promise<unknown>): Promise<SluiceApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof SluiceApiError) return error;
    throw error;
  }
  throw new Error('expected an error answer');
}

const counts = () => client.store(id, 'count').keyValue<string, number>();
const perMinute = () => client.store(pageViews, 'page-views-per-minute').window<string, number>();
const sessions = () => client.store(pageViews, 'user-sessions').session<string, number>();
const users = () => client.store(pageViews, 'users').versionedKeyValue<string, { name: string; region: string }>();

beforeAll(async () => {
  buildDir = buildCli();
  await createTopics(await kafka.admin(), [
    { name: input, partitions: 3 },
    { name: output, partitions: 3 },
    ...Object.values(pageViewTopics).map((name) => ({ name, partitions: 2 })),
  ]);
  host = await SluiceHost.start({
    config: {
      server: testServerConfig({
        users: { alice: { password: 'alice-password', role: 'operator' } },
        allowPlaintextPasswords: true,
        tokens: [
          { name: 'ci', hash: hashApiToken(token), role: 'operator' },
          { name: 'dashboard', hash: hashApiToken(viewerToken), role: 'viewer' },
        ],
      }),
      log: { level: 'warn' },
      streams: { 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': stateDir, 'commit.interval.ms': 200 },
      topologies: [],
      instances: [
        { topology: 'word-count', applicationId: id },
        { topology: 'page-views', applicationId: pageViews },
        { topology: 'word-count', applicationId: split, config: splitConfig('node-a') },
      ],
      shutdownTimeoutMs: 30_000,
    },
    topologies: [
      wordCountDefinition(input, output),
      { name: 'io.sluice.it.PageViews', version: '1.0.0', description: 'Page views', aliases: ['page-views'], build: () => pageViewsTopology(pageViewTopics) },
    ],
    logger: testLogger,
  });
  client = new SluiceClient({ url: host.url, token });
  await waitFor(async () => (await client.instance(id)).state.state === 'RUNNING', `${id} RUNNING`, 90_000);
  const producer = await kafka.producer();
  await producer.send({ topic: input, messages: [{ value: 'kafka streams' }, { value: 'kafka sluice' }, { value: 'hello kafka' }] });
  await waitFor(async () => (await counts().get('kafka')).value === 3, 'kafka counted 3 times', 60_000);
  await waitFor(async () => (await client.instance(pageViews)).state.state === 'RUNNING', `${pageViews} RUNNING`, 90_000);
  // alice views /home, /about, and /home again a minute later; bob /home: one-minute windows and five-minute sessions.
  await producer.send({
    topic: pageViewTopics.pageViews,
    messages: [
      { key: 'alice', value: '/home', timestamp: '1000' },
      { key: 'alice', value: '/about', timestamp: '2000' },
      { key: 'bob', value: '/home', timestamp: '3000' },
      { key: 'alice', value: '/home', timestamp: '61000' },
    ],
  });
  await waitFor(async () => (await perMinute().fetch('/home', 60_000)).value === 1, '/home counted in the second minute', 60_000);
  await waitFor(async () => (await sessions().fetch('alice')).value === 3, "alice's session of 3 views", 60_000);
  // alice moves from eu to us at 1.5 s; the update that puts her in apac at 1.2 s comes last, out of order.
  await producer.send({
    topic: pageViewTopics.users,
    messages: [
      { key: 'alice', value: JSON.stringify({ name: 'Alice', region: 'eu' }), timestamp: '500' },
      { key: 'alice', value: JSON.stringify({ name: 'Alice', region: 'us' }), timestamp: '1500' },
      { key: 'alice', value: JSON.stringify({ name: 'Alice', region: 'apac' }), timestamp: '1200' },
    ],
  });
  await waitFor(async () => (await users().get('alice', 1300)).value?.region === 'apac', "alice's out-of-order update in the users table", 60_000);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await client?.close();
  await host?.stop();
  await kafka.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.rmSync(secondStateDir, { recursive: true, force: true });
  if (buildDir !== undefined) fs.rmSync(buildDir, { recursive: true, force: true });
});

describe('the client', () => {
  it('reads the word counts through every key-value clause', async () => {
    const get = await counts().get('kafka');
    expect([get.status, get.value, get.records]).toEqual(['SUCCESS', 3, [{ key: 'kafka', value: 3 }]]);
    expectMatchesSchema(applicationSchemas.storeQueryResult, get.raw);
    const byKey = (records: { key: string; value: number }[]) => Object.fromEntries(records.map((r) => [r.key, r.value]));
    expect(byKey((await counts().all()).records)).toEqual({ kafka: 3, streams: 1, sluice: 1, hello: 1 });
    expect(byKey((await counts().reverseAll()).records)).toEqual({ kafka: 3, streams: 1, sluice: 1, hello: 1 });
    expect(byKey((await counts().range('k', 'sm')).records)).toEqual({ kafka: 3, sluice: 1 });
    expect(byKey((await counts().reverseRange('k', 'sm')).records)).toEqual({ kafka: 3, sluice: 1 });
    expect(byKey((await counts().prefixScan('s')).records)).toEqual({ streams: 1, sluice: 1 });
    expect((await counts().count()).value).toBe(4);
    expect((await counts().get('absent')).value).toBeUndefined();
    // limit caps the records of each part: this node answers all in one part.
    expect((await client.store(id, 'count', { limit: 2 }).keyValue().all()).records).toHaveLength(2);
    expect(await client.queryRecords(id, 'count', { type: 'key_value', query: { get: { key: 'kafka' } } })).toEqual([{ key: 'kafka', value: 3 }]);
  });

  it('reads the page views per minute through every window clause, and the sessions through the session clauses', async () => {
    const windows = (records: { key: { key: string; window_start: number }; value: number }[]) =>
      Object.fromEntries(records.map((r) => [`${r.key.key}@${r.key.window_start}`, r.value]));
    expect((await perMinute().fetch('/home', 0)).value).toBe(2);
    expect(windows((await perMinute().fetchTimeRange('/home', 0, 60_000)).records)).toEqual({ '/home@0': 2, '/home@60000': 1 });
    expect(windows((await perMinute().fetchAll(new Date(0), new Date(60_000))).records)).toEqual({ '/home@0': 2, '/about@0': 1, '/home@60000': 1 });
    expect(windows((await perMinute().all()).records)).toEqual({ '/home@0': 2, '/about@0': 1, '/home@60000': 1 });
    expect(windows((await perMinute().fetchKeyRange('/a', '/b', 0, 60_000)).records)).toEqual({ '/about@0': 1 });
    const timestamped = await client.store(pageViews, 'page-views-per-minute').timestampedWindow<string, number>().fetch('/home', 0);
    expect(timestamped.records).toEqual([{ key: { key: '/home', window_start: 0, window_end: 60_000 }, value: 2, timestamp: 3000 }]);
    expect((await sessions().fetch('alice')).records).toEqual([{ key: { key: 'alice', window_start: 1000, window_end: 61_000 }, value: 3 }]);
    expect(windows((await sessions().fetchKeyRange('a', 'c')).records)).toEqual({ 'alice@1000': 3, 'bob@3000': 1 });
  });

  it('reads the versioned users table: the latest version, and the version valid at a time', async () => {
    expect((await users().get('alice')).records).toEqual([{ key: 'alice', value: { name: 'Alice', region: 'us' }, timestamp: 1500 }]);
    expect((await users().get('alice', new Date(1000))).records).toEqual([{ key: 'alice', value: { name: 'Alice', region: 'eu' }, timestamp: 500, valid_to: 1200 }]);
    expect((await users().get('alice', 499)).records).toEqual([]);
    const run = await sluice(['query', pageViews, 'users', 'get', 'key=alice', 'as_of=1970-01-01T00:00:01.300Z', '--type', 'versioned_key_value']);
    expect(run.code).toBe(0);
    expect(rows(run.stdout)).toEqual([{ KEY: 'alice', VALUE: '{"name":"Alice","region":"apac"}', TIMESTAMP: '1200', VALID_TO: '1500' }]);
  });

  it('shows the instance, its resources, the application, the topologies and health', async () => {
    const instance = await client.instance(id);
    expectMatchesSchema(streamSchemas.instance, instance);
    expect([instance.state.state, instance.name]).toEqual(['RUNNING', 'io.sluice.it.WordCount']);
    expect((await client.instances()).sort()).toEqual([id, pageViews, split].sort());
    expect((await client.applications()).sort()).toEqual([id, pageViews, split].sort());
    expect((await client.config(id))['application.id']).toBe(id);
    expect((await client.offsets(id)).group).toBe(id);
    expect((await client.status(id)).threads.flatMap((t) => t.active_tasks.map((task) => task.task_id)).sort()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2']);
    expect((await client.metrics(id)).map((group) => group.name)).toEqual(expect.arrayContaining(['stream-metrics', 'stream-thread-metrics']));
    expect((await client.metrics(id, { group: 'stream-metrics', name: 'alive-stream-threads' }))[0]?.metrics[0]?.value).toBe(1);
    expect(await client.metricValue(id, 'stream-metrics', 'alive-stream-threads')).toBe('1');
    expect(await client.prometheus(id)).toContain(`streams_alive_stream_threads{group="stream-metrics",application_id="${id}"`);
    const stores = (await client.topology(id)).subTopologies.flatMap((sub) => sub.nodes.flatMap((node) => node.stores ?? []));
    expect(stores).toEqual(['count']);
    expect(await client.instanceTopology(id)).toEqual(await client.topology(id));
    expect(new Set((await client.stores(id)).map((s) => `${s.store}-${s.partition}`))).toEqual(new Set(['count-0', 'count-1', 'count-2']));
    expect((await client.application(id)).instances.map((i) => [i.isLocal, i.metadata.stores])).toEqual([[true, ['count']]]);
    expect((await client.metadata(id)).metadata.stores).toEqual(['count']);
    expect(await client.subscriptions(id)).toEqual(expect.arrayContaining(['state', 'rebalance', 'restore', 'metrics']));
    expect((await client.topologies()).map((t) => t.name)).toContain('io.sluice.it.WordCount');
    expect((await client.health()).details.applications.details[id]?.status).toBe('UP');
  });

  it("the README's example prints the counts and the error it catches", async () => {
    expect(await wordCountReport(client, id, 'kafka')).toEqual([
      'kafka: 3',
      'distinct words: 4',
      'from k to l: kafka=3',
      `404 UnknownStore: Application '${id}' has no state store 'no-such-store'`,
    ]);
  });

  it('carries the error body of what the node refuses', async () => {
    const unknownStore = await refusal(() => client.store(id, 'nope').keyValue().get('kafka'));
    expect(unknownStore.body).toEqual({ error_code: 404, exception: 'UnknownStore', message: `Application '${id}' has no state store 'nope'`, path: `/api/v1/applications/${id}/stores/nope` });
    const wrongType = await refusal(() => client.store(id, 'count').window().fetch('kafka', 0));
    expect([wrongType.status, wrongType.exception]).toEqual([400, 'InvalidQuery']);
    const stranger = new SluiceClient({ url: host.url, token: newApiToken() });
    const unauthorized = await refusal(() => stranger.instances());
    await stranger.close();
    expect([unauthorized.status, unauthorized.exception]).toEqual([401, 'Unauthorized']);
  });
});

describe('the sluice command', () => {
  it('query: a get, all and count, as JSON and as a table', async () => {
    const get = await sluice(['query', id, 'count', 'get', 'key=kafka', '--output', 'json']);
    expect(get.code).toBe(0);
    const result = JSON.parse(get.stdout) as { status: string; result: { success: { records: unknown[] }[] } };
    expect([result.status, result.result.success.flatMap((part) => part.records)]).toEqual(['SUCCESS', [{ key: 'kafka', value: 3 }]]);
    const all = await sluice(['query', id, 'count', 'all']);
    expect(all.code).toBe(0);
    expect(Object.fromEntries(rows(all.stdout).map((row) => [row.KEY, row.VALUE]))).toEqual({ kafka: '3', streams: '1', sluice: '1', hello: '1' });
    const count = await sluice(['query', id, 'count', 'count', '--set', 'retries=2']);
    expect(rows(count.stdout)).toEqual([{ KEY: 'count', VALUE: '4' }]);
  });

  it('query: window clauses with ISO-8601 times, printed with their windows', async () => {
    const run = await sluice(['query', pageViews, 'page-views-per-minute', 'fetch_all', 'time_from=1970-01-01T00:00:00Z', 'time_to=60000', '--type', 'window']);
    expect(run.code).toBe(0);
    expect(rows(run.stdout).sort((a, b) => `${a.KEY}${a.WINDOW_START}`.localeCompare(`${b.KEY}${b.WINDOW_START}`))).toEqual([
      { KEY: '/about', WINDOW_START: '0', WINDOW_END: '60000', VALUE: '1' },
      { KEY: '/home', WINDOW_START: '0', WINDOW_END: '60000', VALUE: '2' },
      { KEY: '/home', WINDOW_START: '60000', WINDOW_END: '120000', VALUE: '1' },
    ]);
  });

  it('query: an unknown store prints the error body and exits non-zero; so does a missing credential', async () => {
    const unknown = await sluice(['query', id, 'nope', 'get', 'key=kafka']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`sluice: Application '${id}' has no state store 'nope' (UnknownStore, HTTP 404)\n`);
    const anonymous = await sluice(['status'], {});
    expect([anonymous.code, anonymous.stderr]).toEqual([3, 'sluice: Missing or wrong credentials (Unauthorized, HTTP 401)\n']);
    const invalid = await sluice(['query', id, 'count', 'get']);
    expect([invalid.code, invalid.stderr]).toEqual([2, 'sluice: get needs the parameter key (parameters: key)\n']);
  });

  it('status: the instances with state and health, for a user whose password comes from SLUICE_PASSWORD; one instance’s tasks', async () => {
    const list = await sluice(['status', '--user', 'alice'], { SLUICE_PASSWORD: 'alice-password' });
    expect(list.code).toBe(0);
    expect(rows(list.stdout).map((row) => [row.APPLICATION, row.STATE, row.HEALTH])).toEqual(expect.arrayContaining([[id, 'RUNNING', 'UP'], [pageViews, 'RUNNING', 'UP']]));
    const one = await sluice(['status', id, '-o', 'json']);
    const status = JSON.parse(one.stdout) as { state: string; threads: { active_tasks: { task_id: string }[] }[] };
    expect(status.state).toBe('RUNNING');
    expect(status.threads.flatMap((t) => t.active_tasks.map((task) => task.task_id)).sort()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2']);
  });

  it("topology: Kafka Streams' describe() text, with the input topic and the count store", async () => {
    const run = await sluice(['topology', id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Topologies:\n {3}Sub-topology: 0\n {4}Source: \S+ \(topics: \[/);
    expect(run.stdout).toContain(`(topics: [${input}])`);
    expect(run.stdout).toMatch(/Processor: \S+ \(stores: \[count\]\)/);
    expect(run.stdout).toContain(`(topic: ${output})`);
  });

  it('events: tails the state events until interrupted, and exits 0', async () => {
    const child = spawn(process.execPath, [path.join(buildDir, 'bin/sluice.js'), 'events', id, 'state', '-o', 'json'], {
      env: { PATH: process.env.PATH, SLUICE_URL: host.url, SLUICE_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve();
      }),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const first = JSON.parse(stdout.split('\n')[0]!) as { type: string; data: { state: string } };
    expect([first.type, first.data.state]).toEqual(['state', 'RUNNING']);
  });

  it('stop --cleanup then restart: the client sees the states go by, and the counts come back from the changelog', async () => {
    const controller = new AbortController();
    const states: string[] = [];
    const watching = (async () => {
      for await (const event of client.events(id, 'state', { signal: controller.signal })) {
        states.push((event.data as { state: string }).state);
        if (states.length > 1 && states.at(-1) === 'RUNNING') controller.abort();
      }
    })();
    await waitFor(async () => states.length > 0, 'the current state event');

    const stop = await sluice(['stop', id, '--cleanup']);
    expect([stop.code, stop.stdout]).toEqual([0, `stopped ${id}: STOPPED\n`]);
    expect(fs.existsSync(path.join(stateDir, id))).toBe(false);
    expect((await client.instance(id)).state.state).toBe('STOPPED');
    const query = await refusal(() => counts().get('kafka'));
    expect([query.status, query.exception]).toEqual([503, 'NoLocalInstance']);
    const serverError = await sluice(['query', id, 'count', 'get', 'key=kafka']);
    expect([serverError.code, serverError.stderr]).toEqual([6, expect.stringMatching(/ \(NoLocalInstance, HTTP 503\)\n$/)]);

    const restart = await sluice(['restart', id, '-o', 'json']);
    expect(restart.code).toBe(0);
    expect((JSON.parse(restart.stdout) as { id: string }).id).toBe(id);
    await watching;
    expect(states[0]).toBe('RUNNING');
    expect(states).toContain('STOPPED');
    expect(states.slice(states.lastIndexOf('STOPPED'))).toEqual(expect.arrayContaining(['REBALANCING', 'RUNNING']));
    await waitFor(async () => (await counts().get('kafka')).value === 3, 'kafka restored to 3', 60_000);
    expect(Object.fromEntries((await counts().all()).records.map((r) => [r.key, r.value]))).toEqual({ kafka: 3, streams: 1, sluice: 1, hello: 1 });
  });

  it('--help lists the commands, and each command its options', async () => {
    const help = await sluice(['--help']);
    for (const command of ['status', 'query', 'restart', 'stop', 'events', 'topology', 'lag', 'metrics', 'stores', 'topologies', 'config']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(help.stdout).toContain('Exit codes:\n  0  success\n');
    const queryHelp = await sluice(['query', '--help']);
    for (const option of ['--type <type>', '--set <option=value>', '--url <url>', '--token <token>', '--user <name>', '-o, --output <format>']) expect(queryHelp.stdout).toContain(option);
  });
});

describe('the inspecting commands', () => {
  it('lag: every input partition of the word count, caught up, in table, wide and json', async () => {
    const inputPositions = async () => (await client.offsets(id)).consumers.flatMap((c) => c.positions).filter((p) => p.topic === input);
    await waitFor(async () => (await inputPositions()).every((p) => p.lag === 0), 'the input committed to its end', 30_000);
    const [tableRun, wideRun, jsonRun] = await Promise.all([sluice(['lag', id]), sluice(['lag', id, '-o', 'wide']), sluice(['lag', id, '-o', 'json'])]);
    const table = rows(tableRun.stdout);
    expect(table.filter((row) => row.TOPIC === input).map((row) => [row.PARTITION, row.LAG])).toEqual([['0', '0'], ['1', '0'], ['2', '0']]);
    expect(Object.keys(table[0]!)).toEqual(['TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG']);
    expect(Object.keys(rows(wideRun.stdout)[0]!)).toEqual(['TOPIC', 'PARTITION', 'THREAD', 'CLIENT', 'START', 'CONSUMED', 'COMMITTED', 'END', 'LAG']);
    expect((JSON.parse(jsonRun.stdout) as { group: string }).group).toBe(id);
  });

  it('metrics: narrowed to a group and a name, or a name in every group; yaml is the resource', async () => {
    const [named, anyGroup, yaml, unknown] = await Promise.all([
      sluice(['metrics', id, '--group', 'stream-metrics', '--name', 'alive-stream-threads']),
      sluice(['metrics', id, '--name', 'alive-stream-threads', '--no-headers']),
      sluice(['metrics', id, '-o', 'yaml']),
      sluice(['metrics', id, '--group', 'no-such-group', '--name', 'x']),
    ]);
    expect(named.code).toBe(0);
    expect(rows(named.stdout).map((row) => [row.GROUP, row.NAME, row.VALUE])).toEqual([['stream-metrics', 'alive-stream-threads', '1']]);
    expect(anyGroup.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^stream-metrics\s+alive-stream-threads\s+.*\s1$/)]);
    expect((parseYaml(yaml.stdout) as { name: string }[]).map((group) => group.name)).toEqual(expect.arrayContaining(['stream-metrics', 'stream-thread-metrics']));
    expect(unknown.code).toBe(1);
  });

  it('stores: the count store’s three partitions; --no-headers prints the rows only', async () => {
    const [table, bare, wide] = await Promise.all([sluice(['stores', id]), sluice(['stores', id, '--no-headers']), sluice(['stores', id, '-o', 'wide'])]);
    expect(rows(table.stdout).map((row) => [row.STORE, row.PARTITION])).toEqual([['count', '0'], ['count', '1'], ['count', '2']]);
    expect(bare.stdout.trimEnd().split('\n').map((line) => line.split(/\s+/).slice(0, 2))).toEqual([['count', '0'], ['count', '1'], ['count', '2']]);
    expect(Object.keys(rows(wide.stdout)[0]!)).toContain('RESTORE_MS');
  });

  it('topologies: the registered ones with their aliases; wide adds the description', async () => {
    const [table, wide] = await Promise.all([sluice(['topologies']), sluice(['topologies', '-o', 'wide'])]);
    expect(rows(table.stdout)).toEqual(expect.arrayContaining([{ NAME: 'io.sluice.it.WordCount', VERSION: '1.0.0', ALIASES: 'word-count' }]));
    expect(rows(wide.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ NAME: 'io.sluice.it.PageViews', DESCRIPTION: 'Page views' })]));
  });

  it('config: by key, a secret hidden as the API hides it, in every format; a viewer may read it', async () => {
    const [tableRun, yamlRun] = await Promise.all([sluice(['config', split], { SLUICE_TOKEN: viewerToken }), sluice(['config', split, '-o', 'yaml'])]);
    const table = Object.fromEntries(rows(tableRun.stdout).map((row) => [row.KEY, row.VALUE]));
    expect([table['application.id'], table['ssl.truststore.password'], table['group.instance.id']]).toEqual([split, '[hidden]', 'node-a']);
    const yaml = parseYaml(yamlRun.stdout) as Record<string, unknown>;
    expect(yaml).toEqual(await client.config(split));
    expect(JSON.stringify(yaml)).not.toContain('not-to-be-shown');
  });
});

describe('exit codes', () => {
  it('2: a usage error (a missing argument, an unknown format, an unknown command), before anything is sent', async () => {
    const usage = [['lag'], ['stores', id, '-o', 'xml'], ['no-such-command']];
    const [runs, refused, help] = await Promise.all([Promise.all(usage.map((args) => sluice(args))), sluice(['stop', id, '--all']), sluice(['topologies', '--help'])]);
    expect(runs.map((run) => [run.code, run.stderr.startsWith('error: ')])).toEqual(usage.map(() => [2, true]));
    expect([refused.code, refused.stderr]).toEqual([2, 'sluice: give an application id or --all\n']);
    expect(help.code).toBe(0);
  });

  it('3: no or wrong credentials (401), and a viewer asking to stop (403)', async () => {
    const [anonymous, stranger, forbidden] = await Promise.all([
      sluice(['lag', id], {}),
      sluice(['topologies'], { SLUICE_TOKEN: newApiToken() }),
      sluice(['stop', id], { SLUICE_TOKEN: viewerToken }),
    ]);
    expect([anonymous.code, stranger.code]).toEqual([3, 3]);
    expect([forbidden.code, forbidden.stderr]).toEqual([3, expect.stringMatching(/HTTP 403\)\n$/)]);
  });

  it('4: a node that cannot be reached', async () => {
    const run = await sluice(['topologies', '--url', 'http://127.0.0.1:1']);
    expect([run.code, run.stderr]).toEqual([4, expect.stringMatching(/^sluice: Cannot reach http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/)]);
  });

  it('5: a partial answer, when a second node that owns partitions is gone but still in the host map', async () => {
    const second = await SluiceHost.start({
      config: {
        server: testServerConfig({ tokens: [{ name: 'ci', hash: hashApiToken(token), role: 'operator' }] }),
        log: { level: 'warn' },
        streams: { 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': secondStateDir, 'commit.interval.ms': 200 },
        topologies: [],
        instances: [{ topology: 'word-count', applicationId: split, config: splitConfig('node-b') }],
        shutdownTimeoutMs: 30_000,
      },
      topologies: [wordCountDefinition(input, output)],
      logger: testLogger,
    });
    let stopped = false;
    try {
      const tasks = async (node: SluiceClient) => (await node.status(split)).threads.flatMap((thread) => thread.active_tasks).length;
      const secondClient = new SluiceClient({ url: second.url, token });
      await waitFor(
        async () => (await client.instance(split)).state.state === 'RUNNING' && (await tasks(client)) > 0 && (await tasks(secondClient)) > 0 && (await tasks(client)) + (await tasks(secondClient)) === 6,
        'the split application on both nodes',
        60_000,
      );
      await secondClient.close();
      await waitFor(async () => (await client.store(split, 'count').keyValue().count()).status === 'SUCCESS', 'both nodes answering', 30_000);
      // A static member's stop keeps its place (and its host) in the group until session.timeout.ms.
      await second.stop();
      stopped = true;
      const run = await sluice(['query', split, 'count', 'all', '--set', 'retries=0', '--set', 'query_timeout_ms=5000']);
      expect(run.code).toBe(5);
      expect(run.stderr).toMatch(/^query status (PARTIAL|ERROR)/);
    } finally {
      if (!stopped) await second.stop();
    }
  });
});

describe('deploy and delete', () => {
  it('deploy from flags and from a file, then delete; what the node refuses it names, what the command refuses is a usage error', async () => {
    const fromFlags = uniqueName('client-deployed');
    const fromFile = uniqueName('client-filed');
    const file = path.join(stateDir, 'deploy.yaml');
    fs.writeFileSync(file, `type: word-count\nname: ${fromFile}\nconfig:\n  commit.interval.ms: 100\n`);
    const [flagged, filed] = await Promise.all([
      sluice(['deploy', 'word-count', '--name', fromFlags, '--topology-version', '1.0.0', '--set', 'num.stream.threads=1', '-o', 'json']),
      sluice(['deploy', '-f', file]),
    ]);
    expect([flagged.code, JSON.parse(flagged.stdout)]).toEqual([0, { id: fromFlags }]);
    expect([filed.code, filed.stdout]).toEqual([0, `deployed ${fromFile}\n`]);
    expect(String((await client.config(fromFile))['commit.interval.ms'])).toBe('100');

    const [unknown, refusedKey, badFile, noTopology] = await Promise.all([
      sluice(['deploy', 'no-such-topology', '--name', uniqueName('client-x')]),
      sluice(['deploy', 'word-count', '--name', uniqueName('client-x'), '--set', 'state.dir=/tmp']),
      sluice(['deploy', '-f', path.join(stateDir, 'absent.yaml')]),
      sluice(['deploy']),
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringMatching(/no-such-topology.* \(\w+, HTTP 4\d\d\)\n$/)]);
    expect([refusedKey.code, refusedKey.stderr]).toEqual([1, expect.stringMatching(/state\.dir.* \(\w+, HTTP 400\)\n$/)]);
    expect([badFile.code, badFile.stderr]).toEqual([2, expect.stringMatching(/^sluice: cannot read the deploy file /)]);
    expect([noTopology.code, noTopology.stderr]).toEqual([2, expect.stringMatching(/^sluice: give the topology/)]);

    const [deleted, deletedYaml] = await Promise.all([sluice(['delete', fromFlags]), sluice(['delete', fromFile, '-o', 'yaml'])]);
    expect([deleted.code, deleted.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^deleted ${fromFlags}: [A-Z_]+\\n$`))]);
    expect(parseYaml(deletedYaml.stdout)).toMatchObject({ id: fromFile });
    expect(await client.instances()).toEqual(expect.not.arrayContaining([fromFlags, fromFile]));
    const again = await sluice(['delete', fromFlags]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/ \(UnknownApplication, HTTP 404\)\n$/)]);
  });
});
