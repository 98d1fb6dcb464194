/**
 * Large records go out in produce requests the broker accepts: a cache flushed at commit hands the collector
 * 5 000 records of 1 KiB for one partition at once (5 MiB, five times the broker's message.max.bytes), which
 * reach the changelog and the output topic whole.
 */
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
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
