/** What the broker-backed tests share: the broker's address, unique names, clients, and consuming with a deadline. */
import { randomBytes } from 'node:crypto';
import {
  createConsumer,
  createKafkaClient,
  createProducer,
  createTransactionalProducer,
  parseBootstrapServers,
  type ConsumedRecord,
  type ConsumerOptions,
  type KafkaAdmin,
  type KafkaClient,
  type KafkaConsumer,
  type KafkaProducer,
  type ProducerOptions,
  type TransactionalProducerOptions,
} from '../../src/streams/kafka';

/**
 * Timeout for a broker-backed test. Passed to each test: jest 30 ignores `testTimeout` in a project's config
 * (only the top-level one counts), so the integration project's setting does not reach the tests.
 */
export const BROKER_TEST_TIMEOUT_MS = 120_000;

/** The broker globalSetup provided. */
export function bootstrapServers(): string[] {
  const value = process.env.KAFKA_BOOTSTRAP_SERVERS;
  if (!value) throw new Error('KAFKA_BOOTSTRAP_SERVERS is not set: run these tests through jest, whose globalSetup provides a broker');
  return parseBootstrapServers(value);
}

/** A name no other test or earlier run uses: topics and groups outlive tests on an external cluster. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/**
 * Creates connected clients for one test file and disconnects them all in `close()` (call it in afterAll),
 * so that a failing test does not leave kafkajs sockets behind.
 */
export class KafkaTestClients {
  readonly kafka: KafkaClient;
  private readonly connected: Array<{ disconnect(): Promise<void> }> = [];

  constructor(clientId = uniqueName('sluice-test'), servers: string[] = bootstrapServers()) {
    this.kafka = createKafkaClient({ bootstrapServers: servers, clientId });
  }

  async admin(): Promise<KafkaAdmin> {
    return this.track(this.kafka.admin());
  }

  async producer(options?: ProducerOptions): Promise<KafkaProducer> {
    return this.track(createProducer(this.kafka, options));
  }

  async transactionalProducer(options: TransactionalProducerOptions): Promise<KafkaProducer> {
    return this.track(createTransactionalProducer(this.kafka, options));
  }

  /** A connected consumer, not yet subscribed. Heartbeats every 500 ms so that rebalances settle fast. */
  async consumer(options: ConsumerOptions): Promise<KafkaConsumer> {
    return this.track(createConsumer(this.kafka, { heartbeatIntervalMs: 500, maxWaitTimeMs: 500, ...options }));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.connected.splice(0).map((client) => client.disconnect()));
  }

  private async track<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(client: T): Promise<T> {
    await client.connect();
    this.connected.push(client);
    return client;
  }
}

export interface ReceivedRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
}

function received(topic: string, partition: number, message: ConsumedRecord): ReceivedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key === null ? null : message.key.toString('utf8'),
    value: message.value === null ? null : message.value.toString('utf8'),
  };
}

/**
 * Subscribes the consumer to the topic from the beginning and collects records until `count` have arrived,
 * then stops it. Rejects with what it got so far when `timeoutMs` passes first.
 */
export async function consumeUntil(
  consumer: KafkaConsumer,
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<ReceivedRecord[]> {
  const records: ReceivedRecord[] = [];
  let done!: () => void;
  const enough = new Promise<void>((resolve) => (done = resolve));
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic: from, partition, message }) => {
      records.push(received(from, partition, message));
      if (records.length >= count) done();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Received ${records.length} of ${count} records from ${topic} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([enough, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.stop();
  }
  return records;
}
