/**
 * `sluice demo`: a broker got exactly as the integration tests get theirs, the example topologies running on it,
 * a steady trickle of sample input, and the URLs and curl commands to try. `stop()` undoes all of it.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO_EXAMPLES } from '../../examples';
import { DEFAULT_MAX_CONNECTIONS } from '../server/connections';
import { DEFAULT_HTTP_TIMEOUTS } from '../server/timeouts';
import { createKafkaClient, createProducer, createTopics, readableKafkaLogs, type KafkaProducer } from '../streams/kafka';
import { provideBroker, type ProvidedBroker } from './broker/provide-broker';
import type { HostConfig, LogFormat } from './config/host-config';
import { SluiceHost } from './host';
import { rootLogger } from './logging/loggers';

export interface DemoOptions {
  port: number;
  host: string;
  /** Serve a non-loopback host without users (`--allow-unauthenticated`). */
  allowUnauthenticated: boolean;
  /** Sample records per second, over all examples. */
  recordsPerSecond: number;
  /** Default: pretty on a terminal, JSON elsewhere. */
  logFormat?: LogFormat;
  /** Where progress and the banner go. */
  say: (line: string) => void;
}

export interface RunningDemo {
  stop(): Promise<void>;
}

function demoConfig(options: DemoOptions, bootstrapServers: string, stateDir: string): HostConfig {
  return {
    server: {
      host: options.host,
      port: options.port,
      grpcPort: 0,
      advertisedHost: 'localhost',
      headless: false,
      allowUnauthenticated: options.allowUnauthenticated,
      sse: { queueSize: 10_000, keepaliveMs: 15_000, metricsIntervalMs: 5000 },
      timeouts: DEFAULT_HTTP_TIMEOUTS,
      maxConnections: DEFAULT_MAX_CONNECTIONS,
    },
    log: { level: 'warn' },
    streams: {
      'bootstrap.servers': bootstrapServers,
      'state.dir': stateDir,
      // Counts show up in the output topic and the offsets within a second.
      'commit.interval.ms': 1000,
    },
    topologies: [],
    instances: DEMO_EXAMPLES.map((example) => ({ topology: example.topology.name, applicationId: example.applicationId })),
    shutdownTimeoutMs: 10_000,
  };
}

function banner(url: string, broker: ProvidedBroker): string[] {
  const [first] = DEMO_EXAMPLES;
  const id = first!.applicationId;
  return [
    '',
    `Sluice demo is running (Kafka: ${broker.kind}, ${broker.version}, at ${broker.bootstrapServers})`,
    '',
    `  Console     ${url}/ui/`,
    `  API docs    ${url}/docs`,
    `  Instances   ${url}/api/v1/streams`,
    `  Topologies  ${url}/api/v1/topologies`,
    `  Health      ${url}/health`,
    `  Metrics     ${url}/prometheus`,
    `  OpenAPI     ${url}/openapi.json`,
    '',
    'Try:',
    `  curl -s ${url}/api/v1/streams/${id}`,
    ...DEMO_EXAMPLES.map(
      (example) =>
        `  curl -s -X POST ${url}/api/v1/applications/${example.applicationId}/stores/${example.query.store} -H 'content-type: application/json' -d '${JSON.stringify(example.query.body)}'`,
    ),
    `  curl -sN ${url}/api/v1/streams/${id}/subscribe/state`,
    '',
    'Ctrl-C stops everything the demo started.',
    '',
  ];
}

export async function runDemo(options: DemoOptions): Promise<RunningDemo> {
  options.say('Getting a Kafka broker (the first run may download Apache Kafka, which takes a minute)...');
  const broker = await provideBroker({ log: options.say });
  // A state directory of this run's: one kept from an earlier run holds offsets a new local broker never had.
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-demo-'));
  const undo: (() => Promise<void>)[] = [() => broker.stop(), async () => fs.rmSync(stateDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch((error: Error) => options.say(`while stopping: ${error.message}`));
  };
  try {
    // Warnings and errors on stderr: the banner and progress are the demo's output, on stdout.
    const logger = rootLogger({ level: 'warn', ...(options.logFormat ? { format: options.logFormat } : {}) }, 2);
    const kafkaLogger = logger.child({ component: 'kafka' }, { level: 'error' });
    const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'sluice-demo', logLevel: 'error', logger: readableKafkaLogs(kafkaLogger) });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await createTopics(admin, DEMO_EXAMPLES.flatMap((example) => example.topics));
    } finally {
      await admin.disconnect();
    }

    const host = await SluiceHost.start({
      config: demoConfig(options, broker.bootstrapServers, stateDir),
      topologies: DEMO_EXAMPLES.map((example) => example.topology),
      logger,
    });
    undo.push(() => host.stop());

    const producer: KafkaProducer = createProducer(kafka);
    await producer.connect();
    undo.push(() => producer.disconnect());
    let next = 0;
    const timer = setInterval(() => {
      const record = DEMO_EXAMPLES[next++ % DEMO_EXAMPLES.length]!.sample();
      producer
        .send({ topic: record.topic, messages: [{ key: record.key, value: record.value }] })
        .catch((error: Error) => options.say(`producing sample data failed: ${error.message}`));
    }, 1000 / options.recordsPerSecond);
    undo.push(async () => clearInterval(timer));

    banner(host.url, broker).forEach((line) => options.say(line));
    return { stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
