/**
 * Sluice on a secured Kafka (a broker of this file's own, see support/secured-kafka.ts): the word count counts exactly
 * over SASL_SSL with SCRAM-SHA-512 and over mutual TLS; a wrong password, an unknown CA and a JKS keystore each fail
 * at once with an error that says so; the secrets appear in no log line and no error message.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, tempStateDir, waitFor, waitForState } from '../support/streams';
import { securedKafkaUnavailable, startSecuredKafka, type SecuredKafka } from './support/secured-kafka';

const LINES = 20_000;
/** "Within seconds": kafkajs' own retries of a failed TLS handshake would take longer than this. */
const FAILS_WITHIN_MS = 5_000;

/** Every log line of the run: the instances' logger, which kafkajs' lines go to as well. */
const logLines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  }),
);

const unavailable = securedKafkaUnavailable();
let kafka: SecuredKafka;
let clients: KafkaTestClients;
const errorMessages: string[] = [];

beforeAll(async () => {
  const why = await unavailable;
  if (why !== undefined) {
    process.stderr.write(`Kafka security tests: skipped, ${why} (they start a jar broker with TLS and SASL listeners)\n`);
    return;
  }
  kafka = await startSecuredKafka();
  process.stderr.write(`secured broker started in ${kafka.startSeconds.toFixed(1)} s\n`);
  // Set-up traffic (topics, input, checking the output) goes over the broker's plaintext listener.
  clients = new KafkaTestClients(uniqueName('security-setup'), [kafka.listeners.plaintext]);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await clients?.close();
  await kafka?.stop();
});

const itWithBroker = (name: string, fn: () => Promise<void>, timeout = BROKER_TEST_TIMEOUT_MS) =>
  it(name, async () => {
    if ((await unavailable) !== undefined) return;
    await fn();
  }, timeout);

function scramJaas(password: string): string {
  return `org.apache.kafka.common.security.scram.ScramLoginModule required username="${kafka.scramUser.name}" password="${password}";`;
}

function saslSsl(password = kafka.scramUser.password): Record<string, string> {
  return {
    'bootstrap.servers': kafka.listeners.saslSsl,
    'security.protocol': 'SASL_SSL',
    'sasl.mechanism': 'SCRAM-SHA-512',
    'sasl.jaas.config': scramJaas(password),
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': kafka.files.ca,
  };
}

function mutualTls(truststore = kafka.files.ca): Record<string, string> {
  return {
    'bootstrap.servers': kafka.listeners.ssl,
    'security.protocol': 'SSL',
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': truststore,
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': kafka.files.clientKeyAndChain,
    'ssl.key.password': kafka.certificates.client.keyPassword!,
  };
}

async function countWords(security: Record<string, string>): Promise<void> {
  const input = uniqueName('wc-in');
  const output = uniqueName('wc-out');
  const admin = await clients.admin();
  await admin.createTopics({ topics: [{ topic: input, numPartitions: 2 }, { topic: output, numPartitions: 2 }] });
  await produceLines(await clients.producer(), input, 0, LINES);
  const expected = expectedCounts(LINES);
  const instance = new StreamsInstance(
    wordCountTopology(input, output),
    { 'application.id': uniqueName('wc-secure'), 'state.dir': tempStateDir(), 'commit.interval.ms': 500, ...security },
    { logger },
  );
  try {
    await instance.start();
    await waitForState(instance, 'RUNNING');
    const counts = await latestCounts(await clients.consumer({ groupId: uniqueName('wc-check') }), output, (c) => [...expected].every(([word, n]) => c.get(word) === n));
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));
    const fromStore = new Map<string, number>();
    for (const store of instance.queryableStores('count').values()) {
      for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) fromStore.set(kv.key, kv.value.value);
    }
    expect(Object.fromEntries(fromStore)).toEqual(Object.fromEntries(expected));
  } finally {
    await instance.close();
  }
  expect(instance.state).toBe('NOT_RUNNING');
}

/** Starts an instance that cannot connect; resolves with its error once it is in ERROR, checking how fast that was. */
async function failure(security: Record<string, string>): Promise<Error> {
  const instance = new StreamsInstance(
    wordCountTopology(uniqueName('in'), uniqueName('out')),
    { 'application.id': uniqueName('wc-refused'), 'state.dir': tempStateDir(), ...security },
    { logger },
  );
  const started = Date.now();
  const starting = instance.start().catch((error: Error) => error);
  await waitFor(() => instance.state === 'ERROR', 'the instance to fail', 60_000);
  expect(Date.now() - started).toBeLessThan(FAILS_WITHIN_MS);
  await starting;
  await instance.close();
  const error = instance.lastError!;
  errorMessages.push(error.message);
  return error;
}

describe('Kafka security on a real broker', () => {
  itWithBroker('counts words exactly over SASL_SSL with SCRAM-SHA-512', () => countWords(saslSsl()));

  itWithBroker('counts words exactly over mutual TLS (PEM truststore, client key and chain, encrypted key)', () => countWords(mutualTls()));

  itWithBroker('connects over SASL_SSL with PLAIN, the main consumer, producer, restore consumer and admin each under its prefix', async () => {
    const plain = `org.apache.kafka.common.security.plain.PlainLoginModule required username="${kafka.plainUser.name}" password="${kafka.plainUser.password}";`;
    // SCRAM unprefixed; every client overrides to PLAIN under its own prefix, so nothing connects with SCRAM.
    const overrides = Object.fromEntries(
      ['consumer.', 'producer.', 'admin.'].flatMap((prefix) => [
        [`${prefix}sasl.mechanism`, 'PLAIN'],
        [`${prefix}sasl.jaas.config`, plain],
      ]),
    );
    await countWords({ ...saslSsl('not-the-scram-password'), ...overrides });
  });

  itWithBroker('counts words over SASL_SSL with OAUTHBEARER, the token read from a file: token endpoint', async () => {
    // An unsecured JWT (alg none), which the broker's default OAUTHBEARER validator accepts.
    const now = Math.floor(Date.now() / 1000);
    const part = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');
    const tokenFile = path.join(tempStateDir('sluice-token-'), 'token');
    fs.writeFileSync(tokenFile, `${part({ alg: 'none' })}.${part({ sub: 'sluice-oauth', iat: now, exp: now + 3600 })}.\n`);
    const { 'sasl.jaas.config': _jaas, ...tls } = saslSsl();
    await countWords({ ...tls, 'sasl.mechanism': 'OAUTHBEARER', 'sasl.oauthbearer.token.endpoint.url': `file://${tokenFile}` });
  });

  itWithBroker('fails at once, saying authentication failed, on a wrong password', async () => {
    const error = await failure(saslSsl('wrong-password-123'));
    expect(error.name).toBe('KafkaAuthenticationFailed');
    expect(error.message).toMatch(/^Kafka authentication failed: SASL SCRAM-SHA-512 as 'sluice-scram' at 127\.0\.0\.1:\d+/);
    expect(error.message).not.toContain('wrong-password-123');
  });

  itWithBroker('fails at once, saying TLS failed, on a broker certificate from an unknown CA', async () => {
    const error = await failure(mutualTls(kafka.files.unknownCa));
    expect(error.name).toBe('KafkaTlsFailed');
    expect(error.message).toContain("TLS connection to Kafka failed: the broker's certificate is not signed by a CA Sluice trusts");
  });

  itWithBroker('fails at once, saying TLS failed, without the client certificate the SSL listener requires', async () => {
    const { 'ssl.keystore.location': _location, 'ssl.key.password': _password, ...withoutKeystore } = mutualTls();
    const error = await failure(withoutKeystore);
    expect(error.name).toBe('KafkaTlsFailed');
    expect(error.message).toContain("the broker refused Sluice's client certificate, or got none");
  });

  itWithBroker('refuses a JKS keystore when the instance is created, naming the PEM keys to use', async () => {
    const create = () =>
      new StreamsInstance(wordCountTopology(), { 'application.id': uniqueName('wc-jks'), ...mutualTls(), 'ssl.keystore.type': 'JKS', 'ssl.keystore.location': kafka.files.jksKeystore }, { logger });
    expect(create).toThrow(
      "Invalid configuration: 'ssl.keystore.type' is JKS, but Sluice reads TLS material as PEM only: set ssl.keystore.type=PEM with ssl.keystore.location",
    );
    try {
      create();
    } catch (error) {
      errorMessages.push((error as Error).message);
    }
  });

  itWithBroker('shows the secrets in no log line and no error message', async () => {
    const everything = [...logLines, ...errorMessages].join('\n');
    expect(logLines.some((line) => line.includes('"kafkajs"'))).toBe(true);
    expect(errorMessages.length).toBeGreaterThanOrEqual(4);
    for (const secret of [...kafka.secrets, 'wrong-password-123', 'not-the-scram-password', 'PRIVATE KEY']) expect(everything).not.toContain(secret);
  });
});
