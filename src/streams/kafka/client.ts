/**
 * The kafkajs seam: the only module of Sluice (with its siblings in this folder) that imports kafkajs. It builds
 * clients from Sluice-style configuration, routes kafkajs' logs to a pino-style logger, and creates producers
 * and consumers with Java-compatible defaults (Java's key partitioner, no topic auto-creation, read_uncommitted
 * unless asked otherwise).
 */
import { randomInt } from 'node:crypto';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Authenticator, AuthenticationProviderArgs, ICustomPartitioner, ISocketFactory, LogEntry, Mechanism, SASLOptions } from 'kafkajs';
import { checkKafkajs, Kafka, KafkaJSConnectionError, logLevel as KafkaJsLogLevel } from './kafkajs';
import pino from 'pino';
import { KafkaAuthenticationFailed, type SluiceError } from '../../errors';
import { isTlsFailureCode, tlsFailure } from './errors';
import { partitionForKey } from './murmur2';
import { PLAINTEXT, saslOptions, securityIdentity, tlsOptions, type KafkaSecurity, type OAuthBearerTokenProvider, type SaslSettings } from './security';
import type { KafkaClient, KafkaConsumer, KafkaProducer, PartitionAssigner } from './types';

export type SluiceLogLevel = 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The part of a pino logger the adapter writes kafkajs' logs to. */
export interface KafkaLogSink {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export interface KafkaClientConfig {
  /** `host:port` of one or more brokers (Kafka's `bootstrap.servers`, split on commas). */
  bootstrapServers: readonly string[];
  clientId: string;
  /** Lowest kafkajs level that is logged; default `warn`. */
  logLevel?: SluiceLogLevel;
  /** Where kafkajs' logs go; default a pino logger named `kafkajs` on stderr. */
  logger?: KafkaLogSink;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** TLS and SASL (streams/config/client-security.ts); default PLAINTEXT. */
  security?: KafkaSecurity;
  /** The token for SASL/OAUTHBEARER when the security settings name no token file. */
  oauthBearerTokenProvider?: OAuthBearerTokenProvider;
  /**
   * Told at once of a login the broker refused or a TLS failure: kafkajs retries a TLS failure as it would a lost
   * connection, and the runtime would ride it out for task.timeout.ms, while nothing but a configuration change cures it.
   */
  onSecurityFailure?: (error: SluiceError) => void;
}

const KAFKAJS_LEVELS: Record<SluiceLogLevel, KafkaJsLogLevel> = {
  silent: KafkaJsLogLevel.NOTHING,
  fatal: KafkaJsLogLevel.ERROR,
  error: KafkaJsLogLevel.ERROR,
  warn: KafkaJsLogLevel.WARN,
  info: KafkaJsLogLevel.INFO,
  debug: KafkaJsLogLevel.DEBUG,
  trace: KafkaJsLogLevel.DEBUG,
};

let defaultSink: KafkaLogSink | undefined;

/** One shared stderr logger for all clients that bring none; synchronous so that nothing is lost at exit. */
function defaultLogSink(): KafkaLogSink {
  defaultSink ??= pino({ name: 'kafkajs', level: 'trace' }, pino.destination({ dest: 2, sync: true }));
  return defaultSink;
}

/**
 * kafkajs logs every error response at ERROR in its Connection namespace, including the retriable ones it
 * handles itself (a rebalance in progress, a coordinator still loading): those go to debug, as in the Java
 * client. Failures that matter surface again from the producer, consumer or admin, or as rejections. A
 * rebalance, routine for a group, is info as in Java, not a warning; a broker that cannot be reached is a
 * warning, as the runtime rides it out.
 */
export function effectiveLogLevel(namespace: string, level: KafkaJsLogLevel, message: string): KafkaJsLogLevel {
  if (namespace === 'Connection' && level === KafkaJsLogLevel.ERROR && message.startsWith('Response ')) {
    return KafkaJsLogLevel.DEBUG;
  }
  // Logged on each retry of a send, whose final failure rejects the send anyway.
  if (namespace === 'Producer' && message.startsWith('Failed to send messages')) return KafkaJsLogLevel.DEBUG;
  if (namespace === 'Runner' && message === 'The group is rebalancing, re-joining') return KafkaJsLogLevel.INFO;
  // An unreachable broker is a warning, as in the Java client: the runtime retries within task.timeout.ms.
  if (level === KafkaJsLogLevel.ERROR && namespace === 'Connection' && /^Connection (error|timeout)/.test(message)) return KafkaJsLogLevel.WARN;
  if (level === KafkaJsLogLevel.ERROR && namespace === 'BrokerPool' && message.startsWith('Failed to connect to seed broker')) {
    return KafkaJsLogLevel.WARN;
  }
  // The stream thread logs a consumer crash itself: a warning when kafkajs restarts the consumer, an error when not.
  if (namespace === 'Consumer' && message.startsWith('Crash: ')) return KafkaJsLogLevel.DEBUG;
  if (namespace === 'Consumer' && message.startsWith('Restarting the consumer')) return KafkaJsLogLevel.INFO;
  return level;
}

function logCreator(sink: KafkaLogSink) {
  // kafkajs has filtered by the original level already; the threshold applies again after downgrading.
  return (threshold: KafkaJsLogLevel) =>
    ({ namespace, level: original, log }: LogEntry): void => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const level = effectiveLogLevel(namespace, original, message);
      if (level > threshold) return;
      const entry = { kafkajs: namespace, ...fields };
      if (level === KafkaJsLogLevel.ERROR) sink.error(entry, message);
      else if (level === KafkaJsLogLevel.WARN) sink.warn(entry, message);
      else if (level === KafkaJsLogLevel.INFO) sink.info(entry, message);
      else sink.debug(entry, message);
    };
}

/** Parses Kafka's comma-separated `bootstrap.servers` into the list the factory takes. */
export function parseBootstrapServers(value: string): string[] {
  return value
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server.length > 0);
}

/** A TLS handshake with a busy broker can take longer than kafkajs' 1 s connection timeout; Kafka's own setup timeout is 10 s. */
const TLS_CONNECTION_TIMEOUT_MS = 10_000;

export function createKafkaClient(config: KafkaClientConfig): KafkaClient {
  // The client's types describe Sluice's records: refuse a kafkajs that would hand out its own.
  checkKafkajs();
  // Sluice always passes its own partitioner; this keeps kafkajs quiet should any producer be built without it.
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const security = config.security ?? PLAINTEXT;
  const report = config.onSecurityFailure ?? (() => undefined);
  const client = new Kafka({
    brokers: [...config.bootstrapServers],
    clientId: config.clientId,
    logLevel: KAFKAJS_LEVELS[config.logLevel ?? 'warn'],
    logCreator: logCreator(config.logger ?? defaultLogSink()),
    connectionTimeout: config.connectionTimeoutMs ?? (security.tls === undefined ? undefined : TLS_CONNECTION_TIMEOUT_MS),
    requestTimeout: config.requestTimeoutMs,
    ...(security.tls === undefined ? {} : { ssl: tlsOptions(security.tls), socketFactory: reportingSocketFactory(report) }),
    ...(security.sasl === undefined ? {} : { sasl: reportingSasl(security.sasl, saslOptions(security.sasl, config.oauthBearerTokenProvider), report) }),
  });
  // Its consumers hand out the records of Sluice's fetch decoding (kafkajs.ts), which KafkaClient's types describe.
  return client as unknown as KafkaClient;
}

/** The Kafka objects of one instance, one per client role; roles whose security settings are the same share one. */
export interface KafkaClients {
  readonly admin: KafkaClient;
  /**
   * A Kafka object for one stream thread's consumer, new at each call: kafkajs keeps a group's committed offsets
   * per Kafka object, and two consumers of one group that share them clear each other's at every rebalance.
   */
  readonly mainConsumer: () => KafkaClient;
  /** The changelog readers of restoring and standby tasks, which build their connections from this Kafka object's cluster factory. */
  readonly restoreConsumer: KafkaClient;
  /** The global stores' changelog reader (Kafka Streams' global consumer), likewise. */
  readonly globalConsumer: KafkaClient;
  /** Shared and per-task transactional producers. */
  readonly producer: KafkaClient;
}

export type KafkaClientRole = keyof KafkaClients;

/**
 * kafkajs takes TLS and SASL per Kafka object, not per producer or consumer: each distinct effective security
 * setting (after `admin.`, `consumer.`, `main.consumer.`, `restore.consumer.`, `global.consumer.`, `producer.`
 * overrides) gets a Kafka object of its own, and the roles that agree share it (but for the stream threads'
 * consumers, one each). A shared Kafka object shares settings only: each client made from it opens connections of its own.
 */
export function createKafkaClients(
  config: Omit<KafkaClientConfig, 'security'>,
  security: Readonly<Record<KafkaClientRole, KafkaSecurity>>,
): KafkaClients {
  const byIdentity = new Map<KafkaSecurity, KafkaClient>();
  const clientFor = (role: KafkaClientRole): KafkaClient => {
    const settings = security[role];
    const same = [...byIdentity.keys()].find((other) => sameSecurity(other, settings));
    if (same !== undefined) return byIdentity.get(same)!;
    const client = createKafkaClient({ ...config, security: settings });
    byIdentity.set(settings, client);
    return client;
  };
  return {
    admin: clientFor('admin'),
    mainConsumer: () => createKafkaClient({ ...config, security: security.mainConsumer }),
    restoreConsumer: clientFor('restoreConsumer'),
    globalConsumer: clientFor('globalConsumer'),
    producer: clientFor('producer'),
  };
}

function sameSecurity(a: KafkaSecurity, b: KafkaSecurity): boolean {
  return securityIdentity(a) === securityIdentity(b);
}

/** kafkajs' own socket factory, plus a report of TLS failures as soon as a handshake fails. */
function reportingSocketFactory(report: (error: SluiceError) => void): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const socket = tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect);
    socket.setKeepAlive(true, 60_000);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (isTlsFailureCode(error.code)) report(tlsFailure(`${host}:${port}`, error.code!, error.message));
    });
    return socket;
  };
}

/** kafkajs' built-in authenticators, wrapped below; kafkajs is pinned (2.2.4), these paths with it. */
const BUILT_IN_AUTHENTICATORS: Record<SaslSettings['mechanism'], string> = {
  PLAIN: 'kafkajs/src/broker/saslAuthenticator/plain',
  'SCRAM-SHA-256': 'kafkajs/src/broker/saslAuthenticator/scram256',
  'SCRAM-SHA-512': 'kafkajs/src/broker/saslAuthenticator/scram512',
  OAUTHBEARER: 'kafkajs/src/broker/saslAuthenticator/oauthBearer',
};

type AuthenticatorFactory = (sasl: SASLOptions) => (args: AuthenticationProviderArgs) => Authenticator;

/** kafkajs wraps whatever fails during a login, a dropped connection included, as a SASL authentication error. */
const NETWORK_FAULT = /Connection|timed out|timeout|ECONN|EPIPE|socket/i;

/**
 * kafkajs' authenticator for the mechanism, reporting a refused login at once. A connection lost during the login is
 * handed back to kafkajs as a connection error, which it retries.
 */
function reportingSasl(settings: SaslSettings, options: SASLOptions, report: (error: SluiceError) => void): Mechanism {
  const builtIn = (require(BUILT_IN_AUTHENTICATORS[settings.mechanism]) as AuthenticatorFactory)(options);
  const who = 'username' in settings ? ` as '${settings.username}'` : '';
  return {
    ...options,
    authenticationProvider: (args) => {
      const authenticator = builtIn(args);
      return {
        authenticate: async () => {
          try {
            await authenticator.authenticate();
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            if (NETWORK_FAULT.test(message)) throw new KafkaJSConnectionError(message, { broker: `${args.host}:${args.port}` });
            const failure = new KafkaAuthenticationFailed(`SASL ${settings.mechanism}${who} at ${args.host}:${args.port}: ${message}`, { cause: error });
            report(failure);
            throw error;
          }
        },
      };
    },
  };
}

/**
 * Java's producer placement: an explicit partition wins; a key goes to murmur2(key) mod partitions (our own
 * murmur2, so the cluster layer routes with the very same function); no key: round robin over partitions
 * with a leader, per topic.
 */
export const javaCompatiblePartitioner: ICustomPartitioner = () => {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }) => {
    if (message.partition !== undefined && message.partition !== null) return message.partition;
    if (message.key !== undefined && message.key !== null) {
      return partitionForKey(message.key, partitionMetadata.length);
    }
    const next = ((counters.get(topic) ?? randomInt(2 ** 31)) + 1) & 0x7fffffff;
    counters.set(topic, next);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    const candidates = available.length > 0 ? available : partitionMetadata;
    return candidates[next % candidates.length]!.partitionId;
  };
};

export interface ProducerOptions {
  /**
   * Idempotent delivery (Kafka's `enable.idempotence`); default true, as in Java's producer since Kafka 3.0.
   * Without it a retried request duplicates what the broker had already written: kafkajs resends a whole
   * request when one of its partitions answers a retriable error.
   */
  idempotent?: boolean;
  metadataMaxAgeMs?: number;
}

export function createProducer(kafka: KafkaClient, options: ProducerOptions = {}): KafkaProducer {
  const idempotent = options.idempotent ?? true;
  return kafka.producer({
    createPartitioner: javaCompatiblePartitioner,
    allowAutoTopicCreation: false,
    idempotent,
    // kafkajs keeps sequence numbers right only with one request in flight.
    maxInFlightRequests: idempotent ? 1 : undefined,
    metadataMaxAge: options.metadataMaxAgeMs,
  });
}

export interface TransactionalProducerOptions {
  /** Kafka's `transactional.id`; Sluice uses `<application.id>-<taskId>`. */
  transactionalId: string;
  /** Kafka's `transaction.timeout.ms`; default kafkajs' 60 000. */
  transactionTimeoutMs?: number;
}

/** An idempotent producer with one request in flight, as kafkajs requires for transactions. */
export function createTransactionalProducer(kafka: KafkaClient, options: TransactionalProducerOptions): KafkaProducer {
  return kafka.producer({
    createPartitioner: javaCompatiblePartitioner,
    allowAutoTopicCreation: false,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionalId: options.transactionalId,
    transactionTimeout: options.transactionTimeoutMs,
  });
}

export type IsolationLevel = 'read_committed' | 'read_uncommitted';

export interface ConsumerOptions {
  groupId: string;
  /**
   * Default `read_uncommitted`, as in the Java consumer (kafkajs' own default is read_committed); Sluice's
   * exactly-once mode asks for `read_committed`.
   */
  isolationLevel?: IsolationLevel;
  partitionAssigners?: PartitionAssigner[];
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  /** Longest time a fetch waits for data (Kafka's `fetch.max.wait.ms`). */
  maxWaitTimeMs?: number;
  /** Most bytes a fetch returns per partition (Kafka's `max.partition.fetch.bytes`). */
  maxBytesPerPartition?: number;
  /** Most bytes a fetch returns (Kafka's `fetch.max.bytes`). */
  maxBytes?: number;
  metadataMaxAgeMs?: number;
  /**
   * Asked when the consumer crashed on a retriable error: whether kafkajs is to start it again. A consumer whose
   * owner has closed or failed must say no, or kafkajs restarts it behind the owner's back: a zombie member that
   * joins the group and takes partitions that nobody processes.
   */
  restartOnFailure?: (error: Error) => Promise<boolean>;
}

/** kafkajs' own retry count for consumers, kept when a restart policy is given. */
const CONSUMER_RETRIES = 5;

export function createConsumer(kafka: KafkaClient, options: ConsumerOptions): KafkaConsumer {
  return kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    readUncommitted: (options.isolationLevel ?? 'read_uncommitted') === 'read_uncommitted',
    partitionAssigners: options.partitionAssigners,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: options.heartbeatIntervalMs,
    rebalanceTimeout: options.rebalanceTimeoutMs,
    maxWaitTimeInMs: options.maxWaitTimeMs,
    maxBytesPerPartition: options.maxBytesPerPartition,
    maxBytes: options.maxBytes,
    metadataMaxAge: options.metadataMaxAgeMs,
    retry: options.restartOnFailure ? { retries: CONSUMER_RETRIES, restartOnFailure: options.restartOnFailure } : undefined,
  });
}
