/**
 * Memory benchmark (issue 37): where a Sluice node's memory goes while it counts words. Two loads, each on topics of
 * its own (4 partitions) on one broker: the cache-hostile one, lines of 10 words seen once each plus one common word
 * (default 1 000 100 distinct keys, so the 10 MB record cache hits almost never and every key reaches LMDB and the
 * changelog), and the word count's corpus (10 000 words by Zipf's law). For each, `sluice start` runs the example word
 * count (one thread, at-least-once, commit.interval.ms 1000, statestore.cache.max.bytes 10 MB) as `npm start` does;
 * every second until its group has committed the end of the input and of the repartition topic it prints RSS and
 * its parts: the V8 heap (young, old and large objects in use, the heap V8 holds), external memory, resident memory
 * anonymous and file-backed, the resident pages of LMDB's maps and the size of its files, and what of the anonymous
 * memory is neither V8 heap nor external (native allocations: LMDB's write transactions, lmdb-js', the allocator's
 * own). Then peak RSS (sampled every 100 ms) with the breakdown of the reading nearest to it, and CPU per line and per
 * record processed. With `--budget M`, the node runs in a memory cgroup of M MiB, as in a pod with that memory limit
 * (which the node takes as its memory budget, V8's heap limited to the budget's heap share): the cgroup's peak and
 * the OOM kills are printed too, and how long the stream thread waited for the broker (its producer buffer's
 * back-pressure). Sluice only: Kafka Streams' side is bench:wordcount's. Figures only; it exits 1 when a load fails.
 * With `--throttle MiB`, the broker lets each client produce that many MiB/s once the input is written (a default
 * client quota), so that the node's output meets a slower broker: its producer buffers fill and it waits. Each commit
 * waits for the records sent before it, so a short `--commit-interval` (default 1000 ms, as `npm start`) drains the
 * buffer before it can fill; Kafka Streams' at-least-once default, 30 000 ms, lets it fill.
 * Usage: `npm run bench:memory -- [--keys N] [--lines N] [--load hostile|wordcount|both] [--budget MiB] [--throttle MiB]
 * [--commit-interval MS]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Admin } from 'kafkajs';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { freePort } from '../../src/host/free-ports';
import { createKafkaClient, createTopics, type KafkaClient } from '../../src/streams/kafka';
import { corpusOf, DEFAULT_VOCABULARY, HOSTILE_COMMON_WORD, HOSTILE_WORDS_PER_LINE, hostileCorpus, hostileLines } from '../wordcount/corpus';
import { log, runMain, sleep } from '../support/program';
import { startSluiceNode, waitReady } from '../support/sluice-node';
import { maxDefined, produceLines, waitCaughtUp } from '../support/word-count-topics';
import { throttleProducers } from '../support/broker-quota';
import { createMemoryCgroup, heapFlags, type MemoryCgroup } from '../support/memory-cgroup';
import { readBreakdown, type Breakdown } from './breakdown';
import { MEMORY_BENCH_TOPOLOGY } from './topology';

const PARTITIONS = 4;
const CACHE_BYTES = 10 * 1024 * 1024;
const DEFAULT_COMMIT_INTERVAL_MS = 1000;
const SAMPLE_MS = 1000;
const PEAK_SAMPLE_MS = 100;
const READY_WITHIN_MS = 120_000;
/** A reading after catching up: what stays once the work is done. */
const IDLE_AFTER_MS = 5000;

interface Load {
  name: string;
  description: string;
  lines: number;
  lineOf: (i: number) => string;
}

const MB = 1024 * 1024;
const cell = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : (bytes / MB).toFixed(0));

function hostileLoad(keys: number): Load {
  const lines = hostileLines(keys);
  return {
    name: 'hostile',
    description: `cache-hostile: ${lines} lines of ${HOSTILE_WORDS_PER_LINE} words seen once and "${HOSTILE_COMMON_WORD}", ${lines * HOSTILE_WORDS_PER_LINE + 1} distinct keys`,
    lines,
    lineOf: hostileCorpus(),
  };
}

function wordCountLoad(lines: number): Load {
  return { name: 'wordcount', description: `word count: ${lines} lines of ${DEFAULT_VOCABULARY} words (Zipf)`, lines, lineOf: corpusOf(DEFAULT_VOCABULARY) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keys: { type: 'string', default: '1000100' },
      lines: { type: 'string', default: '1000000' },
      load: { type: 'string', default: 'both' },
      budget: { type: 'string' },
      throttle: { type: 'string' },
      'commit-interval': { type: 'string', default: String(DEFAULT_COMMIT_INTERVAL_MS) },
    },
  });
  const throttleMiB = values.throttle === undefined ? undefined : Number(values.throttle);
  if (throttleMiB !== undefined && !(throttleMiB > 0)) throw new Error('--throttle takes a positive number of MiB/s');
  const budgetMiB = values.budget === undefined ? undefined : Number(values.budget);
  if (budgetMiB !== undefined && !(Number.isInteger(budgetMiB) && budgetMiB > 0)) throw new Error('--budget takes a positive number of MiB');
  const commitIntervalMs = Number(values['commit-interval']);
  if (!(Number.isInteger(commitIntervalMs) && commitIntervalMs > 0)) throw new Error('--commit-interval takes a positive number of milliseconds');
  const keys = Number(values.keys);
  const lines = Number(values.lines);
  if (!Number.isInteger(keys) || keys < 2 || !Number.isInteger(lines) || lines < 1) throw new Error('--keys takes an integer above 1, --lines a positive integer');
  const loads = { hostile: [hostileLoad(keys)], wordcount: [wordCountLoad(lines)], both: [hostileLoad(keys), wordCountLoad(lines)] }[values.load!];
  if (loads === undefined) throw new Error('--load takes hostile, wordcount or both');
  const suffix = Date.now().toString(36);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-memory-'));
  const broker = await provideBroker({ log });
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-memory' });
  const admin = kafka.admin();
  try {
    await admin.connect();
    for (const load of loads) {
      const failure = await measure({ kafka, admin, bootstrapServers: broker.bootstrapServers, load, suffix, workDir, throttleMiB, commitIntervalMs }, budgetMiB);
      if (failure !== undefined) {
        process.stdout.write(`  ${load.name}: ${failure}\n`);
        process.exitCode = 1;
      }
    }
  } finally {
    await admin.disconnect();
    await broker.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

const COLUMNS: [string, (b: Breakdown) => string][] = [
  ['processed', (b) => (b.processed === undefined ? 'n/a' : String(b.processed))],
  ['RSS', (b) => cell(b.rss)],
  ['heap used', (b) => cell(b.heapUsed)],
  ['young', (b) => cell(b.youngUsed)],
  ['old', (b) => cell(b.oldUsed)],
  ['large obj', (b) => cell(b.largeObjectsUsed)],
  ['heap held', (b) => cell(b.heapTotal)],
  ['external', (b) => cell(b.external)],
  ['anon', (b) => cell(b.anonymous)],
  ['native', (b) => cell(nativeAnonymous(b))],
  ['file', (b) => cell(b.fileBacked)],
  ['LMDB res', (b) => cell(b.lmdbResident)],
  ['LMDB disk', (b) => cell(b.lmdbFiles)],
  ['cache', (b) => cell(b.recordCache)],
  ['prod wait s', (b) => (b.producerWaitS === undefined ? 'n/a' : b.producerWaitS.toFixed(1))],
];

/** Anonymous memory that is neither the heap V8 holds nor external memory: native allocations. */
function nativeAnonymous(b: Breakdown): number | undefined {
  if (b.anonymous === undefined || b.heapTotal === undefined || b.external === undefined) return undefined;
  return b.anonymous - b.heapTotal - b.external;
}

function row(label: string, b: Breakdown): string {
  return `  ${label.padStart(7)}${COLUMNS.map(([name, value]) => value(b).padStart(Math.max(name.length, 5) + 2)).join('')}`;
}

/** One load's run: where it runs and how the broker treats its output. */
interface LoadRun {
  kafka: KafkaClient;
  admin: Admin;
  bootstrapServers: string;
  load: Load;
  suffix: string;
  workDir: string;
  throttleMiB: number | undefined;
  commitIntervalMs: number;
}

/** Runs one load on a node of its own (in a memory cgroup of `budgetMiB`) and prints its readings; returns why it failed, if it did. */
async function measure(run: LoadRun, budgetMiB: number | undefined): Promise<string | undefined> {
  const cgroup = budgetMiB === undefined ? undefined : createMemoryCgroup(`sluice-bench-memory-${run.load.name}-${run.suffix}`, budgetMiB * MB);
  if (typeof cgroup === 'string') return cgroup;
  try {
    return await measureIn(run, cgroup);
  } finally {
    cgroup?.remove();
  }
}

async function measureIn({ kafka, admin, bootstrapServers, load, suffix, workDir, throttleMiB, commitIntervalMs }: LoadRun, cgroup: MemoryCgroup | undefined): Promise<string | undefined> {
  const input = `bench-memory-${load.name}-in-${suffix}`;
  const output = `bench-memory-${load.name}-out-${suffix}`;
  const applicationId = `bench-memory-${load.name}-${suffix}`;
  await createTopics(admin, [input, output].map((name) => ({ name, partitions: PARTITIONS })));
  await produceLines(kafka, input, load.lines, load.lineOf, load.name);
  if (throttleMiB !== undefined) {
    const refused = await throttleProducers(bootstrapServers, Math.round(throttleMiB * MB));
    if (refused !== undefined) return refused;
  }

  const dir = path.join(workDir, load.name);
  const stateDir = path.join(dir, 'state');
  const launched = Date.now();
  const node = await startSluiceNode(
    `sluice start (${load.name})`,
    dir,
    {
      server: { host: '127.0.0.1', port: await freePort(), advertisedHost: '127.0.0.1' },
      log: { level: 'warn' },
      streams: {
        'bootstrap.servers': bootstrapServers,
        'state.dir': stateDir,
        'num.stream.threads': 1,
        'processing.guarantee': 'at_least_once',
        'commit.interval.ms': commitIntervalMs,
        'statestore.cache.max.bytes': CACHE_BYTES,
      },
      topologies: [{ module: path.join(__dirname, 'topology.js') }],
      instances: [{ topology: MEMORY_BENCH_TOPOLOGY, applicationId }],
    },
    { SLUICE_BENCH_INPUT_TOPIC: input, SLUICE_BENCH_OUTPUT_TOPIC: output },
    cgroup,
  );
  const budgetLine = (): string =>
    cgroup === undefined
      ? ''
      : `  memory cgroup of ${cell(cgroup.limitBytes)} MB (the node's memory budget; ${heapFlags(cgroup).join(' ')}): its peak ${cell(cgroup.peakBytes())} MB, OOM kills ${cgroup.oomKills()}`;
  let peakRss = node.rss();
  const peakSampler = setInterval(() => (peakRss = maxDefined(peakRss, node.rss())), PEAK_SAMPLE_MS);
  try {
    await waitReady(node, READY_WITHIN_MS);
    const readyS = (Date.now() - launched) / 1000;
    const out = (line: string): void => void process.stdout.write(`${line.trimEnd()}\n`);
    out(
      `${load.description}; 1 thread, at_least_once, commit.interval.ms ${commitIntervalMs}, statestore.cache.max.bytes ${CACHE_BYTES / MB} MB` +
        (throttleMiB === undefined ? '' : `; the broker takes ${throttleMiB} MiB/s from each producer`),
    );
    out(`  ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}; node ready ${readyS.toFixed(1)} s after launch; MB but for "processed"`);
    out(`  ${'t (s)'.padStart(7)}${COLUMNS.map(([name]) => name.padStart(Math.max(name.length, 5) + 2)).join('')}`);

    let caughtUp: string | undefined | null = null;
    const waiting = waitCaughtUp(admin, applicationId, input, node).then((failure) => (caughtUp = failure));
    const readings: Breakdown[] = [];
    while (caughtUp === null) {
      const next = Date.now() + SAMPLE_MS;
      const reading = await readBreakdown(node.url, node.pid, stateDir);
      readings.push(reading);
      out(row(((Date.now() - launched) / 1000).toFixed(0), reading));
      await Promise.race([sleep(Math.max(0, next - Date.now())), waiting]);
    }
    const failure: string | undefined = caughtUp;
    if (failure !== undefined) {
      if (cgroup !== undefined) out(budgetLine());
      return failure;
    }
    const seconds = (Date.now() - launched) / 1000;
    const cpuSeconds = node.cpuSeconds();
    const done = await readBreakdown(node.url, node.pid, stateDir);
    out(row('done', done));
    await sleep(IDLE_AFTER_MS);
    out(row(`+${IDLE_AFTER_MS / 1000} s`, await readBreakdown(node.url, node.pid, stateDir)));

    const atPeak = readings.reduce((a, b) => ((b.rss ?? 0) > (a.rss ?? 0) ? b : a), done);
    const processed = done.processed;
    const perUnit = (n: number | undefined): string => (cpuSeconds === undefined || n === undefined ? 'n/a' : `${((cpuSeconds / n) * 1e6).toFixed(1)} µs`);
    out(`  launch to caught up ${seconds.toFixed(1)} s, ${Math.round(load.lines / seconds)} lines/s, ${processed ?? 'n/a'} records processed`);
    out(`  CPU ${cpuSeconds === undefined ? 'n/a' : `${cpuSeconds.toFixed(1)} s (${(cpuSeconds / seconds).toFixed(2)} cores)`}: ${perUnit(load.lines)} per line, ${perUnit(processed)} per record`);
    out(
      `  peak RSS ${cell(peakRss)} MB; the highest reading, ${cell(atPeak.rss)} MB: V8 heap held ${cell(atPeak.heapTotal)} ` +
        `(used ${cell(atPeak.heapUsed)}: young ${cell(atPeak.youngUsed)}, old ${cell(atPeak.oldUsed)}, large objects ${cell(atPeak.largeObjectsUsed)}), ` +
        `external ${cell(atPeak.external)}, other anonymous (native) ${cell(nativeAnonymous(atPeak))}, ` +
        `file-backed ${cell(atPeak.fileBacked)} of which LMDB's maps ${cell(atPeak.lmdbResident)} (LMDB files ${cell(atPeak.lmdbFiles)} MB on disk)`,
    );
    if (cgroup !== undefined) out(`${budgetLine()}; the stream thread waited ${done.producerWaitS?.toFixed(1) ?? 'n/a'} s for the broker (bufferpool-wait-time-ns-total)`);
    out('  Kafka Streams: not run here (bench:wordcount compares it)');
    return undefined;
  } finally {
    clearInterval(peakSampler);
    await node.stop();
  }
}

runMain(main);
