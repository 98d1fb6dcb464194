/**
 * Interactive-query benchmark, one broker and a 6-partition input of N keys (default 100 000) kept in a key-value
 * store. First on a 3-node local cluster: three `sluice start` processes on loopback (own HTTP and gRPC ports,
 * state dirs); prints queries/s and p50/p99 latency of `get` answered locally and forwarded to a peer, and of `all`
 * over the whole store. Then one node each, same input, same REST contract: one `sluice start` node, and an
 * Azkarra Streams 0.8.0 node (azkarra-side.ts; --no-azkarra skips it), each holding every partition and measured
 * alone on the machine; prints `get` with 1 and with C in flight and `all`, side by side with the ratio, and beside
 * each the node's own CPU per query (its process' CPU time from /proc over the run, divided by the queries): the
 * client's share of the machine is not the node's cost.
 * Figures only; nothing is asserted but the answers themselves.
 * Last, the node's RSS before and at its peak while it streams an `all` of 1 000 000 records (--rss-keys N;
 * --no-rss skips it).
 * Usage (compiled): `npm run build:bench && node dist/bench/queries/run.js [--keys N] [--queries Q] [--concurrency C]
 * [--all-runs R] [--no-azkarra] [--rss-keys N] [--no-rss]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { percentile } from '../support/latency';
import { freePort } from '../../src/host/free-ports';
import { keyOf, produceKeys, valueOf } from '../support/keyed-input';
import { log, runMain, sleep, until } from '../support/program';
import { startSluiceNode, type SluiceNode } from '../support/sluice-node';
import { AZKARRA_LABEL, azkarraNode } from './azkarra-side';
import { BENCH_STORE } from './topology';

const PARTITIONS = 6;

interface Node {
  process: SluiceNode;
  pool: Pool;
}

interface QueryResponse {
  status: string;
  result: { total: number; success: { server: string; records: { key: unknown; value: unknown }[] }[]; failure: unknown[] };
}

async function call(node: { pool: Pool }, method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await node.pool.request({
    method,
    path: pathname,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

async function startNode(name: string, dir: string, bootstrap: string, applicationId: string, input: string): Promise<Node> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const config = {
    server: { host: '127.0.0.1', port: httpPort, grpcPort, advertisedHost: '127.0.0.1' },
    log: { level: 'warn' },
    streams: {
      'bootstrap.servers': bootstrap,
      'state.dir': path.join(dir, 'state'),
      'commit.interval.ms': 1000,
      // The nodes start together: the store spreads over them at once, not after warm-ups and a probing rebalance.
      'acceptable.recovery.lag': Number.MAX_SAFE_INTEGER,
    },
    topologies: [{ module: path.join(__dirname, 'topology.js') }],
    instances: [{ topology: 'query-bench', applicationId }],
  };
  const node = await startSluiceNode(name, dir, config, { SLUICE_BENCH_INPUT_TOPIC: input });
  return { process: node, pool: new Pool(node.url, { connections: 64 }) };
}

/** Latencies (ms, sorted) of a series of queries, and its wall time (s). */
interface Run {
  latencies: number[];
  seconds: number;
  /** CPU seconds the node used during the run, where known. */
  nodeCpuSeconds?: number;
}

/** Runs `total` calls of `one(i)` with `concurrency` in flight. */
async function load(total: number, concurrency: number, one: (i: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await one(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

function queriesPerSecond(run: Run): number {
  return run.latencies.length / run.seconds;
}

function report(label: string, run: Run, extra = ''): string {
  const qps = Math.round(queriesPerSecond(run));
  const p = (n: number) => percentile(run.latencies, n).toFixed(2);
  return `  ${label.padEnd(28)} ${String(qps).padStart(7)} queries/s   p50 ${p(50)} ms   p99 ${p(99)} ms   (${run.latencies.length} queries${extra})`;
}

/** What every section queries, and how hard. */
interface Bench {
  keys: number;
  queries: number;
  concurrency: number;
  allRuns: number;
  bootstrapServers: string;
  input: string;
  suffix: string;
  workDir: string;
}

const storePathOf = (applicationId: string) => `/api/v1/applications/${applicationId}/stores/${BENCH_STORE}`;

async function stopNodes(nodes: readonly Node[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      await node.pool.close();
      await node.process.stop();
    }),
  );
}

async function threeNodes(bench: Bench): Promise<void> {
  const { keys, queries, concurrency, allRuns, input } = bench;
  const applicationId = `bench-queries-${bench.suffix}`;
  const nodes = await Promise.all(['a', 'b', 'c'].map((n) => startNode(`node-${n}`, path.join(bench.workDir, n), bench.bootstrapServers, applicationId, input)));
  const [first] = nodes as [Node, ...Node[]];
  const storePath = storePathOf(applicationId);
  try {
    const loadStart = Date.now();
    await until(
      'the three nodes to hold every key',
      () => call(first, 'POST', storePath, { type: 'key_value', query: { count: {} } }),
      (answer) => {
        const result = answer.body as QueryResponse;
        const counted = result.result?.success?.reduce((sum, part) => sum + Number(part.records[0]?.value ?? 0), 0);
        return answer.status === 200 && result.status === 'SUCCESS' && result.result.success.length === 3 && counted === keys;
      },
    );
    log(`cluster ready with ${keys} keys in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);

    // Which node owns which partition, from the servers record.
    const record = (await call(first, 'GET', `/api/v1/applications/${applicationId}`)).body as {
      instances: { endpoint?: { address: string; port: number }; metadata: { assignments: { name: string; partitions: number[] }[] } }[];
    };
    const owner = new Map<number, string>();
    for (const instance of record.instances) {
      for (const assignment of instance.metadata.assignments) {
        if (assignment.name === input && instance.endpoint) for (const p of assignment.partitions) owner.set(p, `${instance.endpoint.address}:${instance.endpoint.port}`);
      }
    }
    const local: string[] = [];
    const remote: string[] = [];
    for (let i = 0; i < keys; i++) {
      const key = keyOf(i);
      (owner.get(partitionForKey(Buffer.from(key), PARTITIONS)) === first.process.server ? local : remote).push(key);
    }

    const get = (list: string[]) => async (i: number) => {
      const key = list[i % list.length]!;
      const answer = await call(first, 'POST', storePath, { type: 'key_value', query: { get: { key } } });
      const result = answer.body as QueryResponse;
      if (answer.status !== 200 || result.status !== 'SUCCESS' || result.result.total !== 1) throw new Error(`get ${key}: ${JSON.stringify(answer.body)}`);
    };
    await load(Math.min(2000, queries), concurrency, get(local));
    await load(Math.min(2000, queries), concurrency, get(remote));
    // One in flight shows the latency of a query alone; `concurrency` in flight, the throughput.
    const sequential = Math.max(1, Math.floor(queries / 10));
    const localAlone = await load(sequential, 1, get(local));
    const remoteAlone = await load(sequential, 1, get(remote));
    const localRun = await load(queries, concurrency, get(local));
    const remoteRun = await load(queries, concurrency, get(remote));
    const allRun = await load(allRuns, 1, async () => {
      const answer = await call(first, 'POST', storePath, { type: 'key_value', query: { all: {} } });
      const result = answer.body as QueryResponse;
      if (result.status !== 'SUCCESS' || result.result.total !== keys) throw new Error(`all: ${result.status}, ${result.result.total} records`);
    });
    const allP50 = percentile(allRun.latencies, 50);
    process.stdout.write(
      [
        `sluice interactive queries: 3 nodes on loopback, ${keys} keys, ${PARTITIONS} partitions (${os.cpus().length} CPUs)`,
        report('get, answered locally', localAlone, ', 1 in flight'),
        report('get, forwarded to a peer', remoteAlone, ', 1 in flight'),
        report('get, answered locally', localRun, `, ${concurrency} in flight`),
        report('get, forwarded to a peer', remoteRun, `, ${concurrency} in flight`),
        report(`all (${keys} records, 3 parts)`, allRun, `; ${Math.round(keys / (allP50 / 1000))} records/s at p50`),
      ].join('\n') + '\n',
    );
  } finally {
    await stopNodes(nodes);
  }
}

/** A node holding every key, as the one-node section queries it. */
interface Target {
  label: string;
  pool: Pool;
  storePath: string;
  /** Why it stopped by itself, or undefined while it runs. */
  failure(): string | undefined;
  /** CPU seconds its process has used. */
  cpuSeconds(): number | undefined;
}

/** `get` with 1 and with `concurrency` in flight, and `all`, on one node. */
interface Figures {
  alone: Run;
  loaded: Run;
  all: Run;
}

/** The records an `all` query answers, each part's records counted (not its announced total). */
async function allRecords(target: Target): Promise<number> {
  const answer = await call(target, 'POST', target.storePath, { type: 'key_value', query: { all: {} } });
  const result = answer.body as QueryResponse;
  if (answer.status !== 200 || result.status !== 'SUCCESS') throw new Error(`all: ${JSON.stringify(result).slice(0, 500)}`);
  return result.result.success.reduce((sum, part) => sum + part.records.length, 0);
}

/**
 * Waits until `target` holds every key, then measures it. Readiness is `all` for both sides: Azkarra's `count` is
 * RocksDB's estimate of the number of keys, which need not ever equal N.
 */
async function measureOneNode(target: Target, bench: Bench): Promise<Figures> {
  const { keys, queries, concurrency, allRuns } = bench;
  const loadStart = Date.now();
  const ready = await until(
    `${target.label} to hold every key`,
    async () => target.failure() ?? (await allRecords(target)),
    (held) => typeof held === 'string' || held === keys,
  );
  if (typeof ready === 'string') throw new Error(ready);
  log(`${target.label} ready with ${keys} keys in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);

  const get = async (i: number) => {
    const n = i % keys;
    const answer = await call(target, 'POST', target.storePath, { type: 'key_value', query: { get: { key: keyOf(n) } } });
    const result = answer.body as QueryResponse;
    const record = result.result?.success?.[0]?.records[0];
    if (answer.status !== 200 || result.status !== 'SUCCESS' || result.result.total !== 1 || record?.value !== valueOf(n)) {
      throw new Error(`${target.label} get ${keyOf(n)}: ${JSON.stringify(answer.body)}`);
    }
  };
  const everyRecord = async () => {
    const held = await allRecords(target);
    if (held !== keys) throw new Error(`${target.label} all: ${held} records`);
  };
  // A full unmeasured pass of each first: a JVM compiles its hot paths only after many thousands of calls.
  await load(queries, concurrency, get);
  await load(allRuns, 1, everyRecord);
  const measured = async (total: number, inFlight: number, one: (i: number) => Promise<void>): Promise<Run> => {
    const before = target.cpuSeconds();
    const run = await load(total, inFlight, one);
    const after = target.cpuSeconds();
    return before === undefined || after === undefined ? run : { ...run, nodeCpuSeconds: after - before };
  };
  const alone = await measured(Math.max(1, Math.floor(queries / 10)), 1, get);
  const loaded = await measured(queries, concurrency, get);
  const all = await measured(allRuns, 1, everyRecord);
  return { alone, loaded, all };
}

async function sluiceAlone(bench: Bench): Promise<Figures> {
  const applicationId = `bench-queries-one-${bench.suffix}`;
  const node = await startNode('node-one', path.join(bench.workDir, 'one'), bench.bootstrapServers, applicationId, bench.input);
  try {
    const target = { label: 'Sluice', pool: node.pool, storePath: storePathOf(applicationId), failure: () => node.process.failure(), cpuSeconds: () => node.process.cpuSeconds() };
    return await measureOneNode(target, bench);
  } finally {
    await stopNodes([node]);
  }
}

/** Azkarra's figures, or why it cannot run here. */
async function azkarraAlone(bench: Bench): Promise<Figures | string> {
  const applicationId = `bench-queries-azkarra-${bench.suffix}`;
  const node = await azkarraNode(
    { bootstrapServers: bench.bootstrapServers, applicationId, input: bench.input, port: await freePort() },
    log,
  );
  if (typeof node === 'string') return node;
  const pool = new Pool(node.url, { connections: 64 });
  try {
    return await measureOneNode({ label: AZKARRA_LABEL, pool, storePath: storePathOf(applicationId), failure: () => node.failure(), cpuSeconds: () => node.cpuSeconds() }, bench);
  } finally {
    await pool.close();
    await node.stop();
  }
}

/** The node's CPU per query, in ms. */
function cpuPerQuery(run: Run): number | undefined {
  return run.nodeCpuSeconds === undefined ? undefined : (run.nodeCpuSeconds * 1000) / run.latencies.length;
}

function cell(run: Run): string {
  const qps = queriesPerSecond(run);
  const cpu = cpuPerQuery(run);
  // `all` runs a few queries a second: whole numbers would make its ratio meaningless.
  return `${qps < 100 ? qps.toFixed(1) : Math.round(qps)} q/s, p50 ${percentile(run.latencies, 50).toFixed(2)} ms, CPU ${cpu === undefined ? 'n/a' : `${cpu < 1 ? cpu.toFixed(3) : cpu.toFixed(1)} ms`}/q`;
}

/** Azkarra's CPU per query over Sluice's (above 1: Sluice spends less). */
function cpuRatio(sluice: Run, azkarra: Run): string {
  const [ours, theirs] = [cpuPerQuery(sluice), cpuPerQuery(azkarra)];
  return ours === undefined || theirs === undefined || ours === 0 ? 'n/a' : (theirs / ours).toFixed(2);
}

function comparison(bench: Bench, sluice: Figures, azkarra: Figures | string): string {
  const rows: [string, keyof Figures][] = [
    ['get, 1 in flight', 'alone'],
    [`get, ${bench.concurrency} in flight`, 'loaded'],
    [`all (${bench.keys} records)`, 'all'],
  ];
  const line = (label: string, a: string, b: string, ratio: string) => `  ${label.padEnd(22)} ${a.padEnd(44)} ${b.padEnd(44)} ${ratio}`;
  const lines = [
    `one node each, same store: ${bench.keys} keys, ${PARTITIONS} partitions (${os.cpus().length} CPUs), each node measured alone`,
    line('', 'Sluice', AZKARRA_LABEL, 'Sluice/Azkarra queries/s; Azkarra/Sluice node CPU per query'),
    ...rows.map(([label, measure]) =>
      typeof azkarra === 'string'
        ? line(label, cell(sluice[measure]), '-', '-')
        : line(
            label,
            cell(sluice[measure]),
            cell(azkarra[measure]),
            `${(queriesPerSecond(sluice[measure]) / queriesPerSecond(azkarra[measure])).toFixed(2)}; ${cpuRatio(sluice[measure], azkarra[measure])}`,
          ),
    ),
  ];
  if (typeof azkarra === 'string') lines.push(`  ${AZKARRA_LABEL} not measured: ${azkarra}`);
  return lines.join('\n') + '\n';
}

/** Resident set size of the node in MB, from /proc (Linux). */
function rssMb(node: Node): number {
  const bytes = node.process.rss();
  if (bytes === undefined) throw new Error(`no RSS of ${node.process.label}: ${node.process.failure() ?? 'no /proc'}`);
  return bytes / 1024 / 1024;
}

/**
 * The node's memory while it streams an `all` of `keys` records (issue 16: it must stay flat whatever the store's
 * size): its RSS before, and the highest sampled every 10 ms while the answer is read (as fast as the client can,
 * without keeping it).
 */
async function rssDuringAll(bench: Bench, keys: number, kafka: ReturnType<typeof createKafkaClient>): Promise<string> {
  const input = `bench-queries-rss-${bench.suffix}`;
  const admin = kafka.admin();
  await admin.connect();
  await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
  await admin.disconnect();
  await produceKeys(kafka, input, keys);
  const applicationId = `bench-queries-rss-${bench.suffix}`;
  const node = await startNode('node-rss', path.join(bench.workDir, 'rss'), bench.bootstrapServers, applicationId, input);
  const storePath = storePathOf(applicationId);
  try {
    const loadStart = Date.now();
    await until(
      `the node to hold ${keys} keys`,
      () => call(node, 'POST', storePath, { type: 'key_value', query: { count: {} } }),
      (answer) => (answer.body as QueryResponse).result?.success?.[0]?.records[0]?.value === keys,
      900_000,
    );
    log(`RSS node ready with ${keys} keys in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);
    // Let the last commit and the restore's garbage settle.
    await sleep(5000);
    const before = rssMb(node);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(node))), 10);
    const started = performance.now();
    let bytes = 0;
    let tail = '';
    try {
      const response = await node.pool.request({
        method: 'POST',
        path: storePath,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'key_value', query: { all: {} } }),
        bodyTimeout: 600_000,
      });
      for await (const chunk of response.body) {
        bytes += (chunk as Buffer).length;
        tail = (tail + (chunk as Buffer).toString('utf8')).slice(-400);
      }
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    const outcome = /"total":(\d+)(?:,"error":"[^"]*")?\},"status":"(\w+)"/.exec(tail);
    if (!outcome || outcome[2] !== 'SUCCESS' || Number(outcome[1]) !== keys) throw new Error(`all of ${keys}: answer ends with ${tail}`);
    return [
      `node memory while it answers an all of ${keys} records (one node, ${(bytes / 1e6).toFixed(0)} MB of JSON read by the client in ${seconds.toFixed(1)} s)`,
      `  RSS before ${before.toFixed(0)} MB, peak during ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB)`,
    ].join('\n') + '\n';
  } finally {
    await stopNodes([node]);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keys: { type: 'string', default: '100000' },
      queries: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '16' },
      'all-runs': { type: 'string', default: '10' },
      'no-azkarra': { type: 'boolean', default: false },
      'rss-keys': { type: 'string', default: '1000000' },
      'no-rss': { type: 'boolean', default: false },
    },
  });
  const keys = Number(values.keys);

  const broker = await provideBroker({ log });
  const suffix = Date.now().toString(36);
  const input = `bench-queries-in-${suffix}`;
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-queries' });
  const admin = kafka.admin();
  await admin.connect();
  await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
  await produceKeys(kafka, input, keys);

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-queries-'));
  log(`node logs under ${workDir}`);
  const bench: Bench = {
    keys,
    queries: Number(values.queries),
    concurrency: Number(values.concurrency),
    allRuns: Number(values['all-runs']),
    bootstrapServers: broker.bootstrapServers,
    input,
    suffix,
    workDir,
  };
  try {
    await threeNodes(bench);
    // One after the other, each with the machine to itself: on 2 cores an idle JVM or Node process still takes some.
    const sluice = await sluiceAlone(bench);
    const azkarra = values['no-azkarra'] ? 'skipped (--no-azkarra)' : await azkarraAlone(bench);
    process.stdout.write(comparison(bench, sluice, azkarra));
    if (!values['no-rss']) process.stdout.write(await rssDuringAll(bench, Number(values['rss-keys']), kafka));
  } finally {
    await admin.disconnect();
    await broker.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

runMain(main);
