/**
 * The `sluice` command on long answers against a node run as its own process (`sluice start`, the real binary over
 * the compiled build): `query --all` through thousands of keys a small page at a time, and `events` across the
 * node's restart on the same port (resumed, nothing printed twice) and the node's end (exit 4).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SluiceClient } from '../../src/client';
import { freePort } from '../../src/host/free-ports';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, KafkaTestClients, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/sluice.js');
const kafka = new KafkaTestClients();
const input = uniqueName('cli-streams-in');
const output = uniqueName('cli-streams-out');
const id = uniqueName('cli-streams-wc');
const stateDir = tempStateDir('sluice-cli-streams-');
const KEYS = 3000;
let url: string;
let configFile: string;
let node: ChildProcess | undefined;
let client: SluiceClient;

/** Starts `sluice start` and waits until the word count runs. */
async function startNode(): Promise<void> {
  node = spawn(process.execPath, [BIN, 'start', '--config', configFile], { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor(async () => (await client.instance(id).catch(() => undefined))?.state.state === 'RUNNING', `${id} RUNNING`, 90_000);
}

async function stopNode(): Promise<void> {
  const child = node!;
  node = undefined;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function sluice(args: string[]): ChildProcess & { out: () => string; err: () => string; code: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, SLUICE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = new Promise<number | null>((resolve) => child.on('close', resolve));
  return Object.assign(child, { out: () => stdout, err: () => stderr, code });
}

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(stateDir, 'node-'));
  const module = path.join(dir, 'topology.js');
  fs.writeFileSync(
    module,
    `const { wordCountTopology } = require(${JSON.stringify(path.join(REPO, 'dist/examples/word-count.js'))});
exports.wordCount = { name: 'io.sluice.it.WordCount', version: '1.0.0', description: 'word count', aliases: ['word-count'],
  build: () => wordCountTopology(${JSON.stringify(input)}, ${JSON.stringify(output)}) };\n`,
  );
  configFile = path.join(dir, 'sluice.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      server: { host: '127.0.0.1', port },
      log: { level: 'warn', format: 'json' },
      streams: { 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': path.join(stateDir, 'state'), 'commit.interval.ms': 200 },
      topologies: [{ module }],
      instances: [{ topology: 'word-count', applicationId: id }],
    }),
  );
  await createTopics(await kafka.admin(), [
    { name: input, partitions: 3 },
    { name: output, partitions: 3 },
  ]);
  client = new SluiceClient({ url });
  await startNode();
  const producer = await kafka.producer();
  const words = Array.from({ length: KEYS }, (_, i) => `w${i}`);
  for (let at = 0; at < words.length; at += 500) await producer.send({ topic: input, messages: [{ value: words.slice(at, at + 500).join(' ') }] });
  await waitFor(async () => (await client.store(id, 'count').keyValue().count()).value === KEYS, `${KEYS} words counted`, 90_000);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  if (node !== undefined) await stopNode();
  await client?.close();
  await kafka.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

it('query --all: every key exactly once over many small pages, one JSON object per line, exit 0', async () => {
  const run = sluice(['query', id, 'count', 'all', '--all', '--set', 'limit=50']);
  expect(await run.code).toBe(0);
  const lines = run.out().trimEnd().split('\n').map((line) => JSON.parse(line) as { part: string; key: string; value: number; server: string });
  expect(lines).toHaveLength(KEYS);
  expect(new Set(lines.map((line) => line.key)).size).toBe(KEYS);
  expect(lines.every((line) => line.part === 'success' && line.value === 1 && line.server !== '')).toBe(true);
});

it('events: across a restart of the node on its port, the events after it arrive and none is printed twice; a node gone for good exits 4', async () => {
  const events = sluice(['events', id, 'state', '-o', 'json', '--reconnect-for', '20']);
  const printed = () => events.out().trimEnd().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { id: string; data: { state: string } });
  await waitFor(async () => printed().length >= 1, 'the current state printed', 30_000);
  await stopNode();
  await startNode();
  await waitFor(async () => printed().some((event, i) => i > 0 && event.data.state === 'RUNNING'), 'RUNNING again after the restart', 60_000);
  const lines = events.out().trimEnd().split('\n');
  expect(new Set(lines).size).toBe(lines.length);
  expect(printed().map((event) => event.data.state)).toEqual(expect.arrayContaining(['PENDING_SHUTDOWN', 'RUNNING']));
  expect(events.err()).toContain('reconnecting');

  await stopNode();
  expect(await events.code).toBe(4);
  expect(events.err()).toMatch(/Cannot reach .*gone for 20 s/);
});
