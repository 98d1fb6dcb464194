/**
 * processing.guarantee=exactly_once_v2: the word count runs in a process that is SIGKILLed while input still
 * arrives, in the middle of its transactions; a second process on the same state directory takes over. Under
 * at-least-once some words end over-counted (two-process-failover.test.ts prints how many); here every count
 * must be exact, in the survivor's store and in the output topic as a read_committed consumer sees it, and the
 * group's offsets must reach the end of the transactional repartition topic, past its markers.
 */
import * as path from 'node:path';
import { BROKER_TEST_TIMEOUT_MS, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, waitFor } from '../support/streams';
import { describeLog } from './support/kafka-streams-states';
import { WordCountProcesses } from './support/word-count-processes';

const PARTITIONS = 4;
const FIRST = 2_000;
const TOTAL = 6_000;

describe('exactly-once processing', () => {
  const app = new WordCountProcesses('eos');
  const { clients } = app;
  afterAll(() => app.cleanUp(), 30_000);

  it(
    'counts every word exactly once across a SIGKILL, in the store and in the committed output',
    async () => {
      const { input, output } = app;
      const admin = await clients.admin();
      await app.createTopics(PARTITIONS);
      // Idempotent: a produce retried under load must not put a line in the input twice.
      const producer = await clients.producer();
      await produceLines(producer, input, 0, FIRST);
      const expected = expectedCounts(TOTAL);

      const start = (name: string) =>
        app.start(name, {
          // Both processes use one state directory: the second finds the first's stores without a checkpoint.
          'state.dir': path.join(app.workDir, 'state'),
          'processing.guarantee': 'exactly_once_v2',
          // Transactions of a second: the kill nearly always falls inside one (at-least-once would re-count it).
          'commit.interval.ms': 1000,
          'session.timeout.ms': 6000,
          'heartbeat.interval.ms': 1000,
        });

      const first = start('first');
      await waitFor(async () => first.state === 'RUNNING' && (await first.storeCounts()).size > 0, 'the first process to count', 60_000);
      // Input keeps arriving (50 lines every ~20 ms) while the first process is killed in the middle of it.
      let sent = FIRST;
      const trickle = (async () => {
        for (; sent < TOTAL; sent += 50) {
          await produceLines(producer, input, sent, sent + 50);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await waitFor(() => sent >= (FIRST + TOTAL) / 2, 'half of the trickle to be produced', 30_000);
      await first.kill();
      const second = start('second');
      await trickle;

      let store = new Map<string, number>();
      const complete = (counts: Map<string, number>) => [...expected].every(([word, n]) => (counts.get(word) ?? 0) >= n);
      await waitFor(
        async () => {
          store = await second.storeCounts();
          return second.state === 'RUNNING' && complete(store);
        },
        'every word counted by the second process',
        90_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; second: ${describeLog(second.states)}\n${second.tail()}`);
      });
      const inputRecords = (await admin.fetchTopicOffsets(input)).reduce((n, p) => n + Number(p.high), 0);
      expect(inputRecords).toBe(TOTAL);
      const consumer = await clients.consumer({ groupId: uniqueName('eos-check'), isolationLevel: 'read_committed' });
      const topic = await latestCounts(consumer, output, complete, 30_000);
      const wrong = (counts: Map<string, number>) =>
        [...expected].filter(([word, n]) => counts.get(word) !== n).map(([word, n]) => `${word}: ${counts.get(word) ?? 0} instead of ${n}`);
      expect({ store: wrong(store), outputTopic: wrong(topic) }).toEqual({ store: [], outputTopic: [] });
      expect(second.errors).toEqual([]);

      // Every transaction ends with a marker the consumer hides: the group commits past it, as Kafka Streams
      // commits the consumer's position, so no lag is left on the transactional repartition topic.
      const repartition = `${app.applicationId}-count-repartition`;
      const lagLeft = async () => {
        const ends = await admin.fetchTopicOffsets(repartition);
        const [committed] = await admin.fetchOffsets({ groupId: app.applicationId, topics: [repartition] });
        return ends.map((p) => Number(p.high) - Number(committed?.partitions.find((c) => c.partition === p.partition)?.offset ?? 0));
      };
      let lag: number[] = [];
      await waitFor(async () => (lag = await lagLeft()).every((n) => n === 0), 'the repartition topic to be committed to its end', 15_000).catch(() => undefined);
      expect(lag).toEqual(new Array<number>(PARTITIONS).fill(0));

      await second.stop();
      expect(second.exit).toBe('exited with 0');
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
