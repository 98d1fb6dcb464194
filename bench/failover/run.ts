/**
 * Failover benchmark (issue 14): three `sluice start` nodes of one application keeping --keys keys (default
 * 1 000 000) in a key-value store (the query benchmark's topology), on a broker of its own. First a SIGKILL of one
 * node with num.standby.replicas 0 and then 1: how soon a sample of its keys answers on a survivor with allow_stale
 * and from an active, and what the promoted tasks restored (kill.ts). Then a rolling restart of the three nodes
 * under steady input and queries, with dynamic and then static membership: the longest pauses of processing and
 * queries on the other nodes (rolling.ts). Each run has a fresh application and state. Figures only; nothing is
 * asserted.
 * Usage: `npm run bench:failover -- [--keys N] [--sample K] [--kill-session-timeout MS] [--rolling-session-timeout MS] [--rate R]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import { produceKeys } from '../support/keyed-input';
import { log, positiveInteger, runMain } from '../support/program';
import { PARTITIONS, startCluster, waitLoaded, type ClusterNode, type ClusterSettings } from './cluster';
import { killOne, type KillFigures } from './kill';
import { killBlock, rollingBlock, summary } from './report';
import { rollingRestart, type RollingFigures } from './rolling';

const NODES = 3;
const LOADED_WITHIN_MS = 900_000;
/** The rolling restarts run with a standby of every task, as a highly available deployment would. */
const ROLLING_STANDBYS = 1;

interface Options {
  keys: number;
  sample: number;
  killSessionTimeout: number;
  rollingSessionTimeout: number;
  rate: number;
}

function options(): Options {
  return new Command('bench:failover')
    .option('--keys <n>', 'keys in the store', positiveInteger, 1_000_000)
    .option('--sample <n>', 'keys of the killed node queried', positiveInteger, 200)
    .option('--kill-session-timeout <ms>', 'session.timeout.ms of the SIGKILL runs: when the group notices the death', positiveInteger, 6000)
    .option('--rolling-session-timeout <ms>', 'session.timeout.ms of the rolling restarts', positiveInteger, 30_000)
    .option('--rate <n>', 'key updates a second during the rolling restarts', positiveInteger, 200)
    .parse()
    .opts<Options>();
}

const loadAverage = (): string => os.loadavg()[0]!.toFixed(1);

async function main(): Promise<void> {
  const settings = options();
  const broker = await provideBroker({ log });
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-failover' });
  const admin = kafka.admin();
  const suffix = Date.now().toString(36);
  const input = `bench-failover-in-${suffix}`;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-failover-'));
  const loads: string[] = [];
  try {
    await admin.connect();
    await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
    const produced = Date.now();
    await produceKeys(kafka, input, settings.keys);
    log(`produced ${settings.keys} keys in ${((Date.now() - produced) / 1000).toFixed(1)} s; node logs under ${workDir}`);
    process.stdout.write(`failover: ${NODES} sluice start nodes, ${settings.keys} keys over ${PARTITIONS} partitions; ${os.cpus().length} CPUs\n`);
    const cluster = (name: string, standbys: number, sessionTimeoutMs: number, staticMembership: boolean): ClusterSettings => ({
      applicationId: `bench-failover-${name}-${suffix}`,
      input,
      bootstrapServers: broker.bootstrapServers,
      workDir,
      standbys,
      sessionTimeoutMs,
      staticMembership,
    });
    const kills: KillFigures[] = [];
    for (const standbys of [0, 1]) {
      const figures = await withCluster(cluster(`kill-${standbys}`, standbys, settings.killSessionTimeout, false), settings.keys, loads, (nodes, s) =>
        killOne(nodes, s, settings.keys, settings.sample),
      );
      kills.push(figures);
      process.stdout.write(killBlock(figures));
    }
    const rollings: RollingFigures[] = [];
    for (const staticMembership of [false, true]) {
      const name = staticMembership ? 'static' : 'dynamic';
      const figures = await withCluster(cluster(name, ROLLING_STANDBYS, settings.rollingSessionTimeout, staticMembership), settings.keys, loads, (nodes, s) =>
        rollingRestart(nodes, s, kafka, settings.keys, settings.rate),
      );
      rollings.push(figures);
      process.stdout.write(rollingBlock(figures));
    }
    process.stdout.write(summary(settings.keys, kills, rollings, loads));
  } finally {
    await admin.disconnect();
    await broker.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** Starts a cluster of the settings, waits until it holds every key, runs `measure` on it, and stops it. */
async function withCluster<T>(
  settings: ClusterSettings,
  keys: number,
  loads: string[],
  measure: (nodes: readonly ClusterNode[], settings: ClusterSettings) => Promise<T>,
): Promise<T> {
  const nodes = await startCluster(settings, NODES);
  try {
    const started = Date.now();
    await waitLoaded(nodes, settings, keys, LOADED_WITHIN_MS);
    log(`${settings.applicationId}: ${keys} keys on ${NODES} nodes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const before = loadAverage();
    const figures = await measure(nodes, settings);
    loads.push(`${before}–${loadAverage()}`);
    return figures;
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
  }
}

runMain(main);
