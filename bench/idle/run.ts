/**
 * Idle-memory benchmark: a broker of its own, its topics created, and `sluice start` (as `npm start` runs it) with
 * the example topologies as a child process, with no input. Once the node is ready, prints its RSS over a minute,
 * and the V8 heap and external memory as its /prometheus reports them. Figures only; nothing is asserted: it exits
 * 1 only when the node never became ready.
 * Usage: `npm run bench:idle [-- --threads N] [-- --otel]` (num.stream.threads of every instance, default 1: what more
 * threads cost; --otel: with OpenTelemetry on, exporting every 10 s to an OTLP sink in this process, which counts the
 * exports and keeps nothing: what the SDK costs an idle node).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { DEMO_EXAMPLES } from '../../examples';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { log, mb, runMain, sleep } from '../support/program';
import { prometheusSum } from '../support/prometheus';
import { startOtlpSink } from '../support/otlp-sink';
import { startSluiceNode, waitReady } from '../support/sluice-node';

const PORT = 18_080;
const READY_WITHIN_MS = 120_000;
/** When RSS is read, counted from readiness. */
const READ_AT_MS = [0, 10_000, 30_000, 60_000];
const PROMETHEUS_FIGURES = ['nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'];


async function main(): Promise<void> {
  const { values } = parseArgs({ options: { threads: { type: 'string', default: '1' }, otel: { type: 'boolean', default: false } } });
  const threads = Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`--threads must be a positive integer, not ${values.threads}`);
  const sink = values.otel ? await startOtlpSink() : undefined;
  const broker = await provideBroker({ log });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-idle-'));
  try {
    const admin = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-idle' }).admin();
    await admin.connect();
    await createTopics(admin, DEMO_EXAMPLES.flatMap((example) => example.topics));
    await admin.disconnect();

    const otel = sink === undefined ? undefined : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_METRIC_EXPORT_INTERVAL: '10000' };
    const node = await startSluiceNode('sluice start', path.join(dir, 'node'), {
      server: { host: '127.0.0.1', port: PORT, advertisedHost: 'localhost' },
      log: { level: 'warn' },
      streams: { 'bootstrap.servers': broker.bootstrapServers, 'state.dir': path.join(dir, 'state'), 'num.stream.threads': threads },
      // Compiled, beside this benchmark in dist/.
      topologies: [{ module: path.join(__dirname, '..', '..', 'examples') }],
      instances: DEMO_EXAMPLES.map((example) => ({ topology: example.topology.name, applicationId: example.applicationId })),
    }, otel);
    try {
      const started = Date.now();
      await waitReady(node, READY_WITHIN_MS);
      log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s; reading RSS for ${READ_AT_MS.at(-1)! / 1000} s`);
      const readings: string[] = [];
      for (const [i, at] of READ_AT_MS.entries()) {
        await sleep(at - (READ_AT_MS[i - 1] ?? 0));
        readings.push(`  RSS ${String(at / 1000).padStart(2)} s after ready   ${mb(node.rss())}`);
      }
      const prometheus = await (await request(`${node.url}/prometheus`)).body.text();
      process.stdout.write(
        [
          `idle node: sluice start with ${DEMO_EXAMPLES.length} example topologies (${DEMO_EXAMPLES.map((e) => e.applicationId).join(', ')}), ${threads} stream thread(s) each, no input`,
          sink === undefined ? '  OpenTelemetry off' : `  OpenTelemetry on: ${sink.received.traces} trace and ${sink.received.metrics} metric exports received`,
          `  ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`,
          ...readings,
          ...PROMETHEUS_FIGURES.map((name) => `  ${name.padEnd(30)}${mb(prometheusSum(prometheus, name))}`),
          '',
        ].join('\n'),
      );
    } finally {
      await node.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await broker.stop();
    sink?.close();
  }
}

runMain(main);
