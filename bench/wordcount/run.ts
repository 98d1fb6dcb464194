/**
 * Word-count benchmark: for Sluice (with one thread too when more are asked for), then for Kafka Streams' own
 * WordCountDemo (same settings), produces N lines
 * (default 1 000 000) of a fixed corpus to a fresh 4-partition topic on a broker of its own, runs the word count
 * until its group has committed the end of the input and of the repartition topic, and prints lines/s, time,
 * CPU used (seconds, and the cores that makes on average) and how busy the machine was, peak RSS and idle RSS (5 s and 30 s after catching up)
 * side by side with the ratios. Figures only; nothing is asserted:
 * it exits 1 only when Sluice gave no figure (an error, or no progress at all for 2 minutes).
 * Usage: `npm run bench:wordcount -- [--lines N] [--threads T] [--vocabulary V | --unique | --hostile KEYS]
 * [--guarantee at_least_once|exactly_once_v2] [--rounds R] [--no-java] [--java-heap 1g] [--budget MiB] [--otel-ratio F [--otel-vs-off]]` (the corpora:
 * corpus.ts; `--hostile` sets the lines). `--budget` runs Sluice in a memory cgroup of that size, which it takes as its
 * memory budget, as in a pod with that memory limit, and prints the cgroup's peak and OOM kills; `--java-heap` is the JVM's -Xmx;
 * `--otel-ratio` runs Sluice with OpenTelemetry on, its records sampled at that ratio, exporting to an OTLP sink in this
 * process; with `--otel-vs-off` each round also runs Sluice with it off, the two in turn (off first in odd rounds, on
 * first in even ones), and prints what tracing costs in CPU per line. With R rounds the sides alternate, Sluice then
 * Kafka Streams, R times, each round's table printed, then each ratio's median over the rounds.
 */
import { parseArgs } from 'node:util';
import * as os from 'node:os';
import { createKafkaClient, createTopics } from '../../src/streams/kafka';
import { KAFKA_VERSION } from '../../src/host/broker/jars';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { corpusOf, DEFAULT_VOCABULARY, HOSTILE_WORDS_PER_LINE, hostileCorpus, hostileLines, uniqueCorpus } from './corpus';
import { busyShare, machineCpuTimes } from '../support/machine-cpu';
import { log, mb, runMain, sleep } from '../support/program';
import { countsDiffer, expectedCounts, lastCounts, maxDefined, produceLines, waitCaughtUp } from '../support/word-count-topics';
import { kafkaStreamsSide } from './java-side';
import { sluiceSide } from './sluice-side';
import { startOtlpSink } from '../support/otlp-sink';
import type { CommonSettings, Side } from './side';

const PARTITIONS = 4;
const RSS_SAMPLE_MS = 100;
/** When idle RSS is read after catching up: V8 gives memory back only after some seconds of quiet (its memory reducer). */
const IDLE_AFTER_MS = [5_000, 30_000];

interface Figures {
  seconds: number;
  /** CPU seconds the side used until it caught up. */
  cpuSeconds: number | undefined;
  /** How busy the machine's CPUs were meanwhile (0 to 1), the broker's and the harness' work included. */
  machineBusy: number | undefined;
  peakRss: number | undefined;
  /** RSS at each of IDLE_AFTER_MS. */
  idleRss: (number | undefined)[];
  /** What held the side (a memory cgroup), read once it caught up. */
  limits: string | undefined;
}

/** Figures, or why there are none. */
type Outcome = Figures | string;


async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      lines: { type: 'string', default: '1000000' },
      threads: { type: 'string', default: '1' },
      guarantee: { type: 'string', default: 'at_least_once' },
      vocabulary: { type: 'string', default: String(DEFAULT_VOCABULARY) },
      unique: { type: 'boolean', default: false },
      hostile: { type: 'string' },
      'java-heap': { type: 'string' },
      budget: { type: 'string' },
      rounds: { type: 'string', default: '1' },
      'no-java': { type: 'boolean', default: false },
      'otel-ratio': { type: 'string' },
      'otel-vs-off': { type: 'boolean', default: false },
    },
  });
  let lines = Number(values.lines);
  const threads = Number(values.threads);
  const vocabulary = Number(values.vocabulary);
  const rounds = Number(values.rounds);
  if (![lines, threads, vocabulary, rounds].every((n) => Number.isInteger(n) && n > 0)) throw new Error('--lines, --threads, --vocabulary and --rounds take positive integers');
  const guarantee = values.guarantee;
  if (guarantee !== 'at_least_once' && guarantee !== 'exactly_once_v2') throw new Error('--guarantee takes at_least_once or exactly_once_v2');
  const otelRatio = values['otel-ratio'] === undefined ? undefined : Number(values['otel-ratio']);
  if (otelRatio !== undefined && !(otelRatio >= 0 && otelRatio <= 1)) throw new Error('--otel-ratio takes a number from 0 to 1');
  if (values['otel-vs-off'] && otelRatio === undefined) throw new Error('--otel-vs-off compares with --otel-ratio F: give the ratio');
  const sink = otelRatio === undefined ? undefined : await startOtlpSink();
  const otel =
    sink === undefined
      ? undefined
      : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(otelRatio), OTEL_METRICS_EXPORTER: 'none' };
  const budgetMiB = values.budget === undefined ? undefined : Number(values.budget);
  if (budgetMiB !== undefined && !(Number.isInteger(budgetMiB) && budgetMiB > 0)) throw new Error('--budget takes a positive number of MiB');
  const javaHeap = values['java-heap'];
  if (javaHeap !== undefined && !/^\d+[kmgKMG]?$/.test(javaHeap)) throw new Error('--java-heap takes a JVM size such as 1g');
  // Sluice's default cache, set on both: WordCountDemo would otherwise turn Kafka Streams' off.
  const settings: CommonSettings = { threads, commitIntervalMs: 1000, cacheBytes: 10 * 1024 * 1024, guarantee, javaHeap, budgetMiB };
  const hostileKeys = values.hostile === undefined ? undefined : Number(values.hostile);
  if (hostileKeys !== undefined && !(Number.isInteger(hostileKeys) && hostileKeys > 1)) throw new Error('--hostile takes a number of distinct keys above 1');
  if (hostileKeys !== undefined) lines = hostileLines(hostileKeys);
  const corpus =
    hostileKeys !== undefined
      ? `${HOSTILE_WORDS_PER_LINE} words seen once and one common word (${lines * HOSTILE_WORDS_PER_LINE + 1} distinct keys)`
      : values.unique
        ? 'every word distinct'
        : `${vocabulary} words${vocabulary > 12 ? ' (Zipf)' : ''}`;
  const lineOf = hostileKeys !== undefined ? hostileCorpus() : values.unique ? uniqueCorpus() : corpusOf(vocabulary);
  const expected = expectedCounts(lines, lineOf);
  const ratios: Ratios[] = [];
  for (let round = 1; round <= rounds; round++) {
    const suffix = `${Date.now().toString(36)}-${round}`;
    const loadAverage = os.loadavg()[0]!;
    // Beside N threads, one: what the threads past the first (each in a worker thread of its own) bring.
    const sluiceOne = threads > 1 ? await measure(sluiceSide({ ...settings, threads: 1 }, `${suffix}-1`), `bench-wc-${suffix}-1`, lines, lineOf, expected) : undefined;
    const untracedRun = () => measure(sluiceSide(settings, `${suffix}-off`), `bench-wc-${suffix}-off`, lines, lineOf, expected);
    const offFirst = values['otel-vs-off'] && round % 2 === 1;
    const untracedBefore = offFirst ? await untracedRun() : undefined;
    const sluice = await measure(sluiceSide(settings, suffix, otel), `bench-wc-${suffix}`, lines, lineOf, expected);
    const untraced = values['otel-vs-off'] ? (untracedBefore ?? (await untracedRun())) : undefined;
    let java: Outcome | undefined;
    if (!values['no-java']) {
      const side = await kafkaStreamsSide(settings, log);
      java = typeof side === 'string' ? side : await measure(side, `bench-wc-java-${suffix}`, lines, lineOf, expected).catch((error: Error) => error.message);
    }
    if (rounds > 1) process.stdout.write(`round ${round} of ${rounds}\n`);
    ratios.push(report(lines, corpus, settings, loadAverage, { sluiceOne, sluice, java, untraced, otelRatio }));
    if (sink !== undefined) process.stdout.write(`  Sluice with OpenTelemetry on, records sampled at ${otelRatio}: ${sink.received.traces} trace exports received\n`);
    // No Sluice figure is a broken benchmark; a missing Java figure is only a missing comparison.
    if (typeof sluice === 'string' || typeof sluiceOne === 'string' || typeof untraced === 'string') process.exitCode = 1;
  }
  if (rounds > 1) reportMedians(ratios);
  sink?.close();
}

/**
 * A round's ratios, Sluice's over Kafka Streams' (lines/s; CPU per line, Java's over Sluice's: above 1, Sluice is
 * cheaper); `tracingCpu`: Sluice's CPU per line with tracing on over with it off.
 */
interface Ratios {
  throughput?: number;
  cpuPerLine?: number;
  tracingCpu?: number;
}

/** A round's runs: Sluice (traced with an OpenTelemetry ratio), with one thread beside more, Kafka Streams, Sluice untraced. */
interface RoundOutcomes {
  sluiceOne: Outcome | undefined;
  sluice: Outcome;
  java: Outcome | undefined;
  untraced: Outcome | undefined;
  otelRatio: number | undefined;
}

function reportMedians(rounds: readonly Ratios[]): void {
  const median = (values: number[]): string => {
    if (values.length === 0) return 'n/a';
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return (sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2).toFixed(2);
  };
  const of = (pick: (r: Ratios) => number | undefined) => rounds.map(pick).filter((v): v is number => v !== undefined);
  const figures: [string, (r: Ratios) => number | undefined, number][] = [
    ['Sluice/Java lines/s', (r) => r.throughput, 2],
    ['Java/Sluice CPU per line', (r) => r.cpuPerLine, 2],
    ['Sluice traced/untraced CPU per line', (r) => r.tracingCpu, 3],
  ];
  const parts = figures
    .filter(([, pick]) => of(pick).length > 0)
    .map(([name, pick, digits]) => `${name} ${median(of(pick))} (rounds: ${of(pick).map((v) => v.toFixed(digits)).join(', ')})`);
  process.stdout.write(`median over ${rounds.length} rounds: ${parts.length === 0 ? 'no ratio' : parts.join('; ')}\n`);
}

/** One side's run on a broker of its own (both start from an empty broker); the broker is stopped after. */
async function measure(side: Side, applicationId: string, lines: number, lineOf: (i: number) => string, expected: ReadonlyMap<string, number>): Promise<Outcome> {
  const broker = await provideBroker({ log });
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench' });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const existing = (await admin.listTopics()).filter((topic) => topic === side.input || topic === side.output);
    // Only on a shared cluster (KAFKA_BOOTSTRAP_SERVERS): old records would be counted too.
    if (existing.length > 0) return `topic(s) ${existing.join(', ')} already exist on ${broker.bootstrapServers}`;
    await createTopics(admin, [side.input, side.output].map((name) => ({ name, partitions: PARTITIONS })));
    await produceLines(kafka, side.input, lines, lineOf, side.label);

    const started = Date.now();
    const running = await side.start(broker.bootstrapServers, applicationId);
    const cpuAtStart = running.cpuSeconds();
    const machineAtStart = machineCpuTimes();
    let peakRss = running.rss();
    const sampler = setInterval(() => (peakRss = maxDefined(peakRss, running.rss())), RSS_SAMPLE_MS);
    try {
      const failure = await waitCaughtUp(admin, applicationId, side.input, running);
      if (failure !== undefined) return running.limits === undefined ? failure : `${failure} (${running.limits()})`;
      const limits = running.limits?.();
      const seconds = (Date.now() - started) / 1000;
      const cpuNow = running.cpuSeconds();
      const machineBusy = busyShare(machineAtStart, machineCpuTimes());
      const cpuSeconds = cpuNow === undefined || cpuAtStart === undefined ? undefined : cpuNow - cpuAtStart;
      clearInterval(sampler);
      const idleRss: (number | undefined)[] = [];
      for (const [i, after] of IDLE_AFTER_MS.entries()) {
        await sleep(after - (IDLE_AFTER_MS[i - 1] ?? 0));
        idleRss.push(running.rss());
      }
      // Checked after the figures: a count that runs fast and counts wrong is no result.
      const wrong = countsDiffer(expected, await lastCounts(kafka, admin, side.output));
      if (wrong !== undefined) return wrong;
      return { seconds, cpuSeconds, machineBusy, peakRss, idleRss, limits };
    } finally {
      clearInterval(sampler);
      await running.stop();
    }
  } finally {
    await admin.disconnect();
    await broker.stop();
  }
}

function report(lines: number, corpus: string, settings: CommonSettings, loadAverage: number, { sluiceOne, sluice, java, untraced, otelRatio }: RoundOutcomes): Ratios {
  const rows: [string, (f: Figures) => string][] = [
    ['time', (f) => `${f.seconds.toFixed(1)} s`],
    ['lines/s', (f) => String(Math.round(lines / f.seconds))],
    ['CPU (cores on average)', (f) => (f.cpuSeconds === undefined ? 'n/a' : `${f.cpuSeconds.toFixed(1)} s (${(f.cpuSeconds / f.seconds).toFixed(2)})`)],
    ['CPU per 1 000 lines', (f) => (f.cpuSeconds === undefined ? 'n/a' : `${((f.cpuSeconds / lines) * 1e6).toFixed(1)} ms`)],
    ['machine CPU busy', (f) => (f.machineBusy === undefined ? 'n/a' : `${Math.round(f.machineBusy * 100)} % of ${os.cpus().length} cores`)],
    ['peak RSS', (f) => mb(f.peakRss)],
    ...IDLE_AFTER_MS.map((after, i): [string, (f: Figures) => string] => [`idle RSS (${after / 1000} s after)`, (f) => mb(f.idleRss[i])]),
  ];
  const threads = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
  const columns: [string, Outcome][] = [];
  if (sluiceOne !== undefined) columns.push([`Sluice, ${threads(1)}`, sluiceOne]);
  if (untraced !== undefined) columns.push([`Sluice, ${threads(settings.threads)}, untraced`, untraced]);
  columns.push([`Sluice, ${threads(settings.threads)}${otelRatio === undefined ? '' : `, traced ${otelRatio}`}`, sluice]);
  if (java !== undefined) columns.push([`Kafka Streams ${KAFKA_VERSION}, ${threads(settings.threads)}`, java]);
  const width = 32;
  const out = [
    `word count, ${lines} lines of ${corpus}, ${PARTITIONS} partitions, commit.interval.ms ${settings.commitIntervalMs}, ` +
      `cache ${mb(settings.cacheBytes)}, ${settings.guarantee}` +
      `${settings.javaHeap === undefined ? '' : `, Java -Xmx${settings.javaHeap}`}${settings.budgetMiB === undefined ? '' : `, Sluice in a ${settings.budgetMiB} MiB memory cgroup`}`,
    // Broker, app and harness share the machine: other load there skews every figure.
    `  ${os.cpus().length} CPUs, load average ${loadAverage.toFixed(1)} at start`,
    `  ${''.padEnd(26)}${columns.map(([name]) => name.padEnd(width)).join('')}`,
    ...rows.map(([name, cell]) => `  ${name.padEnd(26)}${columns.map(([, o]) => (typeof o === 'string' ? 'n/a' : cell(o)).padEnd(width)).join('')}`),
  ];
  for (const [name, outcome] of columns) {
    if (typeof outcome === 'string') out.push(`  ${name}: ${outcome}`);
    else if (outcome.limits !== undefined) out.push(`  ${name}: ${outcome.limits}`);
  }
  const ratios: Ratios = {};
  if (java !== undefined && typeof sluice !== 'string' && typeof java !== 'string') {
    ratios.throughput = java.seconds / sluice.seconds;
    out.push(`  Sluice/Java lines/s, ${threads(settings.threads)}: ${ratios.throughput.toFixed(2)}`);
    if (java.cpuSeconds !== undefined && sluice.cpuSeconds !== undefined) {
      ratios.cpuPerLine = java.cpuSeconds / sluice.cpuSeconds;
      out.push(`  Java/Sluice CPU per line, ${threads(settings.threads)}: ${ratios.cpuPerLine.toFixed(2)} (above 1: Sluice spends less)`);
    }
    if (java.peakRss !== undefined && sluice.peakRss !== undefined) out.push(`  Sluice/Java peak RSS: ${(sluice.peakRss / java.peakRss).toFixed(2)}`);
  }
  if (sluiceOne !== undefined && typeof sluiceOne !== 'string' && typeof sluice !== 'string') {
    out.push(`  Sluice ${threads(settings.threads)}/${threads(1)} lines/s: ${(sluiceOne.seconds / sluice.seconds).toFixed(2)}`);
  }
  if (untraced !== undefined && typeof untraced !== 'string' && typeof sluice !== 'string' && untraced.cpuSeconds !== undefined && sluice.cpuSeconds !== undefined) {
    ratios.tracingCpu = sluice.cpuSeconds / untraced.cpuSeconds;
    out.push(`  Sluice traced/untraced CPU per line: ${ratios.tracingCpu.toFixed(3)}; lines/s: ${(untraced.seconds / sluice.seconds).toFixed(3)}`);
  }
  process.stdout.write(`${out.map((line) => line.trimEnd()).join('\n')}\n`);
  return ratios;
}

runMain(main);
