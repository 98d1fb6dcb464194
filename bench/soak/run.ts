/**
 * Soak benchmark (issue 17): three `sluice start` nodes of one word-count application on a broker of its own, for
 * --minutes (default 10) under a steady load: lines of a fixed vocabulary produced at --rate lines/s, --subscribers
 * SSE streams and --queries store queries a second spread over the nodes (local and forwarded keys alike). Prints
 * each minute, per node, RSS, heap in use and records processed, and the query count, p50 and p99, SSE events and
 * errors (any non-2xx, failed query part, missing word, SSE disconnect or dropped events, failed produce); at the end
 * each node's RSS growth after the first minute against the goal (< 10 %) and the errors against the goal (0).
 * Figures only; nothing is asserted: it exits 1 only when the cluster never became ready.
 * Usage: `npm run bench:soak -- [--minutes N] [--rate L] [--subscribers S] [--queries Q] [--vocabulary V]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT } from '../../examples/word-count';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { createKafkaClient, createTopics, type KafkaClient } from '../../src/streams/kafka';
import { log, positiveInteger, runMain, sleep } from '../support/program';
import { APPLICATION_ID, startNodes, stopNodes, STORE, waitCounted, type SoakNode } from './cluster';
import { ErrorTally } from './errors';
import { produceVocabulary, wordLines } from './input';
import { NodeWatch } from './node-figures';
import { QueryLoad } from './query-load';
import { minuteBlock, summary, type Minute, type NodeMinute } from './report';
import { Subscribers } from './subscribers';

const NODES = 3;
const PARTITIONS = 6;
const MINUTE_MS = 60_000;
const COUNTED_WITHIN_MS = 180_000;

interface Options {
  minutes: number;
  rate: number;
  subscribers: number;
  queries: number;
  vocabulary: number;
}

function options(): Options {
  return new Command('bench:soak')
    .option('--minutes <n>', 'how long the load runs', positiveInteger, 10)
    .option('--rate <lines>', 'input lines a second (5 words each)', positiveInteger, 200)
    .option('--subscribers <n>', 'SSE subscribers', positiveInteger, 200)
    .option('--queries <n>', 'store queries a second', positiveInteger, 500)
    .option('--vocabulary <n>', 'distinct words, so keys in the store', positiveInteger, 2000)
    .parse()
    .opts<Options>();
}

async function main(): Promise<void> {
  const settings = options();
  const broker = await provideBroker({ log });
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-soak' });
  const admin = kafka.admin();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-soak-'));
  try {
    await admin.connect();
    // Only on a shared cluster (KAFKA_BOOTSTRAP_SERVERS): old lines would be counted too.
    if ((await admin.listTopics()).includes(WORD_COUNT_INPUT)) throw new Error(`topic ${WORD_COUNT_INPUT} already exists on ${broker.bootstrapServers}`);
    await createTopics(admin, [WORD_COUNT_INPUT, WORD_COUNT_OUTPUT].map((name) => ({ name, partitions: PARTITIONS })));
    const nodes = await startNodes(NODES, workDir, broker.bootstrapServers);
    try {
      await produceVocabulary(kafka, WORD_COUNT_INPUT, settings.vocabulary);
      await waitCounted(nodes, settings.vocabulary, COUNTED_WITHIN_MS);
      log(`${NODES} nodes hold the ${settings.vocabulary} words; the load starts (node logs under ${workDir})`);
      await soak(nodes, settings, kafka);
    } finally {
      await stopNodes(nodes);
    }
  } finally {
    await admin.disconnect();
    await broker.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** The load for settings.minutes, a block printed each minute, and the summary. */
async function soak(nodes: readonly SoakNode[], settings: Options, kafka: KafkaClient): Promise<void> {
  const errors = new ErrorTally();
  const clients = nodes.map((node) => node.client);
  const input = wordLines(kafka, WORD_COUNT_INPUT, settings.vocabulary, errors);
  const queries = new QueryLoad(clients, APPLICATION_ID, STORE, settings.vocabulary, errors);
  const subscribers = new Subscribers(clients, APPLICATION_ID, errors);
  process.stdout.write(
    `soak: ${NODES} sluice start nodes of a word count (${PARTITIONS} partitions, ${settings.vocabulary} words), ${settings.rate} lines/s, ` +
      `${settings.subscribers} SSE subscribers, ${settings.queries} queries/s, ${settings.minutes} minute(s); ${os.cpus().length} CPUs\n`,
  );
  const watches = nodes.map((node) => new NodeWatch(node, errors));
  let previous = (await Promise.all(watches.map((watch) => watch.start()))).map((figures) => figures?.processed);
  const started = Date.now();
  await input.start(settings.rate);
  queries.start(settings.queries);
  subscribers.start(settings.subscribers);
  const minutes: Minute[] = [];
  try {
    for (let index = 1; index <= settings.minutes; index++) {
      await sleep(started + index * MINUTE_MS - Date.now());
      const figures = await Promise.all(watches.map((watch) => watch.takeMinute()));
      const nodeMinutes: NodeMinute[] = nodes.map((node, i) => ({
        label: node.process.label,
        figures: figures[i]!,
        processed: processedSince(previous[i], figures[i]!.last?.processed),
      }));
      previous = figures.map((f) => f.last?.processed);
      const minute: Minute = {
        index,
        loadAverage: os.loadavg()[0]!,
        produced: input.takeMinute(),
        queries: queries.takeMinute(),
        sseEvents: subscribers.takeMinute(),
        sseOpen: subscribers.open,
        errors: errors.takeMinute(),
        nodes: nodeMinutes,
      };
      minutes.push(minute);
      process.stdout.write(minuteBlock(minute));
    }
  } finally {
    for (const watch of watches) watch.stop();
    await Promise.all([input.stop(), queries.stop(), subscribers.stop()]);
  }
  process.stdout.write(summary(minutes, errors.total, errors.takeMinute()));
}

/** Records processed between two readings of a counter; a counter that went back (a thread replaced) started again from 0. */
function processedSince(before: number | undefined, now: number | undefined): number | undefined {
  if (before === undefined || now === undefined) return undefined;
  return now >= before ? now - before : now;
}

runMain(main);
