/**
 * Issue 15, "Must show" (threads in workers): with two stream threads, the second in a worker thread of its own,
 * interactive queries answer while the records are processed, and read what each thread wrote: the worker's
 * partitions are read in the worker, through the stores' record caches (the commit interval is longer than the test,
 * so nothing reaches the stores on disk). The worker's metrics, positions and store partitions are the instance's.
 */
import { StreamsInstance } from '../../src';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { PeerClient } from '../../src/cluster/peer-client';
import type { RebalanceEntry } from '../../src/streams/runtime/rebalance-timeline';
import { WORD_COUNT_STORE, wordCountTopology, wordCountTopologySource } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, localQueryService, produceLines, queriedStoreValues, tempStateDir, testLogger, waitFor } from '../support/streams';
import { instancesUnderTest } from './support/stop-anyway';

const PARTITIONS = 4;
const ROUNDS = 5;
const LINES_PER_ROUND = 4_000;

describe('stream threads in workers on a real broker', () => {
  const { clients, instances } = instancesUnderTest();
  const peers = new PeerClient();
  afterAll(() => peers.close());

  it(
    'interactive queries answer during processing with two threads, and read what each thread wrote',
    async () => {
      const input = uniqueName('workers-in');
      const output = uniqueName('workers-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: PARTITIONS }, { name: output, partitions: PARTITIONS }]);
      const applicationId = uniqueName('workers');
      const instance = new StreamsInstance(
        wordCountTopology(input, output),
        {
          'application.id': applicationId,
          'bootstrap.servers': bootstrapServers().join(','),
          'state.dir': tempStateDir(),
          'num.stream.threads': 2,
          'commit.interval.ms': 600_000,
        },
        { logger: testLogger, topologySource: wordCountTopologySource(input, output) },
      );
      instances.push(instance);
      await instance.start();
      await waitFor(() => instance.state === 'RUNNING' && instance.threads().every((t) => t.activeTasks.length > 0), 'both threads running tasks', 90_000);
      const onLoop = [...instance.queryableStores(WORD_COUNT_STORE).keys()];
      const inWorker = instance.workerStores(WORD_COUNT_STORE).flatMap((w) => w.partitions);
      expect([...onLoop, ...inWorker].sort()).toEqual([0, 1, 2, 3]);
      expect(onLoop.length).toBeGreaterThan(0);
      expect(inWorker.length).toBeGreaterThan(0);
      // The worker's assignments reach the timeline with their group generation.
      const rebalances = instance.timeline().filter((entry): entry is RebalanceEntry => entry.type === 'rebalance');
      expect(rebalances[0]!.causes).toEqual([{ type: 'instance_started' }]);
      expect(rebalances.map((r) => r.generation! > 0)).toEqual(rebalances.map(() => true));

      const service = localQueryService(instance, peers);
      const producer = await clients.producer();
      for (let round = 0; round < ROUNDS; round++) {
        await produceLines(producer, input, round * LINES_PER_ROUND, (round + 1) * LINES_PER_ROUND);
        // While the round is being processed: an answer, and never a count above what was produced.
        const answer = await service.execute(applicationId, WORD_COUNT_STORE, { type: 'key_value', query: { all: {} }, set_options: { retries: 20, retry_backoff_ms: 100 } });
        expect(answer.status).toBe('SUCCESS');
        const produced = expectedCounts((round + 1) * LINES_PER_ROUND);
        for (const record of answer.result.success.flatMap((part) => part.records) as { key: string; value: number }[]) {
          expect(record.value).toBeLessThanOrEqual(produced.get(record.key)!);
        }
      }

      const expected = expectedCounts(ROUNDS * LINES_PER_ROUND);
      let counted = new Map<string, number>();
      await waitFor(async () => (counted = await queriedStoreValues<number>(instance, WORD_COUNT_STORE)).size === expected.size && [...expected].every(([w, n]) => counted.get(w) === n), 'every word counted', 90_000);
      // Each thread's words: the count store is partitioned by word (its repartition topic's murmur2 placement).
      const partitionOf = (word: string) => partitionForKey(Buffer.from(word, 'utf8'), PARTITIONS);
      const wordsIn = (partitions: number[]) => [...expected.keys()].filter((word) => partitions.includes(partitionOf(word)));
      for (const partitions of [onLoop, inWorker]) {
        expect(wordsIn(partitions).length).toBeGreaterThan(0);
        for (const word of wordsIn(partitions)) expect([word, counted.get(word)]).toEqual([word, expected.get(word)]);
      }
      // A get of a word the worker holds is read there.
      const [workerWord] = wordsIn(inWorker);
      const get = await service.execute(applicationId, WORD_COUNT_STORE, { type: 'key_value', query: { get: { key: workerWord } } });
      expect(get.result.success.flatMap((part) => part.records)).toEqual([{ key: workerWord, value: expected.get(workerWord!) }]);
      // Nothing was committed (the first commit is 10 minutes away), so no count was flushed from the caches.
      const committed = (await admin.fetchOffsets({ groupId: applicationId, topics: [input] })).flatMap((t) => t.partitions.map((p) => Number(p.offset)));
      expect(committed.every((offset) => offset <= 0)).toBe(true);

      // The worker's thread: its metrics (with its thread id), its consumer's positions, its store partitions.
      const workerThread = instance.threads()[1]!.name;
      await waitFor(
        () => instance.metrics.metrics({ group: 'stream-thread-metrics', name: 'process-total' }).some((m) => m.tags['thread-id'] === workerThread && Number(m.value) > 0),
        "the worker's metrics",
        10_000,
      );
      const offsets = await instance.offsets();
      expect(offsets.consumers.find((c) => c.streamThread === workerThread)?.positions.length).toBeGreaterThan(0);
      expect((await instance.storeStatus()).filter((s) => s.store === WORD_COUNT_STORE).map((s) => s.partition)).toEqual([0, 1, 2, 3]);
      await instance.close();
      expect(instance.state).toBe('NOT_RUNNING');
      expect(instance.threads().every((t) => t.state === 'DEAD')).toBe(true);
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );
});
