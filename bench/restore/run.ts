/**
 * Restore benchmark: a word count whose store holds about N distinct keys (default 1 000 000) over 4 partitions
 * loses its local state and starts again, as a pod replaced on another Kubernetes node does. On a broker of its own,
 * N distinct words, 10 a line, go to WordCountDemo's input topic; Sluice's word count (examples/word-count.ts run by
 * wordcount/sluice-wordcount.js, store `count`) and Kafka Streams' WordCountDemo (wordcount/java/
 * ReportingWordCountDemo.java) each count them under an application id of their own, which fills their changelog as
 * a user's application would, and stop. Then, one side at a time: its group empty (Kafka Streams' member stays until
 * session.timeout.ms), its local state directory deleted (it goes with the process' directory), started again. Printed
 * side by side with the ratio: launch to RUNNING, records restored and the restore phase as the process itself reports
 * them (Sluice: its restore-total metric and its stores' last restorations; Kafka Streams: a StateRestoreListener),
 * restore records/s, and peak RSS from launch to RUNNING. A side not RUNNING within --timeout seconds is reported
 * with the last progress it reported. Figures only; nothing is asserted: it exits 1 only when Sluice gave no figure.
 * Usage: `npm run bench:restore -- [--keys N] [--guarantee at_least_once|exactly_once_v2] [--timeout S] [--no-java]`.
 */
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import type { Admin } from 'kafkajs';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT } from '../../examples/word-count';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import type { MeasuredProcess } from '../support/child-process';
import { KAFKA_STREAMS_LABEL, reportingWordCountDemo, type ReportingWordCountDemo } from '../support/kafka-streams-java';
import { log, mb, runMain, sleep } from '../support/program';
import { StreamsReports } from '../support/streams-report';
import { maxDefined, produceLines, sumOffsets, waitCaughtUp } from '../support/word-count-topics';
import { startSluiceWordCount } from '../wordcount/sluice-side';

const PARTITIONS = 4;
const WORDS_PER_LINE = 10;
const SLUICE_OUTPUT = 'bench-restore-sluice-output';
const COMMIT_INTERVAL_MS = 1000;
/** Sluice's default record cache, set on both: WordCountDemo would otherwise turn Kafka Streams' off. */
const CACHE_BYTES = 10 * 1024 * 1024;
const POLL_MS = 100;
/** Longer than Kafka Streams' default session.timeout.ms (45 s), after which its closed member is gone. */
const GROUP_EMPTY_TIMEOUT_MS = 120_000;

type Guarantee = 'at_least_once' | 'exactly_once_v2';

/** One implementation: a word count over the shared input under an application id of its own. */
interface RestoreSide {
  readonly label: string;
  readonly applicationId: string;
  /** Starts the word count with an empty local state directory; stdout lines go to `onStdoutLine`. */
  start(onStdoutLine: (line: string) => void): Promise<MeasuredProcess>;
}

interface Figures {
  /** Records in the changelog (offsets: under exactly-once, transaction markers too). */
  changelogRecords: number;
  /** From launch to RUNNING, or to the timeout. */
  peakRss: number | undefined;
  /** Reported at RUNNING; undefined when it did not get there in time. */
  running?: { launchToRunningMs: number; records: number; phaseMs: number };
  /** Why it is not RUNNING, with the last progress it reported. */
  notRunning?: string;
}

/** Figures, or why there are none. */
type Outcome = Figures | string;

/** Line i: words w<10i> to w<10i+9>, each word once in the whole input, so every word is a key of its own. */
function distinctWordsLine(keys: number): (i: number) => string {
  return (i) => {
    const words: string[] = [];
    for (let k = i * WORDS_PER_LINE; k < Math.min(keys, (i + 1) * WORDS_PER_LINE); k++) words.push(`w${k}`);
    return words.join(' ');
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keys: { type: 'string', default: '1000000' },
      guarantee: { type: 'string', default: 'at_least_once' },
      timeout: { type: 'string', default: '300' },
      'no-java': { type: 'boolean', default: false },
    },
  });
  const keys = Number(values.keys);
  const timeoutS = Number(values.timeout);
  if (![keys, timeoutS].every((n) => Number.isInteger(n) && n > 0)) throw new Error('--keys and --timeout take positive integers');
  const guarantee = values.guarantee;
  if (guarantee !== 'at_least_once' && guarantee !== 'exactly_once_v2') throw new Error('--guarantee takes at_least_once or exactly_once_v2');
  // Fetched and compiled before the broker starts, outside any timing.
  const java = values['no-java'] ? undefined : await reportingWordCountDemo(log);
  try {
    await compare(keys, guarantee, timeoutS, java);
  } finally {
    if (typeof java === 'object') java.dispose();
  }
}

/** Both sides on one broker of their own; `java` undefined: Sluice alone, a string: why Kafka Streams cannot run. */
async function compare(keys: number, guarantee: Guarantee, timeoutS: number, java: ReportingWordCountDemo | string | undefined): Promise<void> {
  const loadAverage = os.loadavg()[0]!;
  const suffix = Date.now().toString(36);
  const broker = await provideBroker({ log });
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench-restore' });
  const admin = kafka.admin();
  try {
    await admin.connect();
    // Only on a shared cluster (KAFKA_BOOTSTRAP_SERVERS): old lines would be counted too.
    if ((await admin.listTopics()).includes(WORD_COUNT_INPUT)) throw new Error(`topic ${WORD_COUNT_INPUT} already exists on ${broker.bootstrapServers}`);
    await createTopics(admin, [WORD_COUNT_INPUT, WORD_COUNT_OUTPUT, SLUICE_OUTPUT].map((name) => ({ name, partitions: PARTITIONS })));
    await produceLines(kafka, WORD_COUNT_INPUT, Math.ceil(keys / WORDS_PER_LINE), distinctWordsLine(keys), 'both sides');

    const sluiceSide: RestoreSide = {
      label: 'Sluice',
      applicationId: `restore-sluice-${suffix}`,
      start: (onStdoutLine) =>
        startSluiceWordCount(
          {
            'application.id': `restore-sluice-${suffix}`,
            'bootstrap.servers': broker.bootstrapServers,
            'commit.interval.ms': COMMIT_INTERVAL_MS,
            'cache.max.bytes.buffering': CACHE_BYTES,
            'processing.guarantee': guarantee,
          },
          WORD_COUNT_INPUT,
          SLUICE_OUTPUT,
          onStdoutLine,
        ),
    };
    const sluice = await measure(admin, sluiceSide, timeoutS);
    let kafkaStreams: Outcome | undefined;
    if (typeof java === 'string') kafkaStreams = java;
    else if (java !== undefined) {
      const javaSide: RestoreSide = {
        label: KAFKA_STREAMS_LABEL,
        applicationId: `restore-java-${suffix}`,
        start: (onStdoutLine) =>
          java.start(
            {
              'application.id': `restore-java-${suffix}`,
              'bootstrap.servers': broker.bootstrapServers,
              'commit.interval.ms': String(COMMIT_INTERVAL_MS),
              'statestore.cache.max.bytes': String(CACHE_BYTES),
              'processing.guarantee': guarantee,
            },
            onStdoutLine,
          ),
      };
      kafkaStreams = await measure(admin, javaSide, timeoutS).catch((error: Error) => error.message);
    }
    report(keys, guarantee, timeoutS, loadAverage, sluice, kafkaStreams);
    // No Sluice figure is a broken benchmark; a missing Java figure is only a missing comparison.
    if (typeof sluice === 'string') process.exitCode = 1;
  } finally {
    await admin.disconnect();
    await broker.stop();
  }
}

/** Fills the side's changelog, then restarts it without local state and measures its way back to RUNNING. */
async function measure(admin: Admin, side: RestoreSide, timeoutS: number): Promise<Outcome> {
  const { label, applicationId } = side;
  const filling = await side.start(() => undefined);
  const fillStarted = Date.now();
  const failure = await waitCaughtUp(admin, applicationId, WORD_COUNT_INPUT, filling).finally(() => filling.stop());
  if (failure !== undefined) return `counting the input failed: ${failure}`;
  log(`${label} counted the input in ${((Date.now() - fillStarted) / 1000).toFixed(1)} s; stopped, its state directory deleted`);

  const changelog = (await admin.listTopics()).find((topic) => topic.startsWith(`${applicationId}-`) && topic.endsWith('-changelog'));
  if (changelog === undefined) return `no changelog topic of ${applicationId}`;
  const offsets = await admin.fetchTopicOffsets(changelog);
  const changelogRecords = sumOffsets(offsets, 'high') - sumOffsets(offsets, 'low');
  const emptied = await groupEmpty(admin, applicationId);
  if (emptied !== undefined) return emptied;

  const reports = new StreamsReports();
  const launchedAt = Date.now();
  const restoring = await side.start(reports.onLine);
  let peakRss = restoring.rss();
  try {
    for (;;) {
      await sleep(POLL_MS);
      peakRss = maxDefined(peakRss, restoring.rss());
      const stopped = restoring.failure();
      if (stopped !== undefined) return stopped;
      const { runningAt, restored } = reports;
      // The restore figures follow the RUNNING state shortly.
      if (runningAt !== undefined && restored !== undefined) {
        log(`${label} restarted: ${reports.states.map((s) => `${s.state} +${((s.at - launchedAt) / 1000).toFixed(1)} s`).join(', ')}`);
        return { changelogRecords, peakRss, running: { launchToRunningMs: runningAt - launchedAt, records: restored.records, phaseMs: restored.phaseMs } };
      }
      if (Date.now() - launchedAt > timeoutS * 1000) {
        const progress = reports.lastProgress;
        const seen =
          progress === undefined
            ? 'no progress reported'
            : `state ${progress.state}, ${progress.restored} records restored, ${progress.remaining} remaining (as reported ${((Date.now() - progress.at) / 1000).toFixed(0)} s before)`;
        return { changelogRecords, peakRss, notRunning: `did not reach RUNNING within ${timeoutS} s: ${seen}` };
      }
    }
  } finally {
    await restoring.stop();
  }
}

/** Waits until the group has no member (a closed Kafka Streams member stays until session.timeout.ms); or why not. */
async function groupEmpty(admin: Admin, groupId: string): Promise<string | undefined> {
  const started = Date.now();
  for (;;) {
    const [group] = (await admin.describeGroups([groupId])).groups;
    if (group === undefined || group.members.length === 0) break;
    if (Date.now() - started > GROUP_EMPTY_TIMEOUT_MS) return `group ${groupId} still has ${group.members.length} member(s) after ${GROUP_EMPTY_TIMEOUT_MS / 1000} s`;
    await sleep(500);
  }
  const waited = Date.now() - started;
  if (waited > 1000) log(`waited ${(waited / 1000).toFixed(1)} s for the members of ${groupId} to expire`);
  return undefined;
}

function report(keys: number, guarantee: Guarantee, timeoutS: number, loadAverage: number, sluice: Outcome, kafkaStreams: Outcome | undefined): void {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const rate = (f: Figures): number | undefined => (f.running && f.running.phaseMs > 0 ? f.running.records / (f.running.phaseMs / 1000) : undefined);
  const rows: [string, (f: Figures) => string][] = [
    ['changelog records', (f) => String(f.changelogRecords)],
    ['launch to RUNNING', (f) => (f.running ? seconds(f.running.launchToRunningMs) : `> ${timeoutS} s`)],
    ['records restored', (f) => (f.running ? String(f.running.records) : 'n/a')],
    ['restore phase', (f) => (f.running ? seconds(f.running.phaseMs) : 'n/a')],
    ['restore records/s', (f) => {
      const perSecond = rate(f);
      return perSecond === undefined ? 'n/a' : String(Math.round(perSecond));
    }],
    ['peak RSS to RUNNING', (f) => mb(f.peakRss)],
  ];
  const columns: [string, Outcome][] = [['Sluice', sluice]];
  if (kafkaStreams !== undefined) columns.push([KAFKA_STREAMS_LABEL, kafkaStreams]);
  const out = [
    `restore, ${keys} keys over ${PARTITIONS} partitions, local state deleted, ${guarantee}`,
    // Broker, app and harness share the machine: other load there skews every figure.
    `  ${os.cpus().length} CPUs, load average ${loadAverage.toFixed(1)} at start`,
    `  ${''.padEnd(22)}${columns.map(([name]) => name.padEnd(22)).join('')}`,
    ...rows.map(([name, cell]) => `  ${name.padEnd(22)}${columns.map(([, o]) => (typeof o === 'string' ? 'n/a' : cell(o)).padEnd(22)).join('')}`),
  ];
  for (const [name, outcome] of columns) {
    if (typeof outcome === 'string') out.push(`  ${name}: ${outcome}`);
    else if (outcome.notRunning !== undefined) out.push(`  ${name}: ${outcome.notRunning}`);
  }
  if (typeof sluice !== 'string' && kafkaStreams !== undefined && typeof kafkaStreams !== 'string') {
    const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? 'n/a' : (a / b).toFixed(2));
    out.push(
      `  Sluice/Kafka Streams: restore records/s ${ratio(rate(sluice), rate(kafkaStreams))}, ` +
        `launch to RUNNING ${ratio(sluice.running?.launchToRunningMs, kafkaStreams.running?.launchToRunningMs)}, ` +
        `peak RSS ${ratio(sluice.peakRss, kafkaStreams.peakRss)}`,
    );
  }
  process.stdout.write(`${out.map((line) => line.trimEnd()).join('\n')}\n`);
}

runMain(main);
