/**
 * The one table of the configuration keys an instance accepts, in the manner of Kafka's ConfigDef: Kafka Streams
 * 3.9's own keys (StreamsConfig, with the ones it reads outside its ConfigDef), its clients' (ConsumerConfig,
 * ProducerConfig, AdminClientConfig, which hold CommonClientConfigs, SaslConfigs and SslConfigs), topic
 * configurations (TopicConfig, taken under `topic.` for internal topics) and Sluice's own. Names, types, defaults
 * and validators are those of Kafka 3.9.1's ConfigDefs, with the client defaults Kafka Streams sets; where Sluice
 * applies a key, the default and validator are Sluice's. A key without `applied` is accepted, so that a Kafka
 * Streams application's configuration works unchanged, and named at start as not applied by Sluice.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import {
  applicationId,
  atLeast,
  atMostItems,
  between,
  exceptionHandler,
  endpoint,
  listOf,
  nonEmpty,
  oneOf,
  oneOfIgnoringCase,
  serdeName,
  type Validator,
} from './validators';
import type { KafkaClientRole } from '../kafka';
import { THREAD_EXCEPTION_RESPONSES } from '../runtime/exception-handlers';

/** Values a configuration entry can take (as in a properties file or JSON). */
export type ConfigValue = string | number | boolean;

/** Kafka's `ConfigDef.Type`. */
export type ConfigType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'class' | 'password';

/** Who reads a key: Kafka Streams itself, one of its clients, the internal topics (under `topic.`), or Sluice. */
export type Scope = 'streams' | 'consumer' | 'producer' | 'admin' | 'topic' | 'sluice';

/** Whether Sluice applies a key written under `prefix` ('' for none) with `value` (as a trimmed string). */
export type Applied = (prefix: string, value: string) => boolean;

export interface ConfigKey {
  /** The key; one ending in `*` stands for every key that starts with what precedes the `*`. */
  readonly name: string;
  readonly type: ConfigType;
  /** The value in effect when the key is not given: Sluice's where it applies the key, else Kafka's. */
  readonly default?: ConfigValue;
  readonly validator?: Validator;
  readonly scopes: readonly Scope[];
  /** Absent: accepted, and named at start as not applied by Sluice. */
  readonly applied?: Applied;
  /** The newer key that replaces this deprecated one; given both, the newer wins, as in Kafka Streams. */
  readonly replacedBy?: string;
  /** What the key does in Sluice (keys Sluice applies; `sluice start --help` lists them). */
  readonly doc?: string;
}

/**
 * Sluice's Kafka clients, each with the prefixes under which its keys are given, weakest first: Kafka Streams'
 * getAdminConfigs, getMainConsumerConfigs, getRestoreConsumerConfigs, getGlobalConsumerConfigs and getProducerConfigs.
 */
export const CLIENT_ROLE_PREFIXES: Readonly<Record<KafkaClientRole, readonly string[]>> = {
  admin: ['', 'admin.'],
  mainConsumer: ['', 'consumer.', 'main.consumer.'],
  restoreConsumer: ['', 'consumer.', 'restore.consumer.'],
  globalConsumer: ['', 'consumer.', 'global.consumer.'],
  producer: ['', 'producer.'],
};

const always: Applied = () => true;

/** A key Sluice applies to all its clients at once: not to one client under its prefix. */
const unprefixed: Applied = (prefix) => prefix === '';

function mainConsumerUnless(...values: string[]): Applied {
  return (prefix, value) => CLIENT_ROLE_PREFIXES.mainConsumer.includes(prefix) && !values.includes(value);
}

/** A consumer key Sluice applies to its stream threads' consumer, not to the restore and global consumers. */
const mainConsumer = mainConsumerUnless();

/** A consumer key Sluice applies to its changelog readers: the restore consumer and the global consumer. */
const changelogReaders: Applied = (prefix) => CLIENT_ROLE_PREFIXES.restoreConsumer.includes(prefix) || CLIENT_ROLE_PREFIXES.globalConsumer.includes(prefix);

/** A producer key Sluice applies to its stream threads' producing. */
const producer: Applied = (prefix) => CLIENT_ROLE_PREFIXES.producer.includes(prefix);

/** A consumer key Sluice applies to all its consumers. */
const consumers: Applied = (prefix, value) => mainConsumer(prefix, value) || changelogReaders(prefix, value);

/** A security key, applied to every client it reaches: each client's effective settings decide how it connects. */
const clientSecurity: Applied = (prefix) => Object.values(CLIENT_ROLE_PREFIXES).some((prefixes) => prefixes.includes(prefix));

const STREAMS: readonly Scope[] = ['streams'];
const CONSUMER: readonly Scope[] = ['consumer'];
const PRODUCER: readonly Scope[] = ['producer'];
const ADMIN: readonly Scope[] = ['admin'];
const CLIENTS: readonly Scope[] = ['consumer', 'producer', 'admin'];
const STREAMS_AND_CLIENTS: readonly Scope[] = ['streams', 'consumer', 'producer', 'admin'];
const TOPIC: readonly Scope[] = ['topic'];
const SLUICE: readonly Scope[] = ['sluice'];

export const CONFIG_KEYS: readonly ConfigKey[] = [
  // Kafka Streams and its clients (StreamsConfig, ConsumerConfig, ProducerConfig, AdminClientConfig).
  { name: 'acceptable.recovery.lag', type: 'long', default: 10000, validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'How many changelog records behind a node may be and still take a stateful task at once; further behind, it warms the task up first.' },
  { name: 'acks', type: 'string', default: 'all', validator: oneOf('all', '-1', '0', '1'), scopes: PRODUCER },
  { name: 'allow.auto.create.topics', type: 'boolean', default: true, scopes: CONSUMER },
  { name: 'application.id', type: 'string', validator: applicationId, scopes: STREAMS, applied: always, doc: 'Names the consumer group, prefixes the internal topics, names the state directory.' },
  { name: 'application.server', type: 'string', default: '', validator: endpoint, scopes: STREAMS, applied: always, doc: 'host:port this node\'s HTTP API answers on, told to the other nodes through the group.' },
  { name: 'auto.commit.interval.ms', type: 'int', default: 5000, validator: atLeast(0), scopes: CONSUMER },
  { name: 'auto.include.jmx.reporter', type: 'boolean', default: true, scopes: STREAMS_AND_CLIENTS },
  { name: 'auto.offset.reset', type: 'string', default: 'earliest', validator: oneOf('latest', 'earliest', 'none'), scopes: CONSUMER, applied: mainConsumerUnless('none'), doc: 'Where a source partition without a committed offset starts: earliest or latest.' },
  { name: 'batch.size', type: 'int', default: 16384, validator: atLeast(0), scopes: PRODUCER },
  { name: 'bootstrap.controllers', type: 'list', scopes: ADMIN },
  { name: 'bootstrap.servers', type: 'list', validator: nonEmpty, scopes: STREAMS_AND_CLIENTS, applied: unprefixed, doc: 'Kafka brokers, host:port[,host:port...].' },
  { name: 'buffer.memory', type: 'long', default: 33554432, validator: atLeast(0), scopes: PRODUCER, applied: producer, doc: 'Bytes a stream thread may have produced and not yet had acknowledged; past it the thread waits until half is free.' },
  { name: 'buffered.records.per.partition', type: 'int', default: 1000, scopes: STREAMS },
  { name: 'built.in.metrics.version', type: 'string', default: 'latest', validator: oneOf('latest'), scopes: STREAMS },
  { name: 'cache.max.bytes.buffering', type: 'long', default: 10485760, validator: atLeast(0), scopes: STREAMS, applied: always, replacedBy: 'statestore.cache.max.bytes', doc: 'Deprecated name of statestore.cache.max.bytes.' },
  { name: 'check.crcs', type: 'boolean', default: true, scopes: CONSUMER },
  { name: 'client.dns.lookup', type: 'string', default: 'use_all_dns_ips', validator: oneOf('use_all_dns_ips', 'resolve_canonical_bootstrap_servers_only'), scopes: CLIENTS },
  { name: 'client.id', type: 'string', default: '', scopes: STREAMS_AND_CLIENTS },
  { name: 'client.rack', type: 'string', default: '', scopes: CONSUMER },
  { name: 'commit.interval.ms', type: 'long', default: 30000, validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'How often tasks commit (at-least-once default 30000; exactly-once 100).' },
  { name: 'compression.gzip.level', type: 'int', default: -1, validator: between(1, 9, -1), scopes: PRODUCER },
  { name: 'compression.lz4.level', type: 'int', default: 9, validator: between(1, 17), scopes: PRODUCER },
  { name: 'compression.type', type: 'string', default: 'none', validator: oneOf('none', 'gzip', 'snappy', 'lz4', 'zstd'), scopes: PRODUCER },
  { name: 'compression.zstd.level', type: 'int', default: 3, validator: between(-131072, 22), scopes: PRODUCER },
  { name: 'connections.max.idle.ms', type: 'long', default: 540000, scopes: STREAMS_AND_CLIENTS },
  { name: 'default.api.timeout.ms', type: 'int', default: 60000, validator: atLeast(0), scopes: ['consumer', 'admin'] },
  { name: 'default.client.supplier', type: 'class', default: 'org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier', scopes: STREAMS },
  { name: 'default.deserialization.exception.handler', type: 'class', default: 'LogAndFailExceptionHandler', validator: exceptionHandler('default.deserialization.exception.handler'), scopes: STREAMS, applied: always, doc: 'LogAndFailExceptionHandler stops the thread on a record it cannot read; LogAndContinueExceptionHandler skips and counts it (and sends it to the dead-letter queue, if set).' },
  { name: 'default.dsl.store', type: 'string', default: 'rocksDB', validator: oneOf('rocksDB', 'in_memory'), scopes: STREAMS },
  { name: 'default.key.serde', type: 'class', default: 'string', validator: serdeName, scopes: STREAMS, applied: always, doc: 'Key serde of the topology\'s topics and stores unless an operation names one.' },
  { name: 'default.list.key.serde.inner', type: 'class', scopes: STREAMS },
  { name: 'default.list.key.serde.type', type: 'class', scopes: STREAMS },
  { name: 'default.list.value.serde.inner', type: 'class', scopes: STREAMS },
  { name: 'default.list.value.serde.type', type: 'class', scopes: STREAMS },
  { name: 'default.production.exception.handler', type: 'class', default: 'DefaultProductionExceptionHandler', validator: exceptionHandler('default.production.exception.handler'), scopes: STREAMS, applied: always, doc: 'DefaultProductionExceptionHandler stops the thread on a record the broker refuses (too large, invalid); LogAndContinueProductionExceptionHandler (Sluice\'s) skips and counts it, under at-least-once only.' },
  { name: 'default.timestamp.extractor', type: 'class', default: 'org.apache.kafka.streams.processor.FailOnInvalidTimestamp', scopes: STREAMS },
  { name: 'default.value.serde', type: 'class', default: 'string', validator: serdeName, scopes: STREAMS, applied: always, doc: 'Value serde of the topology\'s topics and stores unless an operation names one.' },
  { name: 'delivery.timeout.ms', type: 'int', default: 120000, validator: atLeast(0), scopes: PRODUCER },
  { name: 'dsl.store.suppliers.class', type: 'class', default: 'org.apache.kafka.streams.state.BuiltInDslStoreSuppliers$RocksDBDslStoreSuppliers', scopes: STREAMS },
  { name: 'enable.auto.commit', type: 'boolean', default: false, scopes: CONSUMER },
  { name: 'enable.idempotence', type: 'boolean', default: true, scopes: PRODUCER },
  { name: 'enable.metrics.push', type: 'boolean', default: true, scopes: STREAMS_AND_CLIENTS },
  { name: 'errors.dead.letter.queue.topic.name', type: 'string', validator: nonEmpty, scopes: STREAMS, applied: always, doc: 'Topic (created beforehand) that gets each record a handler skips, raw, with the error in __streams.errors.* headers (KIP-1034).' },
  { name: 'exclude.internal.topics', type: 'boolean', default: true, scopes: CONSUMER },
  { name: 'fetch.max.bytes', type: 'int', default: 1024 * 1024, validator: atLeast(1), scopes: CONSUMER, applied: consumers, doc: 'What one fetch may bring in all (main, restore and global consumers; the changelog readers\' default is 50 MiB).' },
  { name: 'fetch.max.wait.ms', type: 'int', default: 500, validator: atLeast(0), scopes: CONSUMER, applied: changelogReaders, doc: 'How long the broker may wait to fill a fetch of the restore and global consumers.' },
  { name: 'fetch.min.bytes', type: 'int', default: 1, validator: atLeast(0), scopes: CONSUMER },
  { name: 'group.id', type: 'string', scopes: CONSUMER },
  { name: 'group.instance.id', type: 'string', validator: nonEmpty, scopes: CONSUMER, applied: mainConsumer, doc: 'Static membership (KIP-345): each stream thread joins as <group.instance.id>-<thread number>; a node back within session.timeout.ms gets its tasks again with no rebalance, and closing does not leave the group.' },
  // Kafka Streams 4's own key (unprefixed); under a consumer prefix the consumer's, which Kafka Streams does not apply.
  { name: 'group.protocol', type: 'string', default: 'classic', validator: oneOfIgnoringCase('classic', 'streams'), scopes: STREAMS, applied: always, doc: 'classic: the stream threads join a consumer group and one member assigns the tasks; streams: the streams rebalance protocol (KIP-1071, Kafka 4.2 brokers), in which the group coordinator assigns them and the settings it owns (num.standby.replicas, session.timeout.ms, ...) are ignored.' },
  { name: 'group.protocol', type: 'string', default: 'classic', validator: oneOfIgnoringCase('CONSUMER', 'CLASSIC'), scopes: CONSUMER },
  { name: 'group.remote.assignor', type: 'string', scopes: CONSUMER },
  { name: 'heartbeat.interval.ms', type: 'int', default: 3000, validator: atLeast(1), scopes: CONSUMER, applied: mainConsumer, doc: 'How often the stream threads\' consumers heartbeat to the group.' },
  { name: 'interceptor.classes', type: 'list', scopes: ['consumer', 'producer'] },
  { name: 'internal.leave.group.on.close', type: 'boolean', default: true, scopes: CONSUMER },
  { name: 'internal.throw.on.fetch.stable.offset.unsupported', type: 'boolean', default: false, scopes: CONSUMER },
  { name: 'isolation.level', type: 'string', default: 'read_uncommitted', validator: oneOf('read_committed', 'read_uncommitted'), scopes: CONSUMER },
  { name: 'key.deserializer', type: 'class', scopes: CONSUMER },
  { name: 'key.serializer', type: 'class', scopes: PRODUCER },
  { name: 'linger.ms', type: 'long', default: 100, validator: atLeast(0), scopes: PRODUCER },
  { name: 'log.summary.interval.ms', type: 'long', default: 120000, scopes: STREAMS },
  { name: 'max.block.ms', type: 'long', default: 60000, validator: atLeast(0), scopes: PRODUCER },
  { name: 'max.in.flight.requests.per.connection', type: 'int', default: 5, validator: atLeast(1), scopes: PRODUCER },
  // Sluice's fetch sizes are below the Java consumer's 1 MiB / 50 MiB: kafkajs decodes a whole fetch into objects at
  // once (about 20 times its size on the heap); past 128 KiB per partition, throughput gains nothing measurable.
  { name: 'max.partition.fetch.bytes', type: 'int', default: 128 * 1024, validator: atLeast(1), scopes: CONSUMER, applied: consumers, doc: 'What one fetch may bring per partition (main, restore and global consumers; the changelog readers\' default is 1 MiB).' },
  { name: 'max.poll.interval.ms', type: 'int', default: 300000, validator: atLeast(1), scopes: CONSUMER },
  { name: 'max.poll.records', type: 'int', default: 1000, validator: atLeast(1), scopes: CONSUMER },
  { name: 'max.request.size', type: 'int', default: 1048576, validator: atLeast(0), scopes: PRODUCER },
  { name: 'max.task.idle.ms', type: 'long', default: 0, scopes: STREAMS },
  { name: 'max.warmup.replicas', type: 'int', default: 2, validator: atLeast(1), scopes: STREAMS, applied: always, doc: 'How many warm-up replicas of moving stateful tasks the group has at a time.' },
  { name: 'metadata.max.age.ms', type: 'long', default: 300000, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS, applied: mainConsumer, doc: 'How often new topics matching a source pattern are looked for.' },
  { name: 'metadata.max.idle.ms', type: 'long', default: 300000, validator: atLeast(5000), scopes: PRODUCER },
  { name: 'metadata.recovery.strategy', type: 'string', default: 'none', validator: oneOfIgnoringCase('REBOOTSTRAP', 'NONE'), scopes: CLIENTS },
  { name: 'metric.reporters', type: 'list', scopes: STREAMS_AND_CLIENTS },
  { name: 'metrics.num.samples', type: 'int', default: 2, validator: atLeast(1), scopes: STREAMS_AND_CLIENTS },
  { name: 'metrics.recording.level', type: 'string', default: 'INFO', validator: oneOf('INFO', 'DEBUG', 'TRACE'), scopes: STREAMS_AND_CLIENTS, applied: always, doc: 'DEBUG or TRACE: every state store operation is timed into its stream-state-metrics (put, get, range... latency and rate), and every read of a caching store\'s cache counted into its hit-ratio (stream-record-cache-metrics), as Kafka Streams records them at DEBUG; at INFO they are not measured (rates 0, latencies NaN, no hit ratio).' },
  { name: 'metrics.sample.window.ms', type: 'long', default: 30000, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS },
  { name: 'num.standby.replicas', type: 'int', default: 0, validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'Standby replicas of each stateful task, each on another node than the active: kept up to date from the changelogs, they make a failover restore only the tail.' },
  { name: 'num.stream.threads', type: 'int', default: 1, validator: atLeast(1), scopes: STREAMS, applied: always, doc: 'Stream threads (consumers) of the instance.' },
  { name: 'partition.assignment.strategy', type: 'list', default: 'org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor', scopes: CONSUMER },
  { name: 'partitioner.adaptive.partitioning.enable', type: 'boolean', default: true, scopes: PRODUCER },
  { name: 'partitioner.availability.timeout.ms', type: 'long', default: 0, validator: atLeast(0), scopes: PRODUCER },
  { name: 'partitioner.class', type: 'class', scopes: PRODUCER },
  { name: 'partitioner.ignore.keys', type: 'boolean', default: false, scopes: PRODUCER },
  { name: 'poll.ms', type: 'long', default: 100, validator: atLeast(1), scopes: STREAMS, applied: always, doc: 'How long a fetch waits for records.' },
  { name: 'probing.rebalance.interval.ms', type: 'long', default: 600000, validator: atLeast(60000), scopes: STREAMS, applied: always, doc: 'How long after a rebalance that left warm-ups the leader rebalances again to finish their moves.' },
  { name: 'processing.exception.handler', type: 'class', default: 'LogAndFailProcessingExceptionHandler', validator: exceptionHandler('processing.exception.handler'), scopes: STREAMS, applied: always, doc: 'LogAndFailProcessingExceptionHandler stops the thread when a processor throws; LogAndContinueProcessingExceptionHandler skips the record at that processor, counts it (and sends it to the dead-letter queue, if set).' },
  { name: 'processing.guarantee', type: 'string', default: 'at_least_once', validator: oneOf('at_least_once', 'exactly_once', 'exactly_once_beta', 'exactly_once_v2'), scopes: STREAMS, applied: always, doc: 'at_least_once, or exactly_once_v2 (a transactional producer per task).' },
  { name: 'rack.aware.assignment.non_overlap_cost', type: 'int', scopes: STREAMS },
  { name: 'rack.aware.assignment.strategy', type: 'string', default: 'none', validator: oneOf('none', 'min_traffic', 'balance_subtopology'), scopes: STREAMS },
  { name: 'rack.aware.assignment.tags', type: 'list', validator: atMostItems(5), scopes: STREAMS },
  { name: 'rack.aware.assignment.traffic_cost', type: 'int', scopes: STREAMS },
  { name: 'receive.buffer.bytes', type: 'int', default: 32768, validator: atLeast(-1), scopes: STREAMS_AND_CLIENTS },
  { name: 'reconnect.backoff.max.ms', type: 'long', default: 1000, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS },
  { name: 'reconnect.backoff.ms', type: 'long', default: 50, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS },
  { name: 'repartition.purge.interval.ms', type: 'long', default: 30000, validator: atLeast(0), scopes: STREAMS },
  { name: 'replication.factor', type: 'int', default: -1, validator: atLeast(-1), scopes: STREAMS, applied: always, doc: 'Replication of the internal topics; -1 takes the broker\'s default.' },
  { name: 'request.timeout.ms', type: 'int', default: 40000, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS },
  { name: 'retries', type: 'int', default: 0, validator: between(0, 2147483647), scopes: ['streams', 'producer', 'admin'] },
  { name: 'retry.backoff.max.ms', type: 'long', default: 1000, validator: atLeast(0), scopes: CLIENTS },
  { name: 'retry.backoff.ms', type: 'long', default: 100, validator: atLeast(0), scopes: STREAMS_AND_CLIENTS },
  { name: 'rocksdb.config.setter', type: 'class', scopes: STREAMS },
  { name: 'sasl.client.callback.handler.class', type: 'class', scopes: CLIENTS },
  { name: 'sasl.jaas.config', type: 'password', scopes: CLIENTS, applied: clientSecurity, doc: 'SASL credentials, in the JAAS syntax of the Java clients.' },
  { name: 'sasl.kerberos.kinit.cmd', type: 'string', default: '/usr/bin/kinit', scopes: CLIENTS },
  { name: 'sasl.kerberos.min.time.before.relogin', type: 'long', default: 60000, scopes: CLIENTS },
  { name: 'sasl.kerberos.service.name', type: 'string', scopes: CLIENTS },
  { name: 'sasl.kerberos.ticket.renew.jitter', type: 'double', default: 0.05, scopes: CLIENTS },
  { name: 'sasl.kerberos.ticket.renew.window.factor', type: 'double', default: 0.8, scopes: CLIENTS },
  { name: 'sasl.login.callback.handler.class', type: 'class', scopes: CLIENTS },
  { name: 'sasl.login.class', type: 'class', scopes: CLIENTS },
  { name: 'sasl.login.connect.timeout.ms', type: 'int', scopes: CLIENTS },
  { name: 'sasl.login.read.timeout.ms', type: 'int', scopes: CLIENTS },
  { name: 'sasl.login.refresh.buffer.seconds', type: 'short', default: 300, validator: between(0, 3600), scopes: CLIENTS },
  { name: 'sasl.login.refresh.min.period.seconds', type: 'short', default: 60, validator: between(0, 900), scopes: CLIENTS },
  { name: 'sasl.login.refresh.window.factor', type: 'double', default: 0.8, validator: between(0.5, 1), scopes: CLIENTS },
  { name: 'sasl.login.refresh.window.jitter', type: 'double', default: 0.05, validator: between(0, 0.25), scopes: CLIENTS },
  { name: 'sasl.login.retry.backoff.max.ms', type: 'long', default: 10000, scopes: CLIENTS },
  { name: 'sasl.login.retry.backoff.ms', type: 'long', default: 100, scopes: CLIENTS },
  { name: 'sasl.mechanism', type: 'string', default: 'GSSAPI', scopes: CLIENTS, applied: clientSecurity, doc: 'PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.' },
  { name: 'sasl.oauthbearer.clock.skew.seconds', type: 'int', default: 30, scopes: CLIENTS },
  { name: 'sasl.oauthbearer.expected.audience', type: 'list', scopes: CLIENTS },
  { name: 'sasl.oauthbearer.expected.issuer', type: 'string', scopes: CLIENTS },
  { name: 'sasl.oauthbearer.header.urlencode', type: 'boolean', default: false, scopes: CLIENTS },
  { name: 'sasl.oauthbearer.jwks.endpoint.refresh.ms', type: 'long', default: 3600000, scopes: CLIENTS },
  { name: 'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms', type: 'long', default: 10000, scopes: CLIENTS },
  { name: 'sasl.oauthbearer.jwks.endpoint.retry.backoff.ms', type: 'long', default: 100, scopes: CLIENTS },
  { name: 'sasl.oauthbearer.jwks.endpoint.url', type: 'string', scopes: CLIENTS },
  { name: 'sasl.oauthbearer.scope.claim.name', type: 'string', default: 'scope', scopes: CLIENTS },
  { name: 'sasl.oauthbearer.sub.claim.name', type: 'string', default: 'sub', scopes: CLIENTS },
  { name: 'sasl.oauthbearer.token.endpoint.url', type: 'string', scopes: CLIENTS, applied: clientSecurity, doc: 'file: URL of an OAUTHBEARER token file, read at each login.' },
  { name: 'security.protocol', type: 'string', default: 'PLAINTEXT', validator: oneOfIgnoringCase('SASL_SSL', 'PLAINTEXT', 'SSL', 'SASL_PLAINTEXT'), scopes: STREAMS_AND_CLIENTS, applied: clientSecurity, doc: 'PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.' },
  { name: 'security.providers', type: 'string', scopes: CLIENTS },
  { name: 'send.buffer.bytes', type: 'int', default: 131072, validator: atLeast(-1), scopes: STREAMS_AND_CLIENTS },
  { name: 'session.timeout.ms', type: 'int', default: 45000, validator: atLeast(1), scopes: CONSUMER, applied: mainConsumer, doc: 'How long the group waits for a silent stream thread before it rebalances.' },
  { name: 'socket.connection.setup.timeout.max.ms', type: 'long', default: 30000, scopes: CLIENTS },
  { name: 'socket.connection.setup.timeout.ms', type: 'long', default: 10000, scopes: CLIENTS },
  { name: 'ssl.cipher.suites', type: 'list', scopes: CLIENTS },
  { name: 'ssl.enabled.protocols', type: 'list', default: 'TLSv1.2,TLSv1.3', scopes: CLIENTS, applied: clientSecurity, doc: 'TLS versions the clients may use.' },
  { name: 'ssl.endpoint.identification.algorithm', type: 'string', default: 'https', scopes: CLIENTS, applied: clientSecurity, doc: 'https checks the broker\'s host name in its certificate; empty does not.' },
  { name: 'ssl.engine.factory.class', type: 'class', scopes: CLIENTS },
  { name: 'ssl.key.password', type: 'password', scopes: CLIENTS, applied: clientSecurity, doc: 'Password of the client\'s private key.' },
  { name: 'ssl.keymanager.algorithm', type: 'string', default: 'SunX509', scopes: CLIENTS },
  { name: 'ssl.keystore.certificate.chain', type: 'password', scopes: CLIENTS, applied: clientSecurity, doc: 'The client\'s certificate chain, PEM text.' },
  { name: 'ssl.keystore.key', type: 'password', scopes: CLIENTS, applied: clientSecurity, doc: 'The client\'s private key, PEM text.' },
  { name: 'ssl.keystore.location', type: 'string', scopes: CLIENTS, applied: clientSecurity, doc: 'File of the client\'s certificate and key (PEM).' },
  { name: 'ssl.keystore.password', type: 'password', scopes: CLIENTS },
  { name: 'ssl.keystore.type', type: 'string', default: 'JKS', scopes: CLIENTS, applied: clientSecurity, doc: 'Format of the store; Sluice reads PEM.' },
  { name: 'ssl.protocol', type: 'string', default: 'TLSv1.3', scopes: CLIENTS },
  { name: 'ssl.provider', type: 'string', scopes: CLIENTS },
  { name: 'ssl.secure.random.implementation', type: 'string', scopes: CLIENTS },
  { name: 'ssl.trustmanager.algorithm', type: 'string', default: 'PKIX', scopes: CLIENTS },
  { name: 'ssl.truststore.certificates', type: 'password', scopes: CLIENTS, applied: clientSecurity, doc: 'CA certificates the broker\'s certificate must chain to, PEM text.' },
  { name: 'ssl.truststore.location', type: 'string', scopes: CLIENTS, applied: clientSecurity, doc: 'File of the CA certificates (PEM).' },
  { name: 'ssl.truststore.password', type: 'password', scopes: CLIENTS },
  { name: 'ssl.truststore.type', type: 'string', default: 'JKS', scopes: CLIENTS, applied: clientSecurity, doc: 'Format of the store; Sluice reads PEM.' },
  { name: 'state.cleanup.delay.ms', type: 'long', default: 600000, scopes: STREAMS },
  { name: 'state.dir', type: 'string', default: path.join(os.tmpdir(), 'sluice-streams'), scopes: STREAMS, applied: always, doc: 'Directory of the local state stores and checkpoints.' },
  { name: 'statestore.cache.max.bytes', type: 'long', default: 10485760, validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'Record cache of the DSL\'s aggregations; 0 forwards every update.' },
  { name: 'task.assignor.class', type: 'string', scopes: STREAMS },
  { name: 'task.timeout.ms', type: 'long', default: 300000, validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'How long a task rides out transient Kafka failures before the instance fails.' },
  { name: 'topology.optimization', type: 'string', default: 'none', validator: oneOf('all', 'none', 'reuse.ktable.source.topics', 'merge.repartition.topics', 'single.store.self.join'), scopes: STREAMS },
  { name: 'transaction.timeout.ms', type: 'int', default: 60000, scopes: PRODUCER },
  { name: 'transactional.id', type: 'string', validator: nonEmpty, scopes: PRODUCER },
  {
    name: 'upgrade.from',
    type: 'string',
    validator: oneOf('0.10.0', '0.10.1', '0.10.2', '0.11.0', '1.0', '1.1', '2.0', '2.1', '2.2', '2.3', '2.4', '2.5', '2.6', '2.7', '2.8', '3.0', '3.1', '3.2', '3.3', '3.4', '3.5', '3.6', '3.7', '3.8'),
    scopes: STREAMS,
  },
  { name: 'value.deserializer', type: 'class', scopes: CONSUMER },
  { name: 'value.serializer', type: 'class', scopes: PRODUCER },
  { name: 'window.size.ms', type: 'long', scopes: STREAMS },
  { name: 'windowed.inner.class.serde', type: 'string', scopes: STREAMS },
  { name: 'windowstore.changelog.additional.retention.ms', type: 'long', default: 86400000, scopes: STREAMS },
  // Read by Kafka Streams outside its ConfigDef: windowed serdes' inner serdes, rack-aware assignment tags
  // (`client.tag.<tag>`), and the settable InternalConfig keys.
  { name: 'default.windowed.key.serde.inner', type: 'class', scopes: STREAMS },
  { name: 'default.windowed.value.serde.inner', type: 'class', scopes: STREAMS },
  { name: 'client.tag.*', type: 'string', scopes: STREAMS },
  { name: 'internal.task.assignor.class', type: 'class', scopes: STREAMS },
  { name: '__emit.interval.ms.kstreams.outer.join.spurious.results.fix__', type: 'long', validator: atLeast(0), scopes: STREAMS, applied: always, doc: 'Least wall-clock time between two emits of an outer or left stream-stream join\'s unmatched records (default 1000).' },
  { name: '__emit.interval.ms.kstreams.windowed.aggregation__', type: 'long', validator: atLeast(0), scopes: STREAMS },
  { name: '__iq.consistency.offset.vector.enabled__', type: 'boolean', scopes: STREAMS },
  { name: '__internal.override.topic.prefix__', type: 'string', scopes: STREAMS },
  { name: '__state.updater.enabled__', type: 'boolean', scopes: STREAMS },
  { name: '__processing.threads.enabled__', type: 'boolean', scopes: STREAMS },
  // Topic configurations (TopicConfig), under `topic.`: given to the internal topics Sluice creates.
  { name: 'cleanup.policy', type: 'list', validator: listOf('compact', 'delete'), scopes: TOPIC, applied: always },
  { name: 'compression.gzip.level', type: 'int', validator: between(1, 9, -1), scopes: TOPIC, applied: always },
  { name: 'compression.lz4.level', type: 'int', validator: between(1, 17), scopes: TOPIC, applied: always },
  { name: 'compression.type', type: 'string', validator: oneOf('uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'), scopes: TOPIC, applied: always },
  { name: 'compression.zstd.level', type: 'int', validator: between(-131072, 22), scopes: TOPIC, applied: always },
  { name: 'delete.retention.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'file.delete.delay.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'flush.messages', type: 'long', validator: atLeast(1), scopes: TOPIC, applied: always },
  { name: 'flush.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'follower.replication.throttled.replicas', type: 'list', scopes: TOPIC, applied: always },
  { name: 'index.interval.bytes', type: 'int', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'leader.replication.throttled.replicas', type: 'list', scopes: TOPIC, applied: always },
  { name: 'local.retention.bytes', type: 'long', validator: atLeast(-2), scopes: TOPIC, applied: always },
  { name: 'local.retention.ms', type: 'long', validator: atLeast(-2), scopes: TOPIC, applied: always },
  { name: 'max.compaction.lag.ms', type: 'long', validator: atLeast(1), scopes: TOPIC, applied: always },
  { name: 'max.message.bytes', type: 'int', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'message.downconversion.enable', type: 'boolean', scopes: TOPIC, applied: always },
  { name: 'message.format.version', type: 'string', scopes: TOPIC, applied: always },
  { name: 'message.timestamp.after.max.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'message.timestamp.before.max.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'message.timestamp.difference.max.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'message.timestamp.type', type: 'string', validator: oneOf('CreateTime', 'LogAppendTime'), scopes: TOPIC, applied: always },
  { name: 'min.cleanable.dirty.ratio', type: 'double', validator: between(0, 1), scopes: TOPIC, applied: always },
  { name: 'min.compaction.lag.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'min.insync.replicas', type: 'int', validator: atLeast(1), scopes: TOPIC, applied: always },
  { name: 'preallocate', type: 'boolean', scopes: TOPIC, applied: always },
  { name: 'remote.log.copy.disable', type: 'boolean', scopes: TOPIC, applied: always },
  { name: 'remote.log.delete.on.disable', type: 'boolean', scopes: TOPIC, applied: always },
  { name: 'remote.storage.enable', type: 'boolean', scopes: TOPIC, applied: always },
  { name: 'retention.bytes', type: 'long', scopes: TOPIC, applied: always },
  { name: 'retention.ms', type: 'long', validator: atLeast(-1), scopes: TOPIC, applied: always },
  { name: 'segment.bytes', type: 'int', validator: atLeast(14), scopes: TOPIC, applied: always },
  { name: 'segment.index.bytes', type: 'int', validator: atLeast(4), scopes: TOPIC, applied: always },
  { name: 'segment.jitter.ms', type: 'long', validator: atLeast(0), scopes: TOPIC, applied: always },
  { name: 'segment.ms', type: 'long', validator: atLeast(1), scopes: TOPIC, applied: always },
  { name: 'unclean.leader.election.enable', type: 'boolean', scopes: TOPIC, applied: always },
  // Sluice's own (the compatibility file, section 7).
  { name: 'grpc.endpoint', type: 'string', validator: endpoint, scopes: SLUICE, applied: always, doc: 'host:port of this node\'s gRPC peer service, told to the other nodes through the group.' },
  { name: 'state.dir.min.free.bytes', type: 'long', default: 64 * 1024 * 1024, validator: atLeast(0), scopes: SLUICE, applied: always, doc: 'Persistent stores refuse writes, failing their task, while the state directory\'s disk has less free; 0 turns the check off.' },
  { name: 'uncaught.exception.handler', type: 'string', default: 'SHUTDOWN_CLIENT', validator: oneOf(...THREAD_EXCEPTION_RESPONSES), scopes: SLUICE, applied: always, doc: 'What a stream thread\'s failure does (Kafka Streams\' StreamsUncaughtExceptionHandler, set here by its response): REPLACE_THREAD starts a new thread in its place, SHUTDOWN_CLIENT stops this node (ERROR), SHUTDOWN_APPLICATION stops every node of the application.' },
  { name: 'embeddedstore.config.setter', type: 'string', scopes: SLUICE, applied: always, doc: 'Module whose function adjusts each persistent store\'s LMDB options (the role of rocksdb.config.setter).' },
  { name: 'metrics.sse.interval.ms', type: 'long', validator: atLeast(0), scopes: SLUICE, applied: always, doc: 'How often the metrics event stream sends.' },
  { name: 'stats.enable', type: 'boolean', default: false, scopes: SLUICE, applied: always, doc: 'Writes each persistent store\'s statistics to log.dir.' },
  { name: 'stats.dumpPeriodSec', type: 'int', default: 30, validator: atLeast(1), scopes: SLUICE, applied: always, doc: 'How often the store statistics are written.' },
  { name: 'log.dir', type: 'string', default: path.join(os.tmpdir(), 'sluice-logs'), scopes: SLUICE, applied: always, doc: 'Directory of the store statistics.' },
  { name: 'log.maxFileSize', type: 'long', default: 10 * 1024 * 1024, validator: atLeast(1), scopes: SLUICE, applied: always, doc: 'Size at which a store statistics file is rotated.' },
  // Schema Registry serdes (Confluent's serializer settings, which Kafka Streams hands to serdes): node configuration only.
  { name: 'schema.registry.url', type: 'string', validator: nonEmpty, scopes: STREAMS, applied: always, doc: 'Schema Registry URL(s), comma-separated, for the Schema Registry serdes.' },
  { name: 'basic.auth.credentials.source', type: 'string', default: 'USER_INFO', validator: oneOf('USER_INFO'), scopes: STREAMS, applied: always, doc: 'Where the registry credentials come from: basic.auth.user.info.' },
  { name: 'basic.auth.user.info', type: 'password', scopes: STREAMS, applied: always, doc: 'user:password for the Schema Registry (HTTP basic auth).' },
  { name: 'auto.register.schemas', type: 'boolean', default: true, scopes: STREAMS, applied: always, doc: 'Whether a registry serializer registers its schema under the subject, or only looks its id up.' },
  { name: 'use.latest.version', type: 'boolean', default: false, scopes: STREAMS, applied: always, doc: "Whether a registry serializer writes with the subject's latest schema." },
  { name: 'key.subject.name.strategy', type: 'string', default: 'TopicNameStrategy', scopes: STREAMS, applied: always, doc: 'TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy (or their Java class names), for keys.' },
  { name: 'value.subject.name.strategy', type: 'string', default: 'TopicNameStrategy', scopes: STREAMS, applied: always, doc: 'The same, for values.' },
  { name: 'json.fail.invalid.schema', type: 'boolean', default: false, scopes: STREAMS, applied: always, doc: 'Whether JSON Schema registry serdes validate what they write and read against the schema.' },
  // TLS to the registry (Confluent's schema.registry.ssl.* names): PEM, and PKCS12 for the client's keystore.
  { name: 'schema.registry.ssl.truststore.type', type: 'string', default: 'PEM', validator: oneOfIgnoringCase('PEM'), scopes: STREAMS, applied: always, doc: "Format of the registry's truststore: PEM." },
  { name: 'schema.registry.ssl.truststore.location', type: 'string', scopes: STREAMS, applied: always, doc: "File of the CA certificates the registry's certificate must chain to (PEM)." },
  { name: 'schema.registry.ssl.truststore.certificates', type: 'password', scopes: STREAMS, applied: always, doc: 'The same CA certificates as PEM text.' },
  { name: 'schema.registry.ssl.keystore.type', type: 'string', default: 'PEM', validator: oneOfIgnoringCase('PEM', 'PKCS12'), scopes: STREAMS, applied: always, doc: "Format of the client's keystore for mutual TLS to the registry: PEM or PKCS12." },
  { name: 'schema.registry.ssl.keystore.location', type: 'string', scopes: STREAMS, applied: always, doc: "File of the client's key and certificate chain (PEM, or PKCS12)." },
  { name: 'schema.registry.ssl.keystore.password', type: 'password', scopes: STREAMS, applied: always, doc: 'Password of a PKCS12 keystore.' },
  { name: 'schema.registry.ssl.keystore.certificate.chain', type: 'password', scopes: STREAMS, applied: always, doc: "The client's certificate chain, PEM text." },
  { name: 'schema.registry.ssl.keystore.key', type: 'password', scopes: STREAMS, applied: always, doc: "The client's private key, PEM text." },
  { name: 'schema.registry.ssl.key.password', type: 'password', scopes: STREAMS, applied: always, doc: "Password of the client's encrypted PEM key." },
  { name: 'schema.registry.ssl.endpoint.identification.algorithm', type: 'string', default: 'https', validator: oneOf('https', ''), scopes: STREAMS, applied: always, doc: "https checks the registry's host name against its certificate; empty does not." },
];

/**
 * The keys Sluice applies, one per line with type, default and doc, for `sluice start --help`: Kafka Streams' and
 * the clients' keys, and Sluice's own (topic configurations, under `topic.`, are passed to the internal topics as
 * given). Passwords show no default.
 */
export function describeAppliedKeys(): string {
  const keys = CONFIG_KEYS.filter((k) => k.applied !== undefined && !k.scopes.includes('topic') && !k.name.endsWith('*'));
  return keys
    .map((k) => {
      const fallback = k.type === 'password' || k.default === undefined || k.default === '' ? '' : `, default ${String(k.default)}`;
      return `  ${k.name} (${k.type}${fallback})${k.doc ? `\n      ${k.doc}` : ''}`;
    })
    .join('\n');
}
