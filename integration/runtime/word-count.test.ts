import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, tempStateDir, testLogger, waitForState } from '../support/streams';

const LINES = 100_000;

describe('word count on a real broker', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  it(
    'counts 100 000 lines exactly, in the output topic and in the count store',
    async () => {
      const input = uniqueName('wc-in');
      const output = uniqueName('wc-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 4 }, { name: output, partitions: 4 }]);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);
      const expected = expectedCounts(LINES);

      const instance = new StreamsInstance(
        wordCountTopology(input, output),
        {
          'application.id': uniqueName('wc'),
          'bootstrap.servers': bootstrapServers().join(','),
          'state.dir': tempStateDir(),
          'commit.interval.ms': 500,
        },
        { logger: testLogger },
      );
      try {
        await instance.start();
        await waitForState(instance, 'RUNNING');
        const consumer = await clients.consumer({ groupId: uniqueName('wc-check') });
        const counts = await latestCounts(consumer, output, (c) =>
          [...expected].every(([word, n]) => c.get(word) === n),
        );
        expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));

        const stores = instance.queryableStores('count');
        const fromStore = new Map<string, number>();
        for (const store of stores.values()) {
          for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) fromStore.set(kv.key, kv.value.value);
        }
        expect(Object.fromEntries(fromStore)).toEqual(Object.fromEntries(expected));

        // Kafka Streams' metric names: consumer lag per partition, and what the source node processed.
        const metrics = instance.metrics.metrics();
        const lags = metrics.filter((m) => m.group === 'consumer-fetch-manager-metrics' && m.name === 'records-lag' && m.tags.topic === input);
        expect(lags.map((m) => m.tags.partition).sort()).toEqual(['0', '1', '2', '3']);
        expect(lags.every((m) => m.value === 0)).toBe(true);
        const sourceTotal = metrics
          .filter((m) => m.group === 'stream-processor-node-metrics' && m.name === 'process-total' && m.tags['processor-node-id'] === 'KSTREAM-SOURCE-0000000000')
          .reduce((n, m) => n + Number(m.value), 0);
        expect(sourceTotal).toBe(LINES);
        // The threads count records, as Kafka Streams' thread-level process-total does: each line, then each word
        // again as it comes back from the repartition topic.
        const threadTotal = metrics
          .filter((m) => m.group === 'stream-thread-metrics' && m.name === 'process-total')
          .reduce((n, m) => n + Number(m.value), 0);
        expect(threadTotal).toBe(LINES + [...expected.values()].reduce((n, count) => n + count, 0));
        const storePuts = metrics.filter((m) => m.group === 'stream-state-metrics' && m.name === 'put-rate' && m.tags['lmdb-state-id'] === 'count');
        expect(storePuts.length).toBe(4);
        // At the default metrics.recording.level (INFO) store operations go untimed, as in Kafka Streams; flushes are counted.
        expect(storePuts.every((m) => m.value === 0)).toBe(true);
        const flushes = metrics.filter((m) => m.group === 'stream-state-metrics' && m.name === 'flush-rate' && m.tags['lmdb-state-id'] === 'count');
        expect(flushes.some((m) => Number(m.value) > 0)).toBe(true);
      } finally {
        await instance.close();
      }
      expect(instance.state).toBe('NOT_RUNNING');
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
