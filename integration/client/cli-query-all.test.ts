/**
 * `sluice query --all` at the size users run it: a store of 1 000 000 keys on a `sluice start` node and a real broker,
 * read page after page by the real CLI process, one NDJSON line per record. Every key arrives exactly once, and the
 * CLI's memory stays flat while it streams: it writes each page out before it asks for the next.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { TABLE_STORE } from '../cluster/fixtures/cluster-topology';
import { buildSluice, eventually, SluiceNode } from '../cluster/support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const KEYS = 1_000_000;
const PAGE = 10_000;
/** The CLI's V8 heap limit: the answer's records as objects would take several times this. */
const HEAP_MB = 64;
const REPO = path.resolve(__dirname, '../..');
const keyOf = (i: number) => `k${String(i).padStart(7, '0')}`;

/** The resident memory of a process, from /proc (undefined once it has exited). */
function rssOf(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

const clients = new KafkaTestClients();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-query-all-'));
let node: SluiceNode | undefined;

afterAll(async () => {
  await node?.stop();
  await clients.close();
  fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

it(
  'streams a 1 000 000-key store as NDJSON, every key once, in memory that does not grow with the answer',
  async () => {
    const build = await buildSluice();
    const applicationId = uniqueName('query-all');
    const input = uniqueName('query-all-in');
    await createTopics(await clients.admin(), [{ name: input, partitions: 4 }]);
    const producer = await clients.producer();
    for (let from = 0; from < KEYS; from += 50_000) {
      await producer.send({ topic: input, messages: Array.from({ length: 50_000 }, (_, i) => ({ key: keyOf(from + i), value: String(from + i) })) });
    }
    node = await SluiceNode.start({ build, name: 'node', bootstrapServers: bootstrapServers().join(','), applicationId, inputTopic: input, workDir, topology: { alias: 'key-value-table' } });
    const storePath = `/api/v1/applications/${applicationId}/stores/${TABLE_STORE}`;
    await eventually(
      `the store to hold ${KEYS} keys`,
      async () => (await node!.post(storePath, { type: 'key_value', query: { count: {} } })).body as { result: { success: { records: { value: number }[] }[] } },
      (answer) => answer.result?.success?.reduce((sum, part) => sum + Number(part.records[0]?.value ?? 0), 0) === KEYS,
      240_000,
    );

    const cli = spawn(process.execPath, [build.launcher, 'query', applicationId, TABLE_STORE, 'all', '--all', '--set', `limit=${PAGE}`], {
      // A heap far smaller than the answer: a CLI that held the records would run out of it.
      env: { PATH: process.env.PATH, SLUICE_URL: `http://${node.server}`, NODE_PATH: path.join(REPO, 'node_modules'), NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
    // The CLI's RSS against the lines it had written when read.
    const readings: { lines: number; rss: number }[] = [];
    let lines = 0;
    const sampler = setInterval(() => {
      const rss = rssOf(cli.pid!);
      if (rss !== undefined) readings.push({ lines, rss });
    }, 100);
    const seen = new Uint8Array(KEYS);
    let repeated = 0;
    let foreign = 0;
    for await (const line of readline.createInterface({ input: cli.stdout })) {
      lines++;
      const record = JSON.parse(line) as { part: string; key: string; value: string };
      const i = Number(record.key.slice(1));
      if (record.part !== 'success' || record.key !== keyOf(i) || record.value !== String(i)) foreign++;
      else if (seen[i]++ !== 0) repeated++;
    }
    clearInterval(sampler);
    expect([await exited, stderr]).toEqual([0, '']);
    expect({ lines, repeated, foreign, missing: seen.filter((n) => n === 0).length }).toEqual({ lines: KEYS, repeated: 0, foreign: 0, missing: 0 });

    // Flat: the most it held in the last half of the answer is within a few pages of what it held in its first tenth.
    const peak = (from: number, to: number) => Math.max(...readings.filter((r) => r.lines >= from && r.lines < to).map((r) => r.rss));
    const early = peak(0, KEYS / 10);
    const late = peak(KEYS / 2, KEYS + 1);
    const quarters = [0, 1, 2, 3].map((q) => Math.round(peak((q * KEYS) / 4, ((q + 1) * KEYS) / 4 + (q === 3 ? 1 : 0)) / 2 ** 20));
    process.stderr.write(`query --all: ${KEYS} records in ${readings.length / 10} s; the CLI's RSS at most ${quarters.join(', ')} MB by quarter of the answer\n`);
    expect(late).toBeLessThan(early + 32 * 2 ** 20);
    expect(late).toBeLessThan(160 * 2 ** 20);
  },
  BROKER_TEST_TIMEOUT_MS + 400_000,
);
