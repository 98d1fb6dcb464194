import { ConfigException } from '../../errors';
import { parseStreamsConfig } from './streams-config';

const base = { 'application.id': 'app', 'bootstrap.servers': 'localhost:9092' };

describe('parseStreamsConfig', () => {
  it("completes the configuration with Kafka Streams' defaults", () => {
    const config = parseStreamsConfig(base);
    expect(config.bootstrapServers).toEqual(['localhost:9092']);
    expect(config.values).toMatchObject({ 'num.stream.threads': 1, 'commit.interval.ms': 30000, 'cache.max.bytes.buffering': 10485760 });
    expect(config.applicationServer).toBeUndefined();
  });

  it.each([
    [{ ...base, 'no.such.key': 1 }, "unknown configuration key 'no.such.key'"],
    [{ 'bootstrap.servers': 'x:1' }, "'application.id' is required"],
    [{ 'application.id': 'app' }, "'bootstrap.servers' is required"],
    [{ ...base, 'num.stream.threads': 'two' }, "'num.stream.threads' must be an integer >= 0"],
    [{ ...base, 'application.server': 'no-port' }, "'application.server' must have the form host:port"],
    [{ ...base, 'processing.guarantee': 'exactly_once' }, 'must be at_least_once or exactly_once_v2'],
    [{ ...base, 'num.standby.replicas': 1 }, 'standby tasks are not built'],
    [{ ...base, 'consumer.max.partition.fetch.bytes': 0 }, "'consumer.max.partition.fetch.bytes' must be an integer >= 1"],
    [{ ...base, 'default.deserialization.exception.handler': 'Whatever' }, 'LogAndContinueExceptionHandler'],
  ])('refuses %j with a clear error', (input, message) => {
    expect(() => parseStreamsConfig(input)).toThrow(ConfigException);
    expect(() => parseStreamsConfig(input)).toThrow(message);
  });

  it('accepts client overrides and reads the log-and-continue handler', () => {
    const config = parseStreamsConfig({
      ...base,
      'consumer.max.poll.records': 500,
      'default.deserialization.exception.handler': 'org.apache.kafka.streams.errors.LogAndContinueExceptionHandler',
      'application.server': 'node-1.sluice:8080',
    });
    expect(config.deserializationHandling).toBe('continue');
    expect(config.applicationServer).toBe('node-1.sluice:8080');
    expect(config.unappliedClientOverrides).toEqual(['consumer.max.poll.records']);
  });

  it('takes exactly_once_v2 with Kafka Streams\' commit interval for it, unless one is given', () => {
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_v2' })).toMatchObject({ processingGuarantee: 'exactly_once_v2', commitIntervalMs: 100 });
    expect(parseStreamsConfig({ ...base, 'processing.guarantee': 'exactly_once_v2', 'commit.interval.ms': 1000 }).commitIntervalMs).toBe(1000);
    expect(parseStreamsConfig(base)).toMatchObject({ processingGuarantee: 'at_least_once', commitIntervalMs: 30000 });
  });

  it('applies the fetch sizes, with defaults below the Java consumer\'s (kafkajs decodes a whole fetch at once)', () => {
    expect(parseStreamsConfig(base)).toMatchObject({ maxPartitionFetchBytes: 131072, fetchMaxBytes: 1048576, unappliedClientOverrides: [] });
    const config = parseStreamsConfig({ ...base, 'consumer.max.partition.fetch.bytes': 1048576, 'consumer.fetch.max.bytes': '52428800' });
    expect(config).toMatchObject({ maxPartitionFetchBytes: 1048576, fetchMaxBytes: 52428800, unappliedClientOverrides: [] });
  });
});
