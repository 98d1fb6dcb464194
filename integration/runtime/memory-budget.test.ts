/**
 * The node's memory budget on a real broker: two instances on one node share its record-cache, producer-buffer and
 * fetch parts, each thread's share capping what its configuration asks; the shares grow back when an instance closes; the
 * parts are in every instance's metrics; the counts are what they would be without a budget.
 */
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { MemoryBudget } from '../../src/streams/runtime/memory-budget';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { storeValues, tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

const MiB = 1024 * 1024;
const LINES = 20_000;

function wordCount(input: string): ReturnType<StreamsBuilder['build']> {
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts' });
  return builder.build();
}

function metric(instance: StreamsInstance, group: string, name: string, tags: Record<string, string> = {}): number {
  const found = instance.metrics.metrics({ group, name }).filter((m) => Object.entries(tags).every(([k, v]) => m.tags[k] === v));
  return found.reduce((sum, m) => sum + Number(m.value), 0);
}

it(
  'shares the budget among the node\'s instances, caps their caches, producer buffers and fetches, and gives the share back when one closes',
  async () => {
    const clients = new KafkaTestClients();
    const input = uniqueName('budget-in');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions: 2 }]);
    const producer = await clients.producer();
    for (let start = 0; start < LINES; start += 1000) {
      await producer.send({ topic: input, messages: Array.from({ length: 1000 }, (_, i) => ({ key: null, value: `w${(start + i) % 500} common` })) });
    }
    const budget = new MemoryBudget(64 * MiB);
    const instanceOf = () =>
      new StreamsInstance(
        wordCount(input),
        { 'application.id': uniqueName('budget'), 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 1000 },
        { logger: testLogger, memoryBudget: budget },
      );
    const first = instanceOf();
    const second = instanceOf();
    try {
      await first.start();
      await waitForState(first, 'RUNNING');
      // Alone on the node: its one thread takes the whole 6.4 MiB record-cache part (below its 10 MiB) and producer part.
      const part = Math.floor(6.4 * MiB);
      await waitFor(() => metric(first, 'stream-record-cache-metrics', 'cache-max-bytes') === part, 'the cache capped by the budget', 10_000);
      expect(metric(first, 'producer-metrics', 'buffer-total-bytes')).toBe(part);
      expect(metric(first, 'sluice-memory-metrics', 'memory-budget-bytes', { part: 'total' })).toBe(64 * MiB);
      expect(metric(first, 'sluice-memory-metrics', 'memory-used-bytes', { part: 'total' })).toBeGreaterThan(0);
      // Its group consumer (1 MiB), restore consumer and standby updater (50 MiB each unbudgeted) within the fetch part.
      const fetchUsed = () => metric(first, 'sluice-memory-metrics', 'memory-used-bytes', { part: 'fetch' });
      expect(metric(first, 'sluice-memory-metrics', 'memory-budget-bytes', { part: 'fetch' })).toBe(part);
      expect(fetchUsed()).toBeGreaterThan(MiB);
      expect(fetchUsed()).toBeLessThanOrEqual(part);

      await second.start();
      await waitForState(second, 'RUNNING');
      await waitFor(() => metric(first, 'stream-record-cache-metrics', 'cache-max-bytes') === Math.floor(part / 2), 'the first instance\'s share halved', 10_000);
      expect(metric(second, 'stream-record-cache-metrics', 'cache-max-bytes')).toBe(Math.floor(part / 2));
      expect(metric(second, 'producer-metrics', 'buffer-total-bytes')).toBe(Math.floor(part / 2));
      expect(fetchUsed()).toBeLessThanOrEqual(part);

      for (const instance of [first, second]) {
        await waitFor(() => storeValues<number>(instance, 'counts').get('common') === LINES, 'every line counted', 60_000);
        const counts = storeValues<number>(instance, 'counts');
        expect(counts.size).toBe(501);
        expect([...counts.entries()].filter(([word]) => word !== 'common').every(([, count]) => count === LINES / 500)).toBe(true);
        expect(metric(instance, 'sluice-memory-metrics', 'memory-used-bytes', { part: 'record-cache' })).toBeLessThanOrEqual(part);
      }

      await second.close();
      await waitFor(() => metric(first, 'stream-record-cache-metrics', 'cache-max-bytes') === part, 'the share given back', 10_000);
      expect(metric(first, 'producer-metrics', 'buffer-total-bytes')).toBe(part);
    } finally {
      await second.close();
      await first.close();
      await clients.close();
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);
