// Sluice before kafkajs, as an application imports them: its replacements of kafkajs' internals go in first.
import { createKafkaClients, createProducer, effectiveLogLevel, javaCompatiblePartitioner, parseBootstrapServers } from './client';
import { logLevel as KafkaJsLogLevel, type PartitionMetadata } from 'kafkajs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenFileProvider, type KafkaSecurity } from './security';
import { partitionForKey } from './murmur2';

function partitions(count: number, withoutLeader: number[] = []): PartitionMetadata[] {
  return Array.from({ length: count }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: withoutLeader.includes(partitionId) ? -1 : 1,
    replicas: [1],
    isr: [1],
  }));
}

describe('javaCompatiblePartitioner', () => {
  const partition = javaCompatiblePartitioner();

  it('places a key by Java murmur2, whether the key is a string or bytes', () => {
    for (const key of ['a', 'hello', 'word-42', 'Grüße']) {
      const expected = partitionForKey(Buffer.from(key, 'utf8'), 6);
      expect(partition({ topic: 't', partitionMetadata: partitions(6), message: { key, value: null } })).toBe(expected);
      expect(partition({ topic: 't', partitionMetadata: partitions(6), message: { key: Buffer.from(key), value: null } })).toBe(
        expected,
      );
    }
  });

  it('keeps an explicit partition', () => {
    expect(partition({ topic: 't', partitionMetadata: partitions(6), message: { key: 'a', partition: 5, value: null } })).toBe(5);
  });

  it('spreads records without a key over the partitions that have a leader', () => {
    const picked = Array.from({ length: 40 }, () =>
      partition({ topic: 'rr', partitionMetadata: partitions(4, [2]), message: { value: 'v' } }),
    );
    expect(new Set(picked)).toEqual(new Set([0, 1, 3]));
  });
});

describe('effectiveLogLevel', () => {
  it('turns retriable error responses and send retries into debug, and a rebalance into info', () => {
    expect(effectiveLogLevel('Connection', KafkaJsLogLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)')).toBe(
      KafkaJsLogLevel.DEBUG,
    );
    expect(effectiveLogLevel('Producer', KafkaJsLogLevel.ERROR, 'Failed to send messages: CONCURRENT_TRANSACTIONS')).toBe(
      KafkaJsLogLevel.DEBUG,
    );
    expect(effectiveLogLevel('Runner', KafkaJsLogLevel.WARN, 'The group is rebalancing, re-joining')).toBe(KafkaJsLogLevel.INFO);
  });

  it('makes an unreachable broker a warning, and leaves consumer crashes to the stream thread', () => {
    expect(effectiveLogLevel('Connection', KafkaJsLogLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe(KafkaJsLogLevel.WARN);
    expect(effectiveLogLevel('BrokerPool', KafkaJsLogLevel.ERROR, 'Failed to connect to seed broker, trying another broker')).toBe(
      KafkaJsLogLevel.WARN,
    );
    expect(effectiveLogLevel('Consumer', KafkaJsLogLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded')).toBe(KafkaJsLogLevel.DEBUG);
    expect(effectiveLogLevel('Consumer', KafkaJsLogLevel.ERROR, 'Restarting the consumer in 300ms')).toBe(KafkaJsLogLevel.INFO);
  });

  it('keeps every other level', () => {
    expect(effectiveLogLevel('Connection', KafkaJsLogLevel.ERROR, 'Request Produce(key: 0, version: 7) failed')).toBe(KafkaJsLogLevel.ERROR);
    expect(effectiveLogLevel('Consumer', KafkaJsLogLevel.ERROR, 'Error when calling eachBatch')).toBe(KafkaJsLogLevel.ERROR);
  });
});

it('parses bootstrap.servers', () => {
  expect(parseBootstrapServers(' a:9092, b:9093 ,,')).toEqual(['a:9092', 'b:9093']);
});

describe('createProducer', () => {
  const producerConfigOf = (idempotent?: boolean): Record<string, unknown> => {
    const producer = jest.fn(() => ({}));
    createProducer({ producer } as never, idempotent === undefined ? {} : { idempotent });
    return (producer.mock.calls[0] as unknown as [Record<string, unknown>])[0];
  };

  it('is idempotent by default, as Java\'s producer is, with the one request in flight kafkajs needs for it', () => {
    expect(producerConfigOf()).toMatchObject({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  });

  it('may be made non-idempotent, with no bound on requests in flight', () => {
    expect(producerConfigOf(false)).toMatchObject({ idempotent: false, maxInFlightRequests: undefined });
  });
});

describe('createKafkaClients', () => {
  const sasl = (username: string): KafkaSecurity => ({ protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username, password: `${username}-pw` } });

  const everyRole = (security: KafkaSecurity) => ({ admin: security, mainConsumer: security, restoreConsumer: security, globalConsumer: security, producer: security });

  it('shares one Kafka object between the roles whose security settings agree, secrets included', () => {
    const clients = createKafkaClients(
      { bootstrapServers: ['localhost:9092'], clientId: 'c', logLevel: 'silent' },
      {
        admin: sasl('a'),
        mainConsumer: sasl('a'),
        restoreConsumer: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'a', password: 'other' } },
        globalConsumer: sasl('a'),
        producer: sasl('p'),
      },
    );
    expect(clients.globalConsumer).toBe(clients.admin);
    expect(clients.restoreConsumer).not.toBe(clients.admin);
    expect(clients.producer).not.toBe(clients.admin);
  });

  it("gives the global consumer its own settings, not the restore consumer's", () => {
    const clients = createKafkaClients(
      { bootstrapServers: ['localhost:9092'], clientId: 'c', logLevel: 'silent' },
      { ...everyRole(sasl('a')), restoreConsumer: sasl('r'), globalConsumer: sasl('g') },
    );
    expect(clients.globalConsumer).not.toBe(clients.restoreConsumer);
    expect(clients.globalConsumer).not.toBe(clients.admin);
  });

  it('gives each stream thread\'s consumer a Kafka object of its own, so the threads do not share committed offsets', () => {
    const clients = createKafkaClients({ bootstrapServers: ['localhost:9092'], clientId: 'c', logLevel: 'silent' }, everyRole(sasl('a')));
    expect(clients.mainConsumer()).not.toBe(clients.mainConsumer());
    expect(clients.mainConsumer()).not.toBe(clients.admin);
  });

  it('refuses OAUTHBEARER without a token provider or token file', () => {
    const oauth: KafkaSecurity = { protocol: 'SASL_SSL', tls: { checkHostname: true }, sasl: { mechanism: 'OAUTHBEARER', extensions: {} } };
    expect(() => createKafkaClients({ bootstrapServers: ['b:1'], clientId: 'c' }, everyRole(oauth))).toThrow(
      'SASL/OAUTHBEARER needs a token',
    );
  });
});

describe('tokenFileProvider', () => {
  it('reads the token file again when it changes, with the SASL extensions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-token-'));
    try {
      const file = join(dir, 'token');
      writeFileSync(file, 'first-token\n');
      const provider = tokenFileProvider(file, { logicalCluster: 'lkc-1' });
      expect(await provider()).toEqual({ value: 'first-token', extensions: { logicalCluster: 'lkc-1' } });
      writeFileSync(file, 'second-token-longer\n');
      expect((await provider()).value).toBe('second-token-longer');
      writeFileSync(file, '');
      await expect(provider()).rejects.toThrow(`Kafka authentication failed: the OAUTHBEARER token file ${file} is empty`);
      rmSync(file);
      await expect(provider()).rejects.toThrow('cannot be read (ENOENT)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
