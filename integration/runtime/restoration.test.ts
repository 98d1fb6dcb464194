import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, produceLines, tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

const LINES = 5_000;

describe('restoration from the changelog', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  it(
    'restores little after a clean stop (checkpoint) and everything after cleanUp',
    async () => {
      const input = uniqueName('rs-in');
      const output = uniqueName('rs-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      await produceLines(await clients.producer(), input, 0, LINES);
      const expected = expectedCounts(LINES);
      const config = {
        'application.id': uniqueName('rs'),
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'commit.interval.ms': 200,
        'cache.max.bytes.buffering': 0,
      };
      const storeCounts = (instance: StreamsInstance): Map<string, number> => {
        const counts = new Map<string, number>();
        for (const store of instance.queryableStores('count').values()) {
          for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) counts.set(kv.key, kv.value.value);
        }
        return counts;
      };
      const run = async (cleanUpFirst: boolean): Promise<{ restored: number; changelogRecords: number; counts: Map<string, number> }> => {
        const instance = new StreamsInstance(wordCountTopology(input, output), config, { logger: testLogger });
        if (cleanUpFirst) instance.cleanUp();
        const restores: RestoreEvent[] = [];
        instance.on('restore', (e) => restores.push(e));
        await instance.start();
        try {
          await waitForState(instance, 'RUNNING');
          await waitFor(() => [...expected].every(([w, n]) => storeCounts(instance).get(w) === n), 'every word counted in the store');
          const changelog = `${config['application.id']}-count-changelog`;
          const offsets = await admin.fetchTopicOffsets(changelog);
          const changelogRecords = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
          const restored = restores.filter((e) => e.done).reduce((n, e) => n + e.restored, 0);
          return { restored, changelogRecords, counts: storeCounts(instance) };
        } finally {
          await instance.close();
        }
      };

      const first = await run(false);
      expect(first.restored).toBe(0);
      expect(first.changelogRecords).toBeGreaterThan(0);

      const afterCleanStop = await run(false);
      expect(afterCleanStop.restored).toBeLessThan(afterCleanStop.changelogRecords);
      expect(Object.fromEntries(afterCleanStop.counts)).toEqual(Object.fromEntries(expected));

      const afterCleanUp = await run(true);
      expect(afterCleanUp.restored).toBe(afterCleanUp.changelogRecords);
      expect(Object.fromEntries(afterCleanUp.counts)).toEqual(Object.fromEntries(expected));
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
