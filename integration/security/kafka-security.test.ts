/**
 * Sluice on a secured Kafka (a broker of this file's own, see support/secured-kafka.ts): the word count counts exactly
 * over SASL_SSL with SCRAM-SHA-512 and over mutual TLS; each of Sluice's clients (admin, main, restore and global
 * consumers, producers) connects with security given only under Kafka Streams' client prefixes, by their rules; a
 * wrong password, an unknown CA and a JKS keystore each fail at once with an error that says so; the secrets appear
 * in no log line and no error message.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { type Customer, CUSTOMERS_STORE, type EnrichedOrder, orderEnrichmentTopology } from '../../examples/order-enrichment';
import { WORD_COUNT_STORE, wordCountTopology } from '../../examples/word-count';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, consumeUntil, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, queriedStoreValues, tempStateDir, waitFor } from '../support/streams';
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

const itWithBroker = (name: string, fn: () => Promise<unknown>, timeout = BROKER_TEST_TIMEOUT_MS) =>
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

/** The settings of `security` but `bootstrap.servers`, each under every one of `prefixes` and not unprefixed. */
function underPrefixes(prefixes: readonly string[], security: Record<string, string>): Record<string, string> {
  const { 'bootstrap.servers': bootstrap, ...settings } = security;
  return { 'bootstrap.servers': bootstrap!, ...Object.fromEntries(prefixes.flatMap((prefix) => Object.entries(settings).map(([key, value]) => [prefix + key, value]))) };
}

/** SASL_SSL only under the prefixes of the clients Kafka Streams has, as a Kafka Streams application may give it. */
const clientPrefixesOnly = () => underPrefixes(['consumer.', 'producer.', 'admin.'], saslSsl());

/**
 * SASL_SSL with a wrong password unprefixed and under `consumer.`, the right one under `prefixes`: a client that
 * does not take its strongest prefix fails at once, the login refused.
 */
function rightOnlyUnder(prefixes: readonly string[]): Record<string, string> {
  const wrong = saslSsl('not-the-scram-password');
  return { ...wrong, ...underPrefixes(['consumer.'], wrong), ...underPrefixes(prefixes, saslSsl()) };
}

interface WordCount {
  applicationId: string;
  input: string;
  output: string;
}

async function countWords(security: Record<string, string>, lines = LINES): Promise<WordCount> {
  const input = uniqueName('wc-in');
  const output = uniqueName('wc-out');
  const applicationId = uniqueName('wc-secure');
  const admin = await clients.admin();
  await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
  await produceLines(await clients.producer(), input, 0, lines);
  const expected = expectedCounts(lines);
  const instance = new StreamsInstance(
    wordCountTopology(input, output),
    { 'application.id': applicationId, 'state.dir': tempStateDir(), 'commit.interval.ms': 500, ...security },
    { logger },
  );
  try {
    await instance.start();
    await running(instance);
    const counts = await latestCounts(await clients.consumer({ groupId: uniqueName('wc-check') }), output, (c) => [...expected].every(([word, n]) => c.get(word) === n));
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));
    const fromStore = new Map<string, number>();
    for (const store of instance.queryableStores('count').values()) {
      for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) fromStore.set(kv.key, kv.value.value);
    }
    expect(Object.fromEntries(fromStore)).toEqual(Object.fromEntries(expected));
    expect(Object.fromEntries(await queriedStoreValues<number>(instance, WORD_COUNT_STORE))).toEqual(Object.fromEntries(expected));
  } finally {
    await instance.close();
  }
  expect(instance.state).toBe('NOT_RUNNING');
  return { applicationId, input, output };
}

/** Resolves once the instance runs; fails at once with its error if it fails instead. */
async function running(instance: StreamsInstance): Promise<void> {
  await waitFor(() => instance.state === 'RUNNING' || instance.state === 'ERROR', `${instance.applicationId} to run`);
  expect({ state: instance.state, error: instance.lastError?.message }).toEqual({ state: 'RUNNING', error: undefined });
}

/**
 * Counts words with `security`, then a node with no state takes the application over with `restoring`: its restore
 * consumer reads the counts back from their changelogs (no new input), and its store answers a query with them.
 */
async function restoreCounts(security: Record<string, string>, restoring: Record<string, string>): Promise<void> {
  const lines = 2_000;
  const { applicationId, input, output } = await countWords(security, lines);
  const expected = expectedCounts(lines);
  const instance = new StreamsInstance(wordCountTopology(input, output), { 'application.id': applicationId, 'state.dir': tempStateDir(), ...restoring }, { logger });
  const restores: RestoreEvent[] = [];
  instance.on('restore', (event) => restores.push(event));
  try {
    await instance.start();
    await running(instance);
    let counts = new Map<string, number>();
    const restored = async () => (counts = await queriedStoreValues<number>(instance, WORD_COUNT_STORE)).size === expected.size && [...expected].every(([word, n]) => counts.get(word) === n);
    await waitFor(restored, 'the restored counts', 30_000);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));
    expect(restores.filter((event) => event.store === WORD_COUNT_STORE && event.done && event.restored > 0)).not.toHaveLength(0);
  } finally {
    await instance.close();
  }
}

/**
 * Joins orders with a customers GlobalKTable (no local store: the restore consumer never connects) with `security`:
 * the global consumer reads the customers before RUNNING, the orders come out with their customer, and the global
 * store answers a query.
 */
async function joinGlobalTable(security: Record<string, string>): Promise<void> {
  const topics = { orders: uniqueName('orders'), customers: uniqueName('customers'), enrichedOrders: uniqueName('enriched') };
  const admin = await clients.admin();
  await createTopics(admin, Object.values(topics).map((name) => ({ name, partitions: 2 })));
  const customers: Record<string, Customer> = { c1: { name: 'Ada', tier: 'gold' }, c2: { name: 'Grace', tier: 'silver' } };
  const producer = await clients.producer();
  await producer.send({ topic: topics.customers, messages: Object.entries(customers).map(([key, value]) => ({ key, value: JSON.stringify(value) })) });
  const instance = new StreamsInstance(
    orderEnrichmentTopology(topics),
    { 'application.id': uniqueName('oe-secure'), 'state.dir': tempStateDir(), 'commit.interval.ms': 200, ...security },
    { logger },
  );
  try {
    await instance.start();
    await running(instance);
    await producer.send({
      topic: topics.orders,
      messages: [
        { key: 'o1', value: JSON.stringify({ customer: 'c1', item: 'tea', amount: 3 }) },
        { key: 'o2', value: JSON.stringify({ customer: 'c2', item: 'cake', amount: 5 }) },
      ],
    });
    const enriched = await consumeUntil(await clients.consumer({ groupId: uniqueName('oe-check') }), topics.enrichedOrders, 2);
    expect(Object.fromEntries(enriched.map((record) => [record.key, JSON.parse(record.value!) as EnrichedOrder]))).toEqual({
      o1: { customer: 'c1', item: 'tea', amount: 3, name: 'Ada', tier: 'gold' },
      o2: { customer: 'c2', item: 'cake', amount: 5, name: 'Grace', tier: 'silver' },
    });
    expect(Object.fromEntries(await queriedStoreValues<Customer>(instance, CUSTOMERS_STORE))).toEqual(customers);
  } finally {
    await instance.close();
  }
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

  itWithBroker('admin, main consumer and producer: counts words exactly with SASL_SSL only under consumer., producer. and admin.', async () => {
    await countWords(clientPrefixesOnly());
  });

  itWithBroker('transactional producers: counts words exactly under exactly_once_v2 with SASL_SSL only under the client prefixes', async () => {
    await countWords({ ...clientPrefixesOnly(), 'processing.guarantee': 'exactly_once_v2' });
  });

  itWithBroker('restore consumer: a node with no state restores the counts with SASL_SSL only under the client prefixes', async () => {
    await restoreCounts(clientPrefixesOnly(), clientPrefixesOnly());
  });

  itWithBroker('global consumer: reads a GlobalKTable with SASL_SSL only under the client prefixes', async () => {
    await joinGlobalTable(clientPrefixesOnly());
  });

  itWithBroker('main and restore consumers take main.consumer. and restore.consumer. over consumer. and unprefixed', async () => {
    const own = rightOnlyUnder(['main.consumer.', 'restore.consumer.', 'producer.', 'admin.']);
    await restoreCounts(own, own);
  });

  itWithBroker('the global consumer takes global.consumer. over consumer. and unprefixed, and never restore.consumer.', async () => {
    await joinGlobalTable({ ...rightOnlyUnder(['main.consumer.', 'global.consumer.', 'producer.', 'admin.']), ...underPrefixes(['restore.consumer.'], saslSsl('not-the-scram-password')) });
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
