/**
 * Serde benchmark: what Schema Registry Avro values cost beside Sluice's own JSON path. The same topology
 * (topology.ts: orders regrouped by customer through a repartition topic and summed per customer in a store, to an
 * output topic) runs once with JSON values and once with Avro values on a registry (the in-process registry double,
 * started by this harness: after the first look-up of each schema it is off the hot path). For each: N orders
 * (default 300 000) are produced to a fresh 4-partition topic, the Sluice program (sluice-orders.ts, a child Node
 * process) starts, and from its first RUNNING until its group has committed the end of the input and of the
 * repartition topic it is timed and its CPU read (/proc/<pid>/stat); the output is checked against the expected totals.
 * Printed side by side: orders/s, CPU µs per order, the cores that makes on average, and the ratio Avro / JSON (the
 * goal: Avro's CPU per order within 1.2× of JSON's). The run's wall time includes up to a commit interval before the
 * commit that says it caught up; CPU per order does not depend on it. Kafka Streams with Confluent's Avro serdes is no
 * side here: Confluent's serde jars are not on Maven Central. Figures only; nothing is asserted: it exits 1 only when a
 * side gave no figure. The broker: KAFKA_BOOTSTRAP_SERVERS, else one of its own (provideBroker).
 * Usage: `npm run bench:serdes -- [--orders N] [--formats json,avro]`; `node --cpu-prof dist/bench/serdes/run.js`
 * profiles the Sluice program too.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Admin } from 'kafkajs';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { createKafkaClient, createProducer, createTopics, type KafkaClient } from '../../src/streams/kafka';
import { RegistryDouble } from '../../src/streams/serdes/schema-registry/testing/registry-double';
import { startChild, type MeasuredProcess } from '../support/child-process';
import { log, mb, runMain, SLUICE_NODE_FLAGS } from '../support/program';
import { StreamsReports } from '../support/streams-report';
import { lastValues, waitCaughtUp } from '../support/word-count-topics';
import { type CustomerTotals, expectedTotals, orderOf, orderSerde, totalsSerde, VALUE_FORMATS, type ValueFormat } from './topology';

const PARTITIONS = 4;
const PRODUCE_BATCH = 10_000;
const COMMIT_INTERVAL_MS = 1000;
/** Sluice's default record cache. */
const CACHE_BYTES = 10 * 1024 * 1024;
const RSS_SAMPLE_MS = 100;
/** The goal for Avro's CPU per record against JSON's. */
const GOAL_RATIO = 1.2;

interface Figures {
  /** From the first RUNNING to the commit of the last input and repartition offsets. */
  seconds: number;
  cpuSeconds: number | undefined;
  peakRss: number | undefined;
}

/** Figures, or why there are none. */
type Outcome = Figures | string;

const LABELS: Record<ValueFormat, string> = { json: 'JSON', avro: 'Avro (Schema Registry)' };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '300000' },
      formats: { type: 'string', default: VALUE_FORMATS.join(',') },
    },
  });
  const orders = Number(values.orders);
  if (!Number.isInteger(orders) || orders <= 0) throw new Error('--orders takes a positive integer');
  const formats = values.formats.split(',').map((f) => f.trim()) as ValueFormat[];
  if (formats.length === 0 || !formats.every((f) => VALUE_FORMATS.includes(f))) throw new Error(`--formats takes some of ${VALUE_FORMATS.join(', ')}`);
  const loadAverage = os.loadavg()[0]!;
  const broker = await provideBroker({ log });
  const registry = new RegistryDouble();
  const registryUrl = await registry.start();
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-serdes' });
  const admin = kafka.admin();
  const outcomes = new Map<ValueFormat, Outcome>();
  try {
    await admin.connect();
    const expected = expectedTotals(orders);
    const suffix = Date.now().toString(36);
    for (const format of formats) {
      const run = { format, orders, expected, registryUrl, bootstrapServers: broker.bootstrapServers, applicationId: `bench-serdes-${format}-${suffix}` };
      outcomes.set(format, await measure(kafka, admin, run).catch((error: Error) => error.message));
    }
  } finally {
    await admin.disconnect();
    await registry.stop();
    await broker.stop();
  }
  report(orders, loadAverage, outcomes);
  if ([...outcomes.values()].some((o) => typeof o === 'string')) process.exitCode = 1;
}

interface Run {
  format: ValueFormat;
  orders: number;
  expected: ReadonlyMap<string, CustomerTotals>;
  registryUrl: string;
  bootstrapServers: string;
  applicationId: string;
}

/** One format's run: its topics made and filled, the program run until it caught up, its output checked; its topics deleted after. */
async function measure(kafka: KafkaClient, admin: Admin, run: Run): Promise<Outcome> {
  const input = `${run.applicationId}-in`;
  const output = `${run.applicationId}-out`;
  const registryConfig = { 'schema.registry.url': run.registryUrl };
  await createTopics(admin, [input, output].map((name) => ({ name, partitions: PARTITIONS })));
  try {
    await produceOrders(kafka, input, run.orders, run.format, registryConfig);
    const reports = new StreamsReports();
    let running: MeasuredProcess | undefined;
    let cpuAtRunning: number | undefined;
    const onLine = (line: string): void => {
      reports.onLine(line);
      if (reports.runningAt !== undefined && cpuAtRunning === undefined) cpuAtRunning = running?.cpuSeconds();
    };
    running = await startProgram(
      {
        'application.id': run.applicationId,
        'bootstrap.servers': run.bootstrapServers,
        'commit.interval.ms': COMMIT_INTERVAL_MS,
        'cache.max.bytes.buffering': CACHE_BYTES,
        ...registryConfig,
      },
      run.format,
      input,
      output,
      onLine,
    );
    let peakRss = running.rss();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss ?? 0, running.rss() ?? 0)), RSS_SAMPLE_MS);
    try {
      const failure = await waitCaughtUp(admin, run.applicationId, input, running);
      if (failure !== undefined) return failure;
      const cpuNow = running.cpuSeconds();
      if (reports.runningAt === undefined) return 'caught up without reporting RUNNING';
      const seconds = (Date.now() - reports.runningAt) / 1000;
      const cpuSeconds = cpuNow === undefined || cpuAtRunning === undefined ? undefined : cpuNow - cpuAtRunning;
      clearInterval(sampler);
      const wrong = totalsDiffer(run.expected, await outputTotals(kafka, admin, output, run.format, registryConfig));
      return wrong ?? { seconds, cpuSeconds, peakRss };
    } finally {
      clearInterval(sampler);
      await running.stop();
    }
  } finally {
    const topics = (await admin.listTopics()).filter((t) => t === input || t === output || t.startsWith(`${run.applicationId}-`));
    await admin.deleteTopics({ topics }).catch((error: Error) => log(`deleting ${topics.join(', ')} failed: ${error.message}`));
  }
}

/** Produces orders 0..count-1, keyed by order id, with the format's serde (Avro: registered as a producer would). */
async function produceOrders(kafka: KafkaClient, topic: string, count: number, format: ValueFormat, registryConfig: Record<string, unknown>): Promise<void> {
  const serde = orderSerde(format);
  await serde.prepare?.(topic, registryConfig);
  const producer = createProducer(kafka);
  await producer.connect();
  const started = Date.now();
  for (let start = 0; start < count; start += PRODUCE_BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(count, start + PRODUCE_BATCH); i++) {
      const order = orderOf(i);
      messages.push({ key: `order-${i}`, value: serde.serializeTopic ? serde.serializeTopic(topic, undefined, order) : serde.serialize(order) });
    }
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
  log(`produced ${count} ${format} orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Starts sluice-orders.js in a directory of its own (its state.dir inside), deleted when it stops. */
function startProgram(config: Record<string, unknown>, format: ValueFormat, input: string, output: string, onStdoutLine: (line: string) => void): Promise<MeasuredProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-serdes-'));
  const program = path.join(__dirname, 'sluice-orders.js');
  const args = [...SLUICE_NODE_FLAGS, ...process.execArgv, program, JSON.stringify({ 'state.dir': path.join(dir, 'state'), ...config }), format, input, output];
  return startChild(`Sluice (${format})`, process.execPath, args, dir, { onStdoutLine });
}

/** The last totals of each customer on the output; Avro read with the schema the program registered for it. */
async function outputTotals(kafka: KafkaClient, admin: Admin, output: string, format: ValueFormat, registryConfig: Record<string, unknown>): Promise<Map<string, CustomerTotals>> {
  const serde = totalsSerde(format);
  await serde.prepare?.(output, registryConfig);
  return lastValues(kafka, admin, output, (value) => (serde.deserializeTopic ? serde.deserializeTopic(output, undefined, value) : serde.deserialize(value)));
}

/** Why `actual` is not `expected`, in a line; undefined when they agree (amounts to a millionth: sums of doubles in another order). */
function totalsDiffer(expected: ReadonlyMap<string, CustomerTotals>, actual: ReadonlyMap<string, CustomerTotals>): string | undefined {
  const wrong = [...expected].filter(([customer, t]) => {
    const a = actual.get(customer);
    return a === undefined || a.orders !== t.orders || Math.abs(a.amount - t.amount) > 1e-6 * Math.max(1, t.amount);
  });
  if (wrong.length === 0 && actual.size === expected.size) return undefined;
  const [customer, t] = wrong[0] ?? [[...actual.keys()].find((c) => !expected.has(c)), undefined];
  return `the output's totals are wrong: ${wrong.length} of ${expected.size} customers differ, ${actual.size} in the output (${customer}: ${JSON.stringify(actual.get(customer!))} instead of ${JSON.stringify(t)})`;
}

function report(orders: number, loadAverage: number, outcomes: ReadonlyMap<ValueFormat, Outcome>): void {
  const perOrderUs = (f: Figures) => (f.cpuSeconds === undefined ? undefined : (f.cpuSeconds * 1e6) / orders);
  const rows: [string, (f: Figures) => string][] = [
    ['time from RUNNING', (f) => `${f.seconds.toFixed(1)} s`],
    ['orders/s', (f) => String(Math.round(orders / f.seconds))],
    ['CPU µs per order', (f) => (perOrderUs(f) === undefined ? 'n/a' : perOrderUs(f)!.toFixed(1))],
    ['CPU (cores on average)', (f) => (f.cpuSeconds === undefined ? 'n/a' : `${f.cpuSeconds.toFixed(1)} s (${(f.cpuSeconds / f.seconds).toFixed(2)})`)],
    ['peak RSS', (f) => mb(f.peakRss)],
  ];
  const width = 26;
  const columns = [...outcomes];
  const out = [
    `serde cost: ${orders} orders regrouped by customer (repartition) and summed (store, changelog) to an output topic, ${PARTITIONS} partitions, ` +
      `commit.interval.ms ${COMMIT_INTERVAL_MS}, cache ${mb(CACHE_BYTES)}, at_least_once, 1 thread`,
    `  ${os.cpus().length} CPUs, load average ${loadAverage.toFixed(1)} at start`,
    `  ${''.padEnd(24)}${columns.map(([format]) => LABELS[format].padEnd(width)).join('')}`,
    ...rows.map(([name, cell]) => `  ${name.padEnd(24)}${columns.map(([, o]) => (typeof o === 'string' ? 'n/a' : cell(o)).padEnd(width)).join('')}`),
  ];
  const json = outcomes.get('json');
  const avro = outcomes.get('avro');
  if (typeof json === 'object' && typeof avro === 'object') {
    const cpuRatio = perOrderUs(avro) !== undefined && perOrderUs(json) !== undefined ? perOrderUs(avro)! / perOrderUs(json)! : undefined;
    out.push(`  Avro / JSON: CPU per order ${cpuRatio === undefined ? 'n/a' : `${cpuRatio.toFixed(2)}×`} (goal ≤ ${GOAL_RATIO}×), orders/s ${(json.seconds / avro.seconds).toFixed(2)}×`);
  }
  for (const [format, outcome] of columns) if (typeof outcome === 'string') out.push(`  ${LABELS[format]}: ${outcome}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

runMain(main);
