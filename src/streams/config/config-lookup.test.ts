import { CONFIG_KEYS } from './config-keys';
import { cacheMaxBytes, clientSetting, closestConfigKey, isSecretConfigKey, lookupConfigKey } from './config-lookup';

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

describe('clientSetting', () => {
  /** The key that `role` takes `name` from, out of the keys given (each holding its own name as value). */
  const winner = (role: Parameters<typeof clientSetting>[0], ...given: string[]) =>
    clientSetting(role, 'security.protocol', (key) => (given.includes(key) ? key : undefined))?.key;
  const EVERY_PREFIX = ['', 'consumer.', 'main.consumer.', 'restore.consumer.', 'global.consumer.', 'producer.', 'admin.'].map((p) => `${p}security.protocol`);

  // Kafka Streams' StreamsConfig: getMainConsumerConfigs, getRestoreConsumerConfigs and getGlobalConsumerConfigs take
  // the unprefixed keys, then consumer., then their own prefix; getProducerConfigs producer., getAdminConfigs admin.
  it.each([
    ['mainConsumer', 'main.consumer.'],
    ['restoreConsumer', 'restore.consumer.'],
    ['globalConsumer', 'global.consumer.'],
  ] as const)('gives the %s its own prefix over consumer. over unprefixed, and no other prefix', (role, own) => {
    expect(winner(role, ...EVERY_PREFIX)).toBe(`${own}security.protocol`);
    expect(winner(role, ...EVERY_PREFIX.filter((key) => !key.startsWith(own)))).toBe('consumer.security.protocol');
    expect(winner(role, 'security.protocol', 'producer.security.protocol', 'admin.security.protocol')).toBe('security.protocol');
    expect(winner(role, ...EVERY_PREFIX.filter((key) => key.includes('.consumer.') && !key.startsWith(own)), 'producer.security.protocol', 'admin.security.protocol')).toBeUndefined();
  });

  it.each([
    ['producer', 'producer.'],
    ['admin', 'admin.'],
  ] as const)('gives the %s its own prefix over unprefixed, and no consumer prefix', (role, own) => {
    expect(winner(role, ...EVERY_PREFIX)).toBe(`${own}security.protocol`);
    expect(winner(role, ...EVERY_PREFIX.filter((key) => key !== `${own}security.protocol`))).toBe('security.protocol');
    expect(winner(role, ...EVERY_PREFIX.filter((key) => key !== `${own}security.protocol` && key !== 'security.protocol'))).toBeUndefined();
  });

  it('answers the value under the winning key, whatever its type', () => {
    const values: Record<string, number> = { 'fetch.max.bytes': 1, 'consumer.fetch.max.bytes': 2 };
    expect(clientSetting('globalConsumer', 'fetch.max.bytes', (key) => values[key])).toEqual({ key: 'consumer.fetch.max.bytes', value: 2 });
    expect(clientSetting('admin', 'fetch.max.bytes', (key) => values[key])).toEqual({ key: 'fetch.max.bytes', value: 1 });
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
