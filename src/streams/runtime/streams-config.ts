import { ConfigException } from '../../errors';
import { CLIENT_ROLE_PREFIXES, CONFIG_KEYS, type ConfigKey, type ConfigType, type ConfigValue } from '../config/config-keys';
import { clientSetting, closestConfigKey, lookupConfigKey, type KeyForm } from '../config/config-lookup';
import type { TypedValue } from '../config/validators';
import { resolveClientSecurity } from '../config/client-security';
import type { ChangelogReaderOptions, KafkaClientRole, KafkaSecurity } from '../kafka';
import { type ExceptionHandlers, namedHandlers } from './exception-handlers';

export type { ConfigValue } from '../config/config-keys';
export { parseEndpoint } from '../config/validators';

export type ProcessingGuarantee = 'at_least_once' | 'exactly_once_v2';

/** `group.protocol`: the classic group protocol, or Kafka 4's streams rebalance protocol (KIP-1071). */
export type GroupProtocol = 'classic' | 'streams';

/**
 * The settings the group coordinator owns under the streams protocol (its `streams.num.standby.replicas`,
 * `streams.session.timeout.ms`, ... and its assignor), which Kafka Streams 4.2 names as ignored there, and static
 * membership, which the protocol lacks in 4.2.
 */
const IGNORED_UNDER_STREAMS = new Set([
  'num.standby.replicas',
  'acceptable.recovery.lag',
  'max.warmup.replicas',
  'probing.rebalance.interval.ms',
  'task.assignor.class',
  'rack.aware.assignment.strategy',
  'rack.aware.assignment.tags',
  'rack.aware.assignment.traffic_cost',
  'rack.aware.assignment.non_overlap_cost',
  'session.timeout.ms',
  'heartbeat.interval.ms',
  // Kafka 4.2's streams groups have no static members (Kafka 4.4 adds them): the thread joins as a dynamic one.
  'group.instance.id',
]);

/** Kafka's `auto.offset.reset`: where a source partition with no committed offset is read from. */
export type AutoOffsetReset = 'earliest' | 'latest' | 'none';

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
  readonly groupProtocol: GroupProtocol;
  readonly defaultKeySerde: string;
  readonly defaultValueSerde: string;
  readonly replicationFactor: number;
  readonly numStandbyReplicas: number;
  /** KIP-441 warm-up moves: `acceptable.recovery.lag`, `max.warmup.replicas`, `probing.rebalance.interval.ms`. */
  readonly acceptableRecoveryLag: number;
  readonly maxWarmupReplicas: number;
  readonly probingRebalanceIntervalMs: number;
  /** The handlers the configuration names; StreamsInstance options may replace them with code. */
  readonly exceptionHandlers: ExceptionHandlers;
  /** `errors.dead.letter.queue.topic.name`: where skipped records go; undefined: nowhere. */
  readonly deadLetterQueueTopic: string | undefined;
  /** The stream threads' consumer: `main.consumer.`, then `consumer.`, then unprefixed, as in Kafka Streams. */
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** `max.partition.fetch.bytes` and `fetch.max.bytes`: what one fetch may bring. */
  readonly maxPartitionFetchBytes: number;
  readonly fetchMaxBytes: number;
  /** `buffer.memory` (`producer.` or unprefixed): bytes a stream thread may have produced and not had acknowledged. */
  readonly producerBufferBytes: number;
  /** Where source partitions without a committed offset start (Kafka Streams' default: earliest). */
  /** The restore consumer's fetches (`restore.consumer.`, `consumer.` or unprefixed; else the Java consumer's defaults). */
  readonly restoreConsumer: ChangelogFetches;
  /** The global consumer's fetches (`global.consumer.`, `consumer.` or unprefixed; else the Java consumer's defaults). */
  readonly globalConsumer: ChangelogFetches;
  readonly autoOffsetReset: AutoOffsetReset;
  readonly pollMaxWaitMs: number;
  /** How often new topics matching a source pattern are looked for (the main consumer's `metadata.max.age.ms`). */
  readonly metadataMaxAgeMs: number;
  /** Static membership: each thread joins as `<groupInstanceId>-<thread number>`; undefined: dynamic members. */
  readonly groupInstanceId: string | undefined;
  /** Whether store operations are timed into their metrics (`metrics.recording.level` DEBUG or TRACE). */
  readonly timeStoreOperations: boolean;
  readonly statsEnable: boolean;
  readonly statsDumpPeriodSec: number;
  readonly logDir: string;
  readonly logMaxFileSize: number;
  readonly embeddedStoreConfigSetter: string | undefined;
  /** How each of Sluice's clients connects: security keys unprefixed, overridden under the client's prefixes. */
  readonly security: Readonly<Record<KafkaClientRole, KafkaSecurity>>;
  /** Keys given, as written, that Sluice accepts but does not apply: named in one warning at start. */
  readonly notApplied: string[];
  /** Under `group.protocol=streams`, the keys given, as written, that the group coordinator owns: named once at start. */
  readonly ignoredUnderStreams: string[];
  /** Every entry as given, plus the defaults of what Sluice applies: what `GET .../config` shows. */
  readonly values: Readonly<Record<string, ConfigValue>>;
}

/** What a changelog reader's fetches may bring and wait for. */
export type ChangelogFetches = Omit<ChangelogReaderOptions, 'readCommitted'>;

const TYPE_NOUNS: Record<ConfigType, string> = {
  boolean: 'true or false',
  string: 'a string',
  password: 'a string',
  list: 'a comma-separated list',
  class: 'a class name',
  short: 'a 16-bit integer',
  int: 'an integer',
  long: 'an integer',
  double: 'a number',
};

const INTEGER_RANGES: Partial<Record<ConfigType, readonly [bigint, bigint]>> = {
  short: [-(2n ** 15n), 2n ** 15n - 1n],
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  long: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** A value converted to its key's type as Kafka's `ConfigDef.parseType` does (trimmed, `true` in any case). */
function typed(type: ConfigType, raw: ConfigValue): TypedValue | undefined {
  const text = String(raw).trim();
  const range = INTEGER_RANGES[type];
  if (range !== undefined) {
    if (!/^[+-]?\d+$/.test(text)) return undefined;
    const n = BigInt(text);
    return n >= range[0] && n <= range[1] ? Number(n) : undefined;
  }
  switch (type) {
    case 'boolean':
      return /^(true|false)$/i.test(text) ? text.toLowerCase() === 'true' : undefined;
    case 'double':
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'class':
      return text === '' ? undefined : text;
    case 'password':
      return String(raw);
    default:
      return text;
  }
}

function parseValue(key: string, entry: ConfigKey, raw: ConfigValue): TypedValue {
  const value = typed(entry.type, raw);
  if (value === undefined || (entry.validator !== undefined && !entry.validator.accepts(value))) {
    const noun = TYPE_NOUNS[entry.type];
    throw new ConfigException(`'${key}' must be ${entry.validator?.describe(noun) ?? noun}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

interface GivenEntry {
  readonly form: KeyForm;
  readonly value: TypedValue;
}

function isApplied({ form, value }: GivenEntry): boolean {
  return form.entry.applied?.(form.prefix, String(value)) ?? false;
}

/** Validates and completes an instance's configuration; unknown keys and invalid values are clear errors. */
export function parseStreamsConfig(input: Readonly<Record<string, unknown>>): StreamsConfig {
  const given = new Map<string, GivenEntry>();
  const givenValues: Record<string, ConfigValue> = {};
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined || raw === null) continue;
    const form = lookupConfigKey(key);
    if (form === undefined) {
      const closest = closestConfigKey(key);
      throw new ConfigException(`unknown configuration key '${key}'${closest === undefined ? '' : `; did you mean '${closest}'?`}`);
    }
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw new ConfigException(`'${key}' must be a string, number or boolean`);
    }
    given.set(key, { form, value: parseValue(key, form.entry, raw) });
    givenValues[key] = raw;
  }
  if (!given.has('application.id')) throw new ConfigException(`'application.id' is required`);
  if (!given.has('bootstrap.servers')) throw new ConfigException(`'bootstrap.servers' is required`);

  const defaultOf = (name: string): TypedValue => lookupConfigKey(name)!.entry.default!;
  const setting = (name: string): TypedValue => given.get(name)?.value ?? defaultOf(name);
  /** A client key as `role` sees it (Kafka Streams' prefix rules), with the key as written, if given. */
  const forClient = (role: KafkaClientRole, name: string) => clientSetting(role, name, (key) => given.get(key)?.value);
  const security = Object.fromEntries(
    (Object.keys(CLIENT_ROLE_PREFIXES) as KafkaClientRole[]).map((role) => [
      role,
      resolveClientSecurity((name) => {
        const found = forClient(role, name);
        return found && { key: found.key, value: String(found.value) };
      }),
    ]),
  ) as Record<KafkaClientRole, KafkaSecurity>;
  const mainConsumerSetting = (name: string): TypedValue => forClient('mainConsumer', name)?.value ?? defaultOf(name);
  // The Java consumer's defaults: a changelog reader reads as much as a fetch may bring.
  const changelogFetches = (role: 'restoreConsumer' | 'globalConsumer'): ChangelogFetches => ({
    maxBytes: Number(forClient(role, 'fetch.max.bytes')?.value ?? 50 * 1024 * 1024),
    maxPartitionBytes: Number(forClient(role, 'max.partition.fetch.bytes')?.value ?? 1024 * 1024),
    maxWaitMs: Number(forClient(role, 'fetch.max.wait.ms')?.value ?? 500),
  });
  const optional = (name: string): string | undefined => {
    const value = given.get(name)?.value;
    return value === undefined || String(value) === '' ? undefined : String(value);
  };

  // Kafka 3.9's deprecated exactly_once and exactly_once_beta promise the same as exactly_once_v2, which Sluice runs.
  const processingGuarantee: ProcessingGuarantee = setting('processing.guarantee') === 'at_least_once' ? 'at_least_once' : 'exactly_once_v2';
  // Kafka Streams' default under exactly-once: a transaction per 100 ms, so output is not held back long.
  const commitIntervalMs = Number(given.get('commit.interval.ms')?.value ?? (processingGuarantee === 'exactly_once_v2' ? 100 : defaultOf('commit.interval.ms')));

  const groupProtocol: GroupProtocol = String(setting('group.protocol')).toLowerCase() === 'streams' ? 'streams' : 'classic';
  // The main consumer's session and heartbeat under any of its prefixes; the Kafka Streams keys unprefixed.
  const ignoredUnderStreams =
    groupProtocol === 'streams'
      ? [...given].filter(([, { form }]) => IGNORED_UNDER_STREAMS.has(form.entry.name) && CLIENT_ROLE_PREFIXES.mainConsumer.includes(form.prefix)).map(([key]) => key)
      : [];

  const values: Record<string, ConfigValue> = {};
  for (const entry of CONFIG_KEYS) {
    if (entry.default === undefined || entry.replacedBy !== undefined || !entry.applied?.('', String(entry.default))) continue;
    const overridden = [...given.values()].some((g) => (g.form.entry === entry || g.form.entry.replacedBy === entry.name) && isApplied(g));
    if (!overridden) values[entry.name] = entry.default;
  }
  values['commit.interval.ms'] = commitIntervalMs;
  Object.assign(values, givenValues);

  return {
    applicationId: String(setting('application.id')),
    bootstrapServers: String(setting('bootstrap.servers'))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    applicationServer: optional('application.server'),
    grpcEndpoint: optional('grpc.endpoint'),
    stateDir: String(setting('state.dir')),
    numStreamThreads: Number(setting('num.stream.threads')),
    commitIntervalMs,
    taskTimeoutMs: Number(setting('task.timeout.ms')),
    processingGuarantee,
    groupProtocol,
    defaultKeySerde: String(setting('default.key.serde')),
    defaultValueSerde: String(setting('default.value.serde')),
    replicationFactor: Number(setting('replication.factor')),
    numStandbyReplicas: Number(setting('num.standby.replicas')),
    acceptableRecoveryLag: Number(setting('acceptable.recovery.lag')),
    maxWarmupReplicas: Number(setting('max.warmup.replicas')),
    probingRebalanceIntervalMs: Number(setting('probing.rebalance.interval.ms')),
    exceptionHandlers: namedHandlers((key) => String(setting(key))),
    deadLetterQueueTopic: optional('errors.dead.letter.queue.topic.name'),
    sessionTimeoutMs: Number(mainConsumerSetting('session.timeout.ms')),
    heartbeatIntervalMs: Number(mainConsumerSetting('heartbeat.interval.ms')),
    maxPartitionFetchBytes: Number(mainConsumerSetting('max.partition.fetch.bytes')),
    fetchMaxBytes: Number(mainConsumerSetting('fetch.max.bytes')),
    producerBufferBytes: Number(forClient('producer', 'buffer.memory')?.value ?? defaultOf('buffer.memory')),
    autoOffsetReset: mainConsumerSetting('auto.offset.reset') as AutoOffsetReset,
    restoreConsumer: changelogFetches('restoreConsumer'),
    globalConsumer: changelogFetches('globalConsumer'),
    pollMaxWaitMs: Number(setting('poll.ms')),
    metadataMaxAgeMs: Number(mainConsumerSetting('metadata.max.age.ms')),
    groupInstanceId: groupProtocol === 'streams' ? undefined : ((value) => (value === undefined ? undefined : String(value)))(forClient('mainConsumer', 'group.instance.id')?.value),
    timeStoreOperations: setting('metrics.recording.level') !== 'INFO',
    statsEnable: setting('stats.enable') === true,
    statsDumpPeriodSec: Number(setting('stats.dumpPeriodSec')),
    logDir: String(setting('log.dir')),
    logMaxFileSize: Number(setting('log.maxFileSize')),
    embeddedStoreConfigSetter: optional('embeddedstore.config.setter'),
    security,
    notApplied: [...given].filter(([key, entry]) => !isApplied(entry) && !ignoredUnderStreams.includes(key)).map(([key]) => key),
    ignoredUnderStreams,
    values,
  };
}
