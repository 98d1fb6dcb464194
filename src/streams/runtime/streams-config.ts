import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigException } from '../../errors';

/** Values a configuration entry can take (as in a properties file or JSON). */
export type ConfigValue = string | number | boolean;

export type ProcessingGuarantee = 'at_least_once' | 'exactly_once_v2';

/** The configuration of an instance, with Kafka Streams' names (compatibility file, section 7). */
export interface StreamsConfig {
  readonly applicationId: string;
  readonly bootstrapServers: string[];
  /** `host:port` this node answers on (HTTP), or undefined. */
  readonly applicationServer: string | undefined;
  /** `host:port` of this node's gRPC peer service, or undefined. */
  readonly grpcEndpoint: string | undefined;
  readonly stateDir: string;
  readonly numStreamThreads: number;
  readonly commitIntervalMs: number;
  /** How long a task may stall on transient Kafka failures (sends, commits) before it fails. */
  readonly taskTimeoutMs: number;
  readonly processingGuarantee: ProcessingGuarantee;
  readonly defaultKeySerde: string;
  readonly defaultValueSerde: string;
  readonly replicationFactor: number;
  readonly numStandbyReplicas: number;
  readonly deserializationHandling: 'continue' | 'fail';
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly pollMaxWaitMs: number;
  /** `consumer.max.partition.fetch.bytes` and `consumer.fetch.max.bytes`: what one fetch may bring. */
  readonly maxPartitionFetchBytes: number;
  readonly fetchMaxBytes: number;
  readonly statsEnable: boolean;
  readonly statsDumpPeriodSec: number;
  readonly logDir: string;
  readonly logMaxFileSize: number;
  readonly embeddedStoreConfigSetter: string | undefined;
  /** Client overrides (`consumer.`, `producer.`, `admin.`) that were given but that Sluice's client does not apply. */
  readonly unappliedClientOverrides: string[];
  /** Every entry as given, plus the defaults: what `GET .../config` shows. */
  readonly values: Readonly<Record<string, ConfigValue>>;
}

const DEFAULTS: Record<string, ConfigValue> = {
  'application.server': '',
  'state.dir': path.join(os.tmpdir(), 'sluice-streams'),
  'num.stream.threads': 1,
  'commit.interval.ms': 30000,
  'task.timeout.ms': 300000,
  'processing.guarantee': 'at_least_once',
  'default.key.serde': 'string',
  'default.value.serde': 'string',
  'replication.factor': -1,
  'num.standby.replicas': 0,
  'cache.max.bytes.buffering': 10 * 1024 * 1024,
  'default.deserialization.exception.handler': 'LogAndFailExceptionHandler',
  'session.timeout.ms': 45000,
  'heartbeat.interval.ms': 3000,
  'poll.ms': 100,
  // Smaller than the Java consumer's 1 MiB / 50 MiB: kafkajs decodes a whole fetch into objects at once (about
  // 20 times its size on the heap); past 128 KiB per partition, throughput gains nothing measurable.
  'consumer.max.partition.fetch.bytes': 128 * 1024,
  'consumer.fetch.max.bytes': 1024 * 1024,
  'stats.enable': false,
  'stats.dumpPeriodSec': 30,
  'log.dir': path.join(os.tmpdir(), 'sluice-logs'),
  'log.maxFileSize': 10 * 1024 * 1024,
};

/** Keys that are understood; client overrides under `consumer.`, `producer.`, `admin.` are also accepted. */
const KNOWN = new Set([
  ...Object.keys(DEFAULTS),
  'application.id',
  'bootstrap.servers',
  'grpc.endpoint',
  'embeddedstore.config.setter',
  'client.id',
  'metrics.sse.interval.ms',
]);

/** The client overrides Sluice applies: the others are accepted (the contract's section 7) and reported. */
const APPLIED_CLIENT_OVERRIDES = new Set(['consumer.max.partition.fetch.bytes', 'consumer.fetch.max.bytes']);

const INTEGER_KEYS = [
  'num.stream.threads',
  'commit.interval.ms',
  'task.timeout.ms',
  'replication.factor',
  'num.standby.replicas',
  'cache.max.bytes.buffering',
  'session.timeout.ms',
  'heartbeat.interval.ms',
  'poll.ms',
  'consumer.max.partition.fetch.bytes',
  'consumer.fetch.max.bytes',
  'stats.dumpPeriodSec',
  'log.maxFileSize',
  'metrics.sse.interval.ms',
];

function integer(values: Record<string, ConfigValue>, key: string, min: number): number {
  const raw = values[key];
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigException(`'${key}' must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

function bool(values: Record<string, ConfigValue>, key: string): boolean {
  const raw = values[key];
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigException(`'${key}' must be true or false, got ${JSON.stringify(raw)}`);
}

/** `host:port` or blank; Kafka Streams' `HostInfo.buildFromEndpoint`. */
export function parseEndpoint(key: string, value: string): { host: string; port: number } | undefined {
  if (value.trim() === '') return undefined;
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new ConfigException(`'${key}' must have the form host:port, got '${value}'`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** Validates and completes an instance's configuration; unknown keys and wrong types are clear errors. */
export function parseStreamsConfig(input: Readonly<Record<string, unknown>>): StreamsConfig {
  const values: Record<string, ConfigValue> = { ...DEFAULTS };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    const clientOverride = /^(consumer|producer|admin|topic)\./.test(key);
    if (!KNOWN.has(key) && !clientOverride) throw new ConfigException(`unknown configuration key '${key}'`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new ConfigException(`'${key}' must be a string, number or boolean`);
    }
    values[key] = value;
  }
  const applicationId = values['application.id'];
  if (typeof applicationId !== 'string' || !/^[A-Za-z0-9._-]+$/.test(applicationId)) {
    throw new ConfigException(`'application.id' is required and may contain only letters, digits, '.', '_' and '-'`);
  }
  const bootstrap = values['bootstrap.servers'];
  if (typeof bootstrap !== 'string' || bootstrap.trim() === '') throw new ConfigException(`'bootstrap.servers' is required`);
  for (const key of INTEGER_KEYS) if (key in values) integer(values, key, key === 'replication.factor' ? -1 : 0);
  const guarantee = String(values['processing.guarantee']);
  if (guarantee !== 'at_least_once' && guarantee !== 'exactly_once_v2') {
    throw new ConfigException(`'processing.guarantee' must be at_least_once or exactly_once_v2, got '${guarantee}'`);
  }
  // Kafka Streams' default under exactly-once: a transaction per 100 ms, so output is not held back long.
  if (guarantee === 'exactly_once_v2' && input['commit.interval.ms'] === undefined) values['commit.interval.ms'] = 100;
  if (integer(values, 'num.standby.replicas', 0) > 0) {
    // Refused rather than accepted and ignored: a failover would restore everything, not what a standby missed.
    throw new ConfigException(`'num.standby.replicas' above 0 is not available in this version (standby tasks are not built); use 0`);
  }
  const handler = String(values['default.deserialization.exception.handler']);
  const deserializationHandling = /continue/i.test(handler) ? 'continue' : /fail/i.test(handler) ? 'fail' : undefined;
  if (!deserializationHandling) {
    throw new ConfigException(`'default.deserialization.exception.handler' must be LogAndContinueExceptionHandler or LogAndFailExceptionHandler`);
  }
  const applicationServer = String(values['application.server']);
  parseEndpoint('application.server', applicationServer);
  const grpcEndpoint = values['grpc.endpoint'] === undefined ? undefined : String(values['grpc.endpoint']);
  if (grpcEndpoint !== undefined) parseEndpoint('grpc.endpoint', grpcEndpoint);
  const setter = values['embeddedstore.config.setter'];
  return {
    applicationId,
    bootstrapServers: bootstrap.split(',').map((s) => s.trim()).filter(Boolean),
    applicationServer: applicationServer.trim() === '' ? undefined : applicationServer.trim(),
    grpcEndpoint: grpcEndpoint?.trim() || undefined,
    stateDir: String(values['state.dir']),
    numStreamThreads: integer(values, 'num.stream.threads', 1),
    commitIntervalMs: integer(values, 'commit.interval.ms', 0),
    taskTimeoutMs: integer(values, 'task.timeout.ms', 0),
    processingGuarantee: guarantee,
    defaultKeySerde: String(values['default.key.serde']),
    defaultValueSerde: String(values['default.value.serde']),
    replicationFactor: integer(values, 'replication.factor', -1),
    numStandbyReplicas: integer(values, 'num.standby.replicas', 0),
    deserializationHandling,
    sessionTimeoutMs: integer(values, 'session.timeout.ms', 1),
    heartbeatIntervalMs: integer(values, 'heartbeat.interval.ms', 1),
    pollMaxWaitMs: integer(values, 'poll.ms', 1),
    maxPartitionFetchBytes: integer(values, 'consumer.max.partition.fetch.bytes', 1),
    fetchMaxBytes: integer(values, 'consumer.fetch.max.bytes', 1),
    statsEnable: bool(values, 'stats.enable'),
    statsDumpPeriodSec: integer(values, 'stats.dumpPeriodSec', 1),
    logDir: String(values['log.dir']),
    logMaxFileSize: integer(values, 'log.maxFileSize', 1),
    embeddedStoreConfigSetter: typeof setter === 'string' && setter !== '' ? setter : undefined,
    unappliedClientOverrides: Object.keys(input).filter((key) => /^(consumer|producer|admin)\./.test(key) && !APPLIED_CLIENT_OVERRIDES.has(key)),
    values,
  };
}
