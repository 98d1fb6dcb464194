/**
 * Issue 4, "a lost broker connection is retried and the instance recovers when the broker is back": the word
 * count runs on a broker of its own, which is SIGKILLed (a crash: every connection refused) in the middle of a
 * backlog, for longer than kafkajs' own retries last, then started again on the same ports and data. The instance must never reach
 * ERROR, and the input produced before and after the outage must end counted, none of it under-counted. The same
 * holds for an instance started while the broker is down.
 */
import { StreamsInstance } from '../../src';
import { LocalKafka } from '../../src/host/broker/local-kafka';
import { wordCountTopology, WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { expectedCounts, produceLines, tempStateDir, testLogger, waitFor, storeValues } from '../support/streams';
import { stopAnyway } from './support/stop-anyway';

/** Enough that the broker dies in the middle of the backlog, with sends and commits under way. */
const LINES = 30_000;
/** Longer than kafkajs' retry budget (five retries from 300 ms, about 10 s): Sluice's own retrying must carry it. */
const OUTAGE_MS = 20_000;
const START_OUTAGE_MS = 15_000;

const counts = (instance: StreamsInstance): Map<string, number> => storeValues<number>(instance, WORD_COUNT_STORE);

describe('a broker outage', () => {
  let broker: LocalKafka;
  let clients: KafkaTestClients;
  let instance: StreamsInstance | undefined;

  beforeAll(async () => {
    broker = await LocalKafka.start();
    clients = new KafkaTestClients(uniqueName('outage-test'), [broker.bootstrapServers]);
  }, 90_000);
  afterAll(async () => {
    if (instance) await stopAnyway(instance);
    await clients.close();
    await broker.stop();
  }, 60_000);

  it(
    'is ridden out: the instance never fails and counts everything produced before and after',
    async () => {
      const input = uniqueName('outage-in');
      const output = uniqueName('outage-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);

      instance = new StreamsInstance(
        wordCountTopology(input, output),
        {
          'application.id': uniqueName('outage'),
          'bootstrap.servers': broker.bootstrapServers,
          'state.dir': tempStateDir(),
          'commit.interval.ms': 200,
          'session.timeout.ms': 6000,
          'heartbeat.interval.ms': 1000,
        },
        { logger: testLogger },
      );
      const states: string[] = [];
      instance.on('state', (change) => states.push(change.state));
      const running = instance;
      const counted = (lines: number) => {
        const now = counts(running);
        return [...expectedCounts(lines)].every(([word, n]) => (now.get(word) ?? 0) >= n);
      };
      const words = [...expectedCounts(LINES).values()].reduce((a, b) => a + b, 0);
      await instance.start();
      await waitFor(() => [...counts(running).values()].reduce((a, b) => a + b, 0) > words / 5, 'the backlog to be under way', 60_000);

      await broker.kill();
      // The outage falls in the middle of the backlog, not after it.
      expect(counted(LINES)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      expect(instance.state).not.toBe('ERROR');
      await broker.restart();
      await produceLines(producer, input, LINES, 2 * LINES);

      await waitFor(() => counted(2 * LINES), 'the lines produced after the outage to be counted', 90_000);
      await waitFor(() => instance?.state === 'RUNNING', 'the instance to be RUNNING again', 30_000);
      expect(states).not.toContain('ERROR');
      expect(states).not.toContain('PENDING_ERROR');
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );

  it(
    'at start is waited out: an instance started while the broker is down starts when it is back',
    async () => {
      if (instance) await stopAnyway(instance);
      const input = uniqueName('outage-start-in');
      const output = uniqueName('outage-start-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      await broker.kill();
      instance = new StreamsInstance(
        wordCountTopology(input, output),
        { 'application.id': uniqueName('outage-start'), 'bootstrap.servers': broker.bootstrapServers, 'state.dir': tempStateDir() },
        { logger: testLogger },
      );
      const states: string[] = [];
      instance.on('state', (change) => states.push(change.state));
      const started = instance.start();
      // Longer than kafkajs' own connection retries (about 10 s).
      await new Promise((resolve) => setTimeout(resolve, START_OUTAGE_MS));
      expect(instance.state).toBe('REBALANCING');
      await broker.restart();
      await started;
      await produceLines(await clients.producer(), input, 0, 1_000);
      const running = instance;
      const expected = expectedCounts(1_000);
      await waitFor(() => [...expected].every(([word, n]) => counts(running).get(word) === n), 'the lines produced after the start to be counted', 60_000);
      expect(states).not.toContain('ERROR');
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );
});
