import { CONFIG_KEYS } from './config-keys';
import { cacheMaxBytes, closestConfigKey, isSecretConfigKey, lookupConfigKey } from './config-lookup';

describe('lookupConfigKey', () => {
  it('finds a key unprefixed, under a client prefix of its own client, and a topic key under topic. only', () => {
    expect(lookupConfigKey('commit.interval.ms')).toMatchObject({ prefix: '', entry: { name: 'commit.interval.ms', type: 'long' } });
    expect(lookupConfigKey('max.poll.records')).toMatchObject({ prefix: '', entry: { name: 'max.poll.records' } });
    expect(lookupConfigKey('restore.consumer.max.poll.records')).toMatchObject({ prefix: 'restore.consumer.', entry: { name: 'max.poll.records' } });
    expect(lookupConfigKey('producer.max.poll.records')).toBeUndefined();
    expect(lookupConfigKey('topic.retention.ms')).toMatchObject({ prefix: 'topic.', entry: { name: 'retention.ms', scopes: ['topic'] } });
    expect(lookupConfigKey('retention.ms')).toBeUndefined();
    expect(lookupConfigKey('consumer.commit.interval.ms')).toBeUndefined();
  });

  it('tells the producer and the topic compression.type apart', () => {
    expect(lookupConfigKey('producer.compression.type')!.entry.validator!.accepts('producer')).toBe(false);
    expect(lookupConfigKey('topic.compression.type')!.entry.validator!.accepts('producer')).toBe(true);
  });

  it('finds client tags by their prefix, not the prefix alone', () => {
    expect(lookupConfigKey('client.tag.zone')).toMatchObject({ entry: { name: 'client.tag.*' } });
    expect(lookupConfigKey('client.tag.')).toBeUndefined();
  });

  it('has each key once per scope', () => {
    const seen = new Set<string>();
    for (const key of CONFIG_KEYS) {
      for (const scope of key.scopes) {
        expect(seen.has(`${scope}:${key.name}`)).toBe(false);
        seen.add(`${scope}:${key.name}`);
      }
    }
  });
});

describe('closestConfigKey', () => {
  it('gives the closest valid key, prefixes included', () => {
    expect(closestConfigKey('commit.intervall.ms')).toBe('commit.interval.ms');
    expect(closestConfigKey('main.consumer.max.pol.records')).toBe('main.consumer.max.poll.records');
    expect(closestConfigKey('segment.bytes')).toBe('topic.segment.bytes');
  });

  it('gives none when nothing is close', () => {
    expect(closestConfigKey('colour')).toBeUndefined();
  });
});

describe('isSecretConfigKey', () => {
  it.each([
    'sasl.jaas.config',
    'ssl.key.password',
    'ssl.keystore.password',
    'ssl.truststore.password',
    'ssl.keystore.key',
    'ssl.keystore.certificate.chain',
    'ssl.truststore.certificates',
    'producer.sasl.jaas.config',
    'main.consumer.ssl.key.password',
    'admin.ssl.truststore.password',
  ])("marks Kafka's PASSWORD key %s as a secret", (key) => {
    expect(isSecretConfigKey(key)).toBe(true);
  });

  it.each(['sasl.mechanism', 'ssl.keystore.location', 'security.protocol', 'application.id', 'no.such.password.key'])('leaves %s shown', (key) => {
    expect(isSecretConfigKey(key)).toBe(false);
  });
});

describe('cacheMaxBytes', () => {
  it('takes statestore.cache.max.bytes, else cache.max.bytes.buffering, else 10 MiB', () => {
    expect(cacheMaxBytes({})).toBe(10 * 1024 * 1024);
    expect(cacheMaxBytes({ 'cache.max.bytes.buffering': 1024 })).toBe(1024);
    expect(cacheMaxBytes({ 'statestore.cache.max.bytes': '0', 'cache.max.bytes.buffering': 1024 })).toBe(0);
  });
});
