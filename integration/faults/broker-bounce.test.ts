/**
 * The broker killed (SIGKILL) in the middle of processing and started again on the same ports and data, under
 * both guarantees. Under exactly_once_v2 every word ends counted exactly as often as the input holds it, in the
 * store and on the output topic read committed; under at_least_once none is counted less (more is allowed: the
 * records processed since the last commit are processed again).
 */
import { StreamsInstance } from '../../src';
import { LocalKafka } from '../../src/host/broker/local-kafka';
import { wordCountTopology, WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, tempStateDir, testLogger, waitFor, storeValues } from '../support/streams';
import { stopAnyway } from '../runtime/support/stop-anyway';
import { FAULT_GUARANTEES } from './support/guarantees';

const LINES = 20_000;
/** Longer than kafkajs' own retries (about 10 s): Sluice's retrying and transaction recovery must carry it. */
const OUTAGE_MS = 15_000;

const storeCounts = (instance: StreamsInstance): Map<string, number> => storeValues<number>(instance, WORD_COUNT_STORE);

const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

describe.each(FAULT_GUARANTEES)('the broker bounced under %s', (guarantee) => {
  let broker: LocalKafka;
  let clients: KafkaTestClients;
  let instance: StreamsInstance | undefined;

  beforeAll(async () => {
    broker = await LocalKafka.start();
    clients = new KafkaTestClients(uniqueName('bounce-test'), [broker.bootstrapServers]);
  }, 90_000);
  afterAll(async () => {
    if (instance) await stopAnyway(instance);
    await clients.close();
    await broker.stop();
  }, 60_000);

  it(
    'loses nothing, and under exactly-once counts nothing twice',
    async () => {
      const input = uniqueName('bounce-in');
      const output = uniqueName('bounce-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);

      instance = new StreamsInstance(
        wordCountTopology(input, output),
        {
          'application.id': uniqueName('bounce'),
          'bootstrap.servers': broker.bootstrapServers,
          'state.dir': tempStateDir(),
          'processing.guarantee': guarantee,
          'commit.interval.ms': 200,
          'session.timeout.ms': 6000,
          'heartbeat.interval.ms': 1000,
        },
        { logger: testLogger },
      );
      const states: string[] = [];
      instance.on('state', (change) => states.push(change.state));
      const running = instance;
      const expected = expectedCounts(2 * LINES);
      await instance.start();
      await waitFor(() => total(storeCounts(running)) > total(expectedCounts(LINES)) / 5, 'the backlog to be under way', 60_000);

      await broker.kill();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      await broker.restart();
      await produceLines(producer, input, LINES, 2 * LINES);

      const settled = () => [...expected].every(([word, n]) => (storeCounts(running).get(word) ?? 0) >= n);
      await waitFor(settled, 'every line produced before and after the outage to be counted', 120_000);
      await waitFor(() => running.state === 'RUNNING', 'the instance to be RUNNING again', 30_000);
      expect(states).not.toContain('ERROR');

      const consumer = await clients.consumer({ groupId: uniqueName('bounce-check'), isolationLevel: 'read_committed' });
      const published = await latestCounts(consumer, output, (counts) => [...expected].every(([word, n]) => (counts.get(word) ?? 0) >= n), 90_000);
      if (guarantee === 'exactly_once_v2') {
        expect(Object.fromEntries(storeCounts(running))).toEqual(Object.fromEntries(expected));
        expect(Object.fromEntries(published)).toEqual(Object.fromEntries(expected));
      } else {
        for (const [word, n] of expected) {
          expect([word, storeCounts(running).get(word)! >= n]).toEqual([word, true]);
          expect([word, published.get(word)! >= n]).toEqual([word, true]);
        }
      }
    },
    BROKER_TEST_TIMEOUT_MS + 120_000,
  );
});
