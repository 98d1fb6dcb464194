import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitForState } from '../support/streams';

const RECORDS_PER_TOPIC = 1_000;

function records(topic: string): { key: string; value: string }[] {
  return Array.from({ length: RECORDS_PER_TOPIC }, (_, i) => ({ key: `k${i % 37}`, value: `${topic}:${i}` }));
}

describe('a source pattern on a real broker', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  it(
    'processes records from every matching topic, one of them created after start',
    async () => {
      const prefix = uniqueName('orders');
      const first = `${prefix}-eu`;
      const later = `${prefix}-us`;
      const output = uniqueName('orders-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: first, partitions: 2 }, { name: output, partitions: 1 }]);
      const producer = await clients.producer();
      await producer.send({ topic: first, messages: records(first) });

      const builder = new StreamsBuilder();
      builder
        .stream<string, string>(new RegExp(`^${prefix}-.*`), { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .mapValues((v) => v.toUpperCase())
        .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
      const instance = new StreamsInstance(
        builder.build(),
        {
          'application.id': uniqueName('pattern'),
          'bootstrap.servers': bootstrapServers().join(','),
          'state.dir': tempStateDir(),
          'commit.interval.ms': 200,
          'metadata.max.age.ms': 1_000,
        },
        { logger: testLogger },
      );
      try {
        await instance.start();
        await waitForState(instance, 'RUNNING');
        await createTopics(admin, [{ name: later, partitions: 3 }]);
        await producer.send({ topic: later, messages: records(later) });

        const consumer = await clients.consumer({ groupId: uniqueName('pattern-check') });
        const received = await consumeUntil(consumer, output, 2 * RECORDS_PER_TOPIC, 90_000);
        const expected = [...records(first), ...records(later)].map((r) => `${r.key}=${r.value.toUpperCase()}`).sort();
        expect(received.map((r) => `${r.key}=${r.value}`).sort()).toEqual(expected);
        // Both topics' partitions are the instance's tasks' input: 3 tasks, topic by topic.
        const inputs = instance.threads().flatMap((t) => t.activeTasks.flatMap((task) => task.topicPartitions.map((tp) => `${task.taskId} ${tp.topic}-${tp.partition}`)));
        expect(inputs.sort()).toEqual([`0_0 ${first}-0`, `0_0 ${later}-0`, `0_1 ${first}-1`, `0_1 ${later}-1`, `0_2 ${later}-2`]);
      } finally {
        await instance.close();
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
