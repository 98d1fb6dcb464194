/**
 * Idle-memory benchmark: a broker of its own, its topics created, and `sluice start` (as `npm start` runs it) with
 * the example topologies as a child process, with no input. Once the node is ready, prints its RSS over a minute,
 * and the V8 heap and external memory as its /prometheus reports them. Figures only; nothing is asserted: it exits
 * 1 only when the node never became ready.
 * Usage: `npm run bench:idle`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { DEMO_EXAMPLES } from '../../examples';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { startChild } from '../support/child-process';
import { log, mb, runMain, SLUICE_NODE_FLAGS, sleep } from '../support/program';

const PORT = 18_080;
const READY_WITHIN_MS = 120_000;
/** When RSS is read, counted from readiness. */
const READ_AT_MS = [0, 10_000, 30_000, 60_000];
const PROMETHEUS_FIGURES = ['nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'];


async function get(pathname: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await request(`http://127.0.0.1:${PORT}${pathname}`);
    return { status: response.statusCode, body: await response.body.text() };
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const broker = await provideBroker({ log });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-idle-'));
  try {
    const admin = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-idle' }).admin();
    await admin.connect();
    await createTopics(admin, DEMO_EXAMPLES.flatMap((example) => example.topics));
    await admin.disconnect();

    const configFile = path.join(dir, 'sluice.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        server: { host: '127.0.0.1', port: PORT, advertisedHost: 'localhost' },
        log: { level: 'warn' },
        streams: { 'bootstrap.servers': broker.bootstrapServers, 'state.dir': path.join(dir, 'state') },
        // Compiled, beside this benchmark in dist/.
        topologies: [{ module: path.join(__dirname, '..', '..', 'examples') }],
        instances: DEMO_EXAMPLES.map((example) => ({ topology: example.topology.name, applicationId: example.applicationId })),
      }),
    );
    // Exactly as `npm start` runs it (package.json).
    const bin = path.join(__dirname, '..', '..', '..', 'bin', 'sluice.js');
    const node = await startChild('sluice start', process.execPath, [...SLUICE_NODE_FLAGS, bin, 'start', '--config', configFile], fs.mkdtempSync(path.join(dir, 'node-')));
    try {
      const started = Date.now();
      while ((await get('/health/readiness'))?.status !== 200) {
        const failure = node.failure();
        if (failure !== undefined) throw new Error(failure);
        if (Date.now() - started > READY_WITHIN_MS) throw new Error(`not ready within ${READY_WITHIN_MS / 1000} s`);
        await sleep(250);
      }
      log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s; reading RSS for ${READ_AT_MS.at(-1)! / 1000} s`);
      const readings: string[] = [];
      for (const [i, at] of READ_AT_MS.entries()) {
        await sleep(at - (READ_AT_MS[i - 1] ?? 0));
        readings.push(`  RSS ${String(at / 1000).padStart(2)} s after ready   ${mb(node.rss())}`);
      }
      const prometheus = (await get('/prometheus'))?.body ?? '';
      const figure = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(prometheus)?.[1] ?? NaN);
      process.stdout.write(
        [
          `idle node: sluice start with ${DEMO_EXAMPLES.length} example topologies (${DEMO_EXAMPLES.map((e) => e.applicationId).join(', ')}), no input`,
          `  ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`,
          ...readings,
          ...PROMETHEUS_FIGURES.map((name) => `  ${name.padEnd(30)}${mb(figure(name) || undefined)}`),
          '',
        ].join('\n'),
      );
    } finally {
      await node.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await broker.stop();
  }
}

runMain(main);
