import { ConfigException } from '../../errors';
import { CONFIG_KEYS, type ConfigKey } from '../config/config-keys';
import type { ErrorHandlerContext } from './exception-handlers';
import { parseStreamsConfig } from './streams-config';

const base = { 'application.id': 'app', 'bootstrap.servers': 'localhost:9092' };
const CONTEXT: ErrorHandlerContext = { taskId: '0_0', processorNodeId: 'n', topic: 't', partition: 0, offset: 0, timestamp: 0, headers: {}, sourceRawKey: null, sourceRawValue: null };

describe('parseStreamsConfig', () => {
  it("answers a failed thread as uncaught.exception.handler says, SHUTDOWN_CLIENT by default (Kafka Streams' default)", () => {
    const failure = new Error('boom');
    expect(parseStreamsConfig(base).exceptionHandlers.uncaught(failure)).toBe('SHUTDOWN_CLIENT');
    for (const response of ['REPLACE_THREAD', 'SHUTDOWN_CLIENT', 'SHUTDOWN_APPLICATION']) {
      expect(parseStreamsConfig({ ...base, 'uncaught.exception.handler': response }).exceptionHandlers.uncaught(failure)).toBe(response);
    }
  });

  it("completes the configuration with Kafka Streams' defaults", () => {
    const config = parseStreamsConfig(base);
    expect(config.bootstrapServers).toEqual(['localhost:9092']);
    expect(config.values).toMatchObject({ 'num.stream.threads': 1, 'commit.interval.ms': 30000, 'statestore.cache.max.bytes': 10485760 });
    expect(config.values).not.toHaveProperty('cache.max.bytes.buffering');
    expect(config).toMatchObject({ applicationServer: undefined, autoOffsetReset: 'earliest', notApplied: [] });
  });

  it.each([
    [{ ...base, 'no.such.key': 1 }, "unknown configuration key 'no.such.key'"],
    [{ 'bootstrap.servers': 'x:1' }, "'application.id' is required"],
    [{ ...base, 'application.id': 'my app' }, `'application.id' must be at most 100 letters, digits, '.', '_' or '-', and not '.' or '..', got "my app"`],
    [{ ...base, 'application.id': '..' }, "'application.id' must be at most 100 letters"],
    [{ ...base, 'application.id': 'a'.repeat(101) }, "'application.id' must be at most 100 letters"],
    [{ 'application.id': 'app' }, "'bootstrap.servers' is required"],
    [{ ...base, 'num.stream.threads': 'two' }, `'num.stream.threads' must be an integer >= 1, got "two"`],
    [{ ...base, 'num.stream.threads': 0 }, "'num.stream.threads' must be an integer >= 1, got 0"],
    [{ ...base, 'application.server': 'no-port' }, "'application.server' must be of the form host:port"],
    [{ ...base, 'processing.guarantee': 'exactly_twice' }, "'processing.guarantee' must be one of at_least_once, exactly_once, exactly_once_beta, exactly_once_v2"],
    [{ ...base, 'consumer.max.partition.fetch.bytes': 0 }, "'consumer.max.partition.fetch.bytes' must be an integer >= 1"],
    [{ ...base, 'default.deserialization.exception.handler': 'Whatever' }, 'LogAndContinueExceptionHandler'],
    [{ ...base, 'processing.exception.handler': 'LogAndContinueExceptionHandler' }, "'processing.exception.handler' must be LogAndContinueProcessingExceptionHandler or LogAndFailProcessingExceptionHandler"],
    [{ ...base, 'default.production.exception.handler': 'com.acme.Handler' }, "'default.production.exception.handler' must be DefaultProductionExceptionHandler or LogAndContinueProductionExceptionHandler"],
    [{ ...base, 'uncaught.exception.handler': 'RESTART' }, "'uncaught.exception.handler' must be one of REPLACE_THREAD, SHUTDOWN_CLIENT, SHUTDOWN_APPLICATION"],
    [{ ...base, 'errors.dead.letter.queue.topic.name': '' }, "'errors.dead.letter.queue.topic.name' must be a non-empty string"],
    [{ ...base, 'default.key.serde': 'com.acme.AvroSerde' }, "'default.key.serde' must be a serde"],
    [{ ...base, 'auto.offset.reset': 'smallest' }, "'auto.offset.reset' must be one of latest, earliest, none, got \"smallest\""],
    [{ ...base, 'statestore.cache.max.bytes': -1 }, "'statestore.cache.max.bytes' must be an integer >= 0"],
    [{ ...base, 'stats.enable': 'yes' }, "'stats.enable' must be true or false"],
    [{ ...base, 'producer.linger.ms': 1.5 }, "'producer.linger.ms' must be an integer >= 0"],
    [{ ...base, 'producer.acks': 'some' }, "'producer.acks' must be one of all, -1, 0, 1"],
    [{ ...base, 'sasl.login.refresh.window.factor': 2 }, "'sasl.login.refresh.window.factor' must be a number between 0.5 and 1"],
    [{ ...base, 'topic.cleanup.policy': 'compact,archive' }, "'topic.cleanup.policy' must be a list of compact, delete"],
    [{ ...base, 'max.poll.interval.ms': '99999999999' }, "'max.poll.interval.ms' must be an integer >= 1"],
    [{ ...base, 'upgrade.from': '3.9' }, "'upgrade.from' must be one of 0.10.0"],
    [{ ...base, 'rack.aware.assignment.tags': 'a,b,c,d,e,f' }, "'rack.aware.assignment.tags' must be a list of at most 5 items"],
    [{ ...base, 'num.stream.threads': [1] }, "'num.stream.threads' must be a string, number or boolean"],
    [{ ...base, 'group.protocol': 'consumer' }, "'group.protocol' must be one of classic, streams (in any case), got \"consumer\""],
  ])('refuses %j with a clear error', (input, message) => {
    expect(() => parseStreamsConfig(input)).toThrow(ConfigException);
    expect(() => parseStreamsConfig(input)).toThrow(message);
  });

  it.each([
    ['commit.intervall.ms', 'commit.interval.ms'],
    ['statestore.cache.max.byte', 'statestore.cache.max.bytes'],
    ['auto.offset.rest', 'auto.offset.reset'],
    ['consumer.max.pol.records', 'consumer.max.poll.records'],
    ['producer.auto.offset.reset', 'consumer.auto.offset.reset'],
    ['consumers.session.timeout.ms', 'consumer.session.timeout.ms'],
    ['topic.retention.msec', 'topic.retention.ms'],
    ['retention.ms', 'topic.retention.ms'],
    ['num.streams.threads', 'num.stream.threads'],
    ['processing.guarantees', 'processing.guarantee'],
  ])("refuses the misspelt key '%s', suggesting '%s'", (key, suggestion) => {
    expect(() => parseStreamsConfig({ ...base, [key]: '1' })).toThrow(`unknown configuration key '${key}'; did you mean '${suggestion}'?`);
  });

  it('suggests nothing for a key far from every valid one', () => {
    expect(() => parseStreamsConfig({ ...base, 'specific.avro.reader': 'true' })).toThrow(/unknown configuration key 'specific.avro.reader'$/);
  });

  it("accepts the configuration of Kafka's WordCountDemo, applying all of it", () => {
    const config = parseStreamsConfig({
      'application.id': 'streams-wordcount',
      'bootstrap.servers': 'localhost:9092',
      'statestore.cache.max.bytes': 0,
      'default.key.serde': 'org.apache.kafka.common.serialization.Serdes$StringSerde',
      'default.value.serde': 'org.apache.kafka.common.serialization.Serdes$StringSerde',
      'auto.offset.reset': 'earliest',
    });
    expect(config).toMatchObject({ applicationId: 'streams-wordcount', autoOffsetReset: 'earliest', notApplied: [] });
    expect(config.defaultKeySerde).toBe('org.apache.kafka.common.serialization.Serdes$StringSerde');
    expect(config.values['statestore.cache.max.bytes']).toBe(0);
  });

  it("accepts a production Java application's properties (strings, prefixes), naming what Sluice does not apply once", () => {
    const properties = {
      'application.id': 'orders-enricher',
      'bootstrap.servers': 'kafka-0:9092,kafka-1:9092',
      'processing.guarantee': 'exactly_once_v2',
      'num.stream.threads': '4',
      'replication.factor': '3',
      'commit.interval.ms': '1000',
      'cache.max.bytes.buffering': '0',
      'security.protocol': 'plaintext',
      'default.timestamp.extractor': 'org.apache.kafka.streams.processor.WallclockTimestampExtractor',
      'default.deserialization.exception.handler': 'org.apache.kafka.streams.errors.LogAndContinueExceptionHandler',
      'topology.optimization': 'all',
      'client.id': 'orders',
      'metrics.recording.level': 'DEBUG',
      'consumer.max.poll.records': '500',
      'main.consumer.session.timeout.ms': '30000',
      'consumer.session.timeout.ms': '60000',
      'restore.consumer.max.partition.fetch.bytes': '10485760',
      'producer.linger.ms': '50',
      'producer.compression.type': 'lz4',
      'admin.retries': '5',
      'topic.min.insync.replicas': '2',
      'client.tag.zone': 'eu-west-1a',
    };
    const config = parseStreamsConfig(properties);
    expect(config).toMatchObject({
      processingGuarantee: 'exactly_once_v2',
      numStreamThreads: 4,
      replicationFactor: 3,
      commitIntervalMs: 1000,
      sessionTimeoutMs: 30000,
      maxPartitionFetchBytes: 131072,
    });
    expect(config.notApplied).toEqual([
      'default.timestamp.extractor',
      'topology.optimization',
      'client.id',
      'consumer.max.poll.records',
      'producer.linger.ms',
      'producer.compression.type',
      'admin.retries',
      'client.tag.zone',
    ]);
    // The values as given, and no default shown for what was given under another name.
    expect(config.values).toMatchObject(properties);
    expect(config.values).not.toHaveProperty('statestore.cache.max.bytes');
    expect(config.values).not.toHaveProperty('session.timeout.ms');
  });

  it.each(CONFIG_KEYS.filter((key) => !key.name.endsWith('*')).map((key): [string, ConfigKey] => [key.name, key]))('accepts %s', (_name, key) => {
    const written = key.scopes.includes('topic') && key.scopes.length === 1 ? `topic.${key.name}` : key.name;
    const value = key.default ?? sampleValue(key);
    expect(() => parseStreamsConfig({ ...base, [written]: value })).not.toThrow();
    expect(() => parseStreamsConfig({ ...base, [written]: String(value) })).not.toThrow();
  });

  it("accepts a client key under each of Kafka Streams' prefixes, and the consumer's under each consumer prefix", () => {
    const config = parseStreamsConfig({
      ...base,
      'consumer.fetch.min.bytes': 1,
      'main.consumer.fetch.min.bytes': 1,
      'restore.consumer.fetch.min.bytes': 1,
      'global.consumer.fetch.min.bytes': 1,
      'producer.batch.size': 16384,
      'admin.request.timeout.ms': 30000,
      'topic.retention.ms': -1,
      'request.timeout.ms': 30000,
    });
    expect(config.notApplied).toHaveLength(7);
    expect(config.notApplied).not.toContain('topic.retention.ms');
    expect(() => parseStreamsConfig({ ...base, 'admin.max.poll.records': 1 })).toThrow("unknown configuration key 'admin.max.poll.records'");
  });

  it("resolves each client's security from the unprefixed keys and its own prefixes, the strongest per key", () => {
    const jaas = (user: string) => `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${user}-pw";`;
    const config = parseStreamsConfig({
      ...base,
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': jaas('app'),
      'consumer.sasl.jaas.config': jaas('reader'),
      'restore.consumer.sasl.mechanism': 'SCRAM-SHA-256',
      'global.consumer.sasl.jaas.config': jaas('global'),
      'producer.sasl.jaas.config': jaas('writer'),
      'admin.security.protocol': 'PLAINTEXT',
    });
    expect(config.security).toEqual({
      admin: { protocol: 'PLAINTEXT' },
      mainConsumer: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: 'reader', password: 'reader-pw' } },
      restoreConsumer: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'reader', password: 'reader-pw' } },
      globalConsumer: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: 'global', password: 'global-pw' } },
      producer: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: 'writer', password: 'writer-pw' } },
    });
    expect(config.notApplied).toEqual([]);
    expect(parseStreamsConfig(base).security.producer).toEqual({ protocol: 'PLAINTEXT' });
  });

  it('secures every client with security given only under consumer., producer. and admin., as Kafka Streams does', () => {
    const scram = { 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";' };
    const config = parseStreamsConfig({
      ...base,
      ...Object.fromEntries(['consumer.', 'producer.', 'admin.'].flatMap((prefix) => Object.entries(scram).map(([key, value]) => [prefix + key, value]))),
    });
    const secured = { protocol: 'SASL_SSL', tls: { checkHostname: true }, sasl: { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' } };
    expect(config.security).toEqual({ admin: secured, mainConsumer: secured, restoreConsumer: secured, globalConsumer: secured, producer: secured });
    expect(config.notApplied).toEqual([]);
  });

  it('names the prefixed key in a security error', () => {
    expect(() => parseStreamsConfig({ ...base, 'producer.security.protocol': 'SASL_SSL', 'producer.sasl.mechanism': 'PLAIN' })).toThrow(
      "SASL PLAIN needs 'sasl.jaas.config'",
    );
    expect(() => parseStreamsConfig({ ...base, 'security.protocol': 'SSL', 'main.consumer.ssl.keystore.location': '/x.jks' })).toThrow(
      "'main.consumer.ssl.keystore.type' is JKS (Kafka's default)",
    );
  });

  it('accepts the SASL and SSL keys beside a PLAINTEXT protocol; a store password is named as not applied', () => {
    const config = parseStreamsConfig({ ...base, 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': 'x required;', 'ssl.truststore.password': 'secret' });
    expect(config.notApplied).toEqual(['ssl.truststore.password']);
    expect(config.security.admin).toEqual({ protocol: 'PLAINTEXT' });
  });

  it('takes statestore.cache.max.bytes over the deprecated cache.max.bytes.buffering, as Kafka Streams does', () => {
    const both = parseStreamsConfig({ ...base, 'cache.max.bytes.buffering': 1024, 'statestore.cache.max.bytes': 0 });
    expect(both.values).toMatchObject({ 'cache.max.bytes.buffering': 1024, 'statestore.cache.max.bytes': 0 });
    expect(both.notApplied).toEqual([]);
  });

  it("applies auto.offset.reset to the stream threads' consumer, the most specific prefix winning", () => {
    expect(parseStreamsConfig({ ...base, 'auto.offset.reset': 'latest' }).autoOffsetReset).toBe('latest');
    expect(parseStreamsConfig({ ...base, 'auto.offset.reset': 'latest', 'consumer.auto.offset.reset': 'earliest' }).autoOffsetReset).toBe('earliest');
    const specific = parseStreamsConfig({ ...base, 'consumer.auto.offset.reset': 'earliest', 'main.consumer.auto.offset.reset': 'latest' });
    expect(specific).toMatchObject({ autoOffsetReset: 'latest', notApplied: [] });
    // Kafka Streams' restore and global consumers always start where their changelogs and checkpoints say.
    expect(parseStreamsConfig({ ...base, 'restore.consumer.auto.offset.reset': 'latest' })).toMatchObject({ autoOffsetReset: 'earliest', notApplied: ['restore.consumer.auto.offset.reset'] });
  });

  it("applies the restore consumer's fetch settings, restore.consumer. over consumer. over unprefixed, with the Java consumer's defaults", () => {
    expect(parseStreamsConfig(base).restoreConsumer).toEqual({ maxBytes: 50 * 1024 * 1024, maxPartitionBytes: 1024 * 1024, maxWaitMs: 500 });
    const given = parseStreamsConfig({
      ...base,
      'max.partition.fetch.bytes': 4096,
      'consumer.max.partition.fetch.bytes': 8192,
      'restore.consumer.max.partition.fetch.bytes': 16384,
      'restore.consumer.fetch.max.bytes': 65536,
      'fetch.max.wait.ms': 50,
    });
    expect(given).toMatchObject({ restoreConsumer: { maxBytes: 65536, maxPartitionBytes: 16384, maxWaitMs: 50 }, maxPartitionFetchBytes: 8192, notApplied: [] });
  });

  it("applies the global consumer's fetch settings, global.consumer. over consumer. over unprefixed, never restore.consumer.", () => {
    expect(parseStreamsConfig(base).globalConsumer).toEqual({ maxBytes: 50 * 1024 * 1024, maxPartitionBytes: 1024 * 1024, maxWaitMs: 500 });
    const given = parseStreamsConfig({
      ...base,
      'consumer.max.partition.fetch.bytes': 8192,
      'restore.consumer.max.partition.fetch.bytes': 16384,
      'restore.consumer.fetch.max.bytes': 65536,
      'global.consumer.fetch.max.bytes': 32768,
      'global.consumer.fetch.max.wait.ms': 20,
    });
    expect(given).toMatchObject({ globalConsumer: { maxBytes: 32768, maxPartitionBytes: 8192, maxWaitMs: 20 }, notApplied: [] });
  });

  it("accepts auto.offset.reset=none but names it as not applied: Sluice's consumer cannot fail on a missing offset", () => {
    expect(parseStreamsConfig({ ...base, 'auto.offset.reset': 'none' })).toMatchObject({ autoOffsetReset: 'none', notApplied: ['auto.offset.reset'] });
  });

  it('applies standby replicas', () => {
    expect(parseStreamsConfig({ ...base, 'num.standby.replicas': 1 })).toMatchObject({ numStandbyReplicas: 1, notApplied: [] });
    expect(parseStreamsConfig({ ...base, 'num.standby.replicas': '0' }).notApplied).toEqual([]);
  });

  it("times store operations only at metrics.recording.level DEBUG or TRACE, as Kafka Streams records them", () => {
    expect(parseStreamsConfig(base)).toMatchObject({ timeStoreOperations: false, notApplied: [] });
    expect(parseStreamsConfig({ ...base, 'metrics.recording.level': 'DEBUG' })).toMatchObject({ timeStoreOperations: true, notApplied: [] });
    expect(parseStreamsConfig({ ...base, 'metrics.recording.level': 'TRACE' }).timeStoreOperations).toBe(true);
    expect(() => parseStreamsConfig({ ...base, 'metrics.recording.level': 'VERBOSE' })).toThrow(/metrics\.recording\.level/);
  });

  it('fails by default on every kind of failed record, and has no dead-letter queue', () => {
    const { exceptionHandlers: h, deadLetterQueueTopic, notApplied } = parseStreamsConfig(base);
    const record = { key: null, value: null, timestamp: 0, headers: {} };
    expect([h.deserialization(CONTEXT, new Error()), h.processing(CONTEXT, record, new Error()), h.production({ taskId: '0_0' }, { topic: 't', ...record }, new Error())]).toEqual(['FAIL', 'FAIL', 'FAIL']);
    expect(deadLetterQueueTopic).toBeUndefined();
    expect(notApplied).toEqual([]);
  });

  it("takes each handler by Kafka Streams' class name, short or with its package, and the dead-letter topic", () => {
    const config = parseStreamsConfig({
      ...base,
      'processing.exception.handler': 'org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler',
      'default.production.exception.handler': 'LogAndContinueProductionExceptionHandler',
      'errors.dead.letter.queue.topic.name': 'app-dlq',
    });
    const record = { key: null, value: null, timestamp: 0, headers: {} };
    expect(config.exceptionHandlers.processing(CONTEXT, record, new Error())).toBe('CONTINUE');
    expect(config.exceptionHandlers.production({ taskId: '0_0' }, { topic: 't', ...record }, new Error())).toBe('CONTINUE');
    expect(config.deadLetterQueueTopic).toBe('app-dlq');
    expect(config.notApplied).toEqual([]);
  });

  it('accepts client overrides and reads the log-and-continue handler', () => {
    const config = parseStreamsConfig({
      ...base,
      'consumer.max.poll.records': 500,
      'default.deserialization.exception.handler': 'org.apache.kafka.streams.errors.LogAndContinueExceptionHandler',
      'application.server': 'node-1.sluice:8080',
    });
    expect(config.exceptionHandlers.deserialization(CONTEXT, new Error('x'))).toBe('CONTINUE');
    expect(config.applicationServer).toBe('node-1.sluice:8080');
    expect(config.notApplied).toEqual(['consumer.max.poll.records']);
  });

  it("takes exactly-once with Kafka Streams' commit interval for it, unless one is given", () => {
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_v2' })).toMatchObject({ processingGuarantee: 'exactly_once_v2', commitIntervalMs: 100 });
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_v2' }).values['commit.interval.ms']).toBe(100);
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_v2', 'commit.interval.ms': 1000 }).commitIntervalMs).toBe(1000);
    expect(parseStreamsConfig(base)).toMatchObject({ processingGuarantee: 'at_least_once', commitIntervalMs: 30000 });
    // Kafka 3.9's deprecated names for exactly-once.
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once' }).processingGuarantee).toBe('exactly_once_v2');
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_beta' }).processingGuarantee).toBe('exactly_once_v2');
  });

  it("applies the fetch sizes, with defaults below the Java consumer's (kafkajs decodes a whole fetch at once)", () => {
    expect(parseStreamsConfig(base)).toMatchObject({ maxPartitionFetchBytes: 131072, fetchMaxBytes: 1048576, notApplied: [] });
    const config = parseStreamsConfig({ ...base, 'consumer.max.partition.fetch.bytes': 1048576, 'consumer.fetch.max.bytes': '52428800' });
    expect(config).toMatchObject({ maxPartitionFetchBytes: 1048576, fetchMaxBytes: 52428800, notApplied: [] });
    expect(parseStreamsConfig({ ...base, 'max.partition.fetch.bytes': 262144 }).maxPartitionFetchBytes).toBe(262144);
  });

  it("keeps Sluice's own keys", () => {
    const config = parseStreamsConfig({
      ...base,
      'grpc.endpoint': 'node-1:9090',
      'embeddedstore.config.setter': './store-options.js',
      'metrics.sse.interval.ms': 1000,
      'stats.enable': 'true',
      'stats.dumpPeriodSec': 10,
      'log.dir': '/var/log/sluice',
      'log.maxFileSize': 1024,
      '__emit.interval.ms.kstreams.outer.join.spurious.results.fix__': 0,
    });
    expect(config).toMatchObject({ grpcEndpoint: 'node-1:9090', embeddedStoreConfigSetter: './store-options.js', statsEnable: true, statsDumpPeriodSec: 10, notApplied: [] });
  });
});

describe('group.protocol', () => {
  it('is classic by default, and names nothing as ignored there', () => {
    const config = parseStreamsConfig({ ...base, 'num.standby.replicas': 1, 'session.timeout.ms': 10000 });
    expect(config).toMatchObject({ groupProtocol: 'classic', ignoredUnderStreams: [], notApplied: [] });
    expect(config.values['group.protocol']).toBe('classic');
  });

  it('takes streams in any case', () => {
    expect(parseStreamsConfig({ ...base, 'group.protocol': 'STREAMS' }).groupProtocol).toBe('streams');
  });

  it("under streams names the settings the group coordinator owns, as written, once (the assignor's not among the not applied)", () => {
    const config = parseStreamsConfig({
      ...base,
      'group.protocol': 'streams',
      'num.standby.replicas': 1,
      'acceptable.recovery.lag': 5,
      'max.warmup.replicas': 3,
      'probing.rebalance.interval.ms': 60000,
      'task.assignor.class': 'com.acme.Assignor',
      'rack.aware.assignment.strategy': 'min_traffic',
      'main.consumer.session.timeout.ms': 10000,
      'consumer.heartbeat.interval.ms': 1000,
      'restore.consumer.session.timeout.ms': 10000,
      'commit.interval.ms': 100,
      'group.instance.id': 'node-1',
    });
    expect(config.ignoredUnderStreams).toEqual([
      'num.standby.replicas',
      'acceptable.recovery.lag',
      'max.warmup.replicas',
      'probing.rebalance.interval.ms',
      'task.assignor.class',
      'rack.aware.assignment.strategy',
      'main.consumer.session.timeout.ms',
      'consumer.heartbeat.interval.ms',
      'group.instance.id',
    ]);
    expect(config.groupInstanceId).toBeUndefined();
    // The restore consumer's session is no group's: not applied, as under classic.
    expect(config.notApplied).toEqual(['restore.consumer.session.timeout.ms']);
  });

  it("leaves the consumer's own group.protocol under a consumer prefix to the consumer's validator", () => {
    const config = parseStreamsConfig({ ...base, 'main.consumer.group.protocol': 'consumer' });
    expect(config).toMatchObject({ groupProtocol: 'classic', notApplied: ['main.consumer.group.protocol'] });
  });
});

const SAMPLES: Record<ConfigKey['type'], (string | number | boolean)[]> = {
  boolean: [true],
  short: [1, 60],
  int: [1, 100],
  long: [1, 60000],
  double: [0.5],
  class: ['org.example.Custom'],
  list: ['x', 'compact'],
  string: ['x', 'CreateTime', 'producer', '3.8', 'host:9090'],
  password: ['x'],
};

/** A value of the key's type that its validator takes, for a key without a default. */
function sampleValue(key: ConfigKey): string | number | boolean {
  return SAMPLES[key.type].find((value) => key.validator?.accepts(value) ?? true)!;
}
