/**
 * Large records go out in produce requests the broker accepts: a cache flushed at commit hands the collector
 * 5 000 records of 1 KiB for one partition at once (5 MiB, five times the broker's message.max.bytes), which
 * reach the changelog and the output topic whole.
 * A thread held to a small `buffer.memory` waits for the broker rather than buffering its backlog.
 */
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

const RECORDS = 5_000;
const VALUE = 'x'.repeat(1024);

it(
  'writes a backlog of 1 KiB records to the changelog and the output without a request the broker refuses',
  async () => {
    const clients = new KafkaTestClients();
    const input = uniqueName('large-in');
    const output = uniqueName('large-out');
    const applicationId = uniqueName('large');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const producer = await clients.producer();
    for (let start = 0; start < RECORDS; start += 500) {
      await producer.send({ topic: input, messages: Array.from({ length: 500 }, (_, i) => ({ key: `k${start + i}`, value: VALUE })) });
    }
    const builder = new StreamsBuilder();
    const strings = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
    builder.table<string, string>(input, strings, { storeName: 'latest' }).toStream().to(output, strings);
    const instance = new StreamsInstance(
      builder.build(),
      { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 5_000, 'statestore.cache.max.bytes': 64 * 1024 * 1024 },
      { logger: testLogger },
    );
    const end = async (topic: string) => Number((await admin.fetchTopicOffsets(topic))[0]!.high);
    try {
      await instance.start();
      await waitForState(instance, 'RUNNING');
      await waitFor(async () => (await end(output)) === RECORDS && (await end(`${applicationId}-latest-changelog`)) === RECORDS, 'every record in the output and the changelog', 60_000);
      expect(instance.state).toBe('RUNNING');
      expect(instance.lastError).toBeUndefined();
    } finally {
      await instance.close();
      await clients.close();
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);

it(
  'holds a thread to buffer.memory: it waits for the broker, says so in its producer metrics, and loses nothing',
  async () => {
    const clients = new KafkaTestClients();
    const input = uniqueName('bounded-in');
    const output = uniqueName('bounded-out');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
    const producer = await clients.producer();
    for (let start = 0; start < RECORDS; start += 500) {
      await producer.send({ topic: input, messages: Array.from({ length: 500 }, (_, i) => ({ key: `k${start + i}`, value: `${start + i}:${VALUE}` })) });
    }
    const builder = new StreamsBuilder();
    const strings = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
    builder.stream<string, string>(input, strings).mapValues((v) => v.toUpperCase()).to(output, strings);
    const bound = 64 * 1024;
    const instance = new StreamsInstance(
      builder.build(),
      { 'application.id': uniqueName('bounded'), 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'producer.buffer.memory': bound },
      { logger: testLogger },
    );
    const producerMetric = (name: string): number => Number(instance.metrics.metrics({ group: 'producer-metrics', name })[0]?.value ?? Number.NaN);
    try {
      await instance.start();
      await waitForState(instance, 'RUNNING');
      const received = await consumeUntil(await clients.consumer({ groupId: uniqueName('bounded-check') }), output, RECORDS, 60_000);
      // Every record once, as processed: 5 MiB went through a 64 KiB buffer.
      expect(received).toHaveLength(RECORDS);
      expect(new Set(received.map((r) => r.key)).size).toBe(RECORDS);
      expect(received.every((r) => r.value === `${r.key!.slice(1)}:${VALUE}`.toUpperCase())).toBe(true);
      expect(producerMetric('buffer-total-bytes')).toBe(bound);
      expect(producerMetric('bufferpool-wait-time-ns-total')).toBeGreaterThan(0);
      expect(producerMetric('buffer-available-bytes')).toBeGreaterThanOrEqual(0);
      expect(instance.metrics.metrics({ group: 'producer-metrics', name: 'buffer-total-bytes' })[0]!.tags['client-id']).toMatch(/-StreamThread-1-producer$/);
    } finally {
      await instance.close();
      await clients.close();
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);
