/**
 * The Sluice side of the word-count benchmarks as a program of its own, the counterpart of Kafka Streams'
 * WordCountDemo: `node sluice-wordcount.js '<streams config as JSON>' <input> <output>`. It runs until SIGTERM
 * (then closes) and exits 1 when the instance fails. On stdout it reports its state and restoration as
 * ReportingWordCountDemo does (../support/streams-report.ts), read from the instance's own account of them: its
 * `restore-total` and `restore-remaining-records-total` metrics, and its stores' last restorations (the stores route).
 * With an OTLP endpoint in its OTEL_* variables it traces its records as a node does (sampled as they say).
 */
import pino from 'pino';
import { StreamsInstance } from '../../src';
import { nodeMemoryBudget } from '../../src/host/node-memory';
import { recordStartRatio, telemetrySettings } from '../../src/host/telemetry/telemetry-settings';
import { processMetricsRegistry } from '../../src/streams/metrics/process-metrics';
import { wordCountTopology, wordCountTopologySource } from '../../examples/word-count';
import { PROGRESS_INTERVAL_MS, type StreamsReport } from '../support/streams-report';

function report(line: StreamsReport): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** The sum of a metric over every store partition; a metric not recorded yet reads NaN and counts 0. */
function metricSum(instance: StreamsInstance, name: string): number {
  return instance.metrics.metrics({ name }).reduce((sum, metric) => sum + (Number.isNaN(Number(metric.value)) ? 0 : Number(metric.value)), 0);
}

/** Restorations start together when the tasks are assigned, so the longest one is the restore phase. */
async function reportRestored(instance: StreamsInstance): Promise<void> {
  const durations = (await instance.storeStatus()).map((store) => store.lastRestoration?.durationMs ?? 0);
  report({ report: 'restored', records: metricSum(instance, 'restore-total'), phaseMs: Math.max(0, ...durations), at: Date.now() });
}

async function main(): Promise<void> {
  const [config, input, output] = process.argv.slice(2);
  if (config === undefined || input === undefined || output === undefined) throw new Error('usage: sluice-wordcount <config JSON> <input> <output>');
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const telemetry = telemetrySettings(process.env);
  if (telemetry !== undefined) {
    const { startTelemetry } = await import('../../src/host/telemetry/telemetry-sdk');
    startTelemetry(telemetry, { instanceId: 'bench-word-count', metrics: { streams: () => [], process: processMetricsRegistry }, logger });
  }
  // In a memory cgroup (--budget), its limit is the memory budget, as `sluice start` takes it.
  const memoryBudget = nodeMemoryBudget(undefined, logger);
  const instance = new StreamsInstance(wordCountTopology(input, output), JSON.parse(config) as Record<string, unknown>, {
    logger,
    ...(memoryBudget ? { memoryBudget } : {}),
    ...(telemetry?.traces === true ? { traceRecords: { startRatio: recordStartRatio(telemetry) } } : {}),
    // The threads past the first run in workers, which build the same topology.
    topologySource: wordCountTopologySource(input, output),
  });
  instance.on('error', (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
  const progress = setInterval(
    () =>
      report({
        report: 'progress',
        state: instance.state,
        restored: metricSum(instance, 'restore-total'),
        remaining: metricSum(instance, 'restore-remaining-records-total'),
        at: Date.now(),
      }),
    PROGRESS_INTERVAL_MS,
  );
  let reachedRunning = false;
  instance.on('state', (change) => {
    report({ report: 'state', state: change.state, previous: change.previous, at: change.since });
    if (change.state === 'RUNNING' && !reachedRunning) {
      reachedRunning = true;
      clearInterval(progress);
      void reportRestored(instance);
    }
  });
  process.once('SIGTERM', () => void instance.close().then(() => process.exit(0)));
  await instance.start();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
