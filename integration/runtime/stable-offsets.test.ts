/**
 * Under exactly_once_v2 a new task starts from its input's committed offsets as they stand once no transaction holds
 * offsets of the group still pending (KIP-447's require_stable), read after its own producer has fenced the task's
 * previous one. kafkajs reads committed offsets at its first fetch after a join without require_stable: while a
 * transaction's offset commit is pending the broker answers the offset before it, and the records that transaction
 * consumed (whose output it commits) were processed again. The previous owner here is a producer left in the middle
 * of its transaction: its output written, its offsets sent, no EndTxn yet.
 */
import pino from 'pino';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { createTopics, type KafkaAdmin, type KafkaTransaction } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';
import { instancesUnderTest } from './support/stop-anyway';

const LINES = 100;
/** What the previous owner processed: its pending transaction commits the input's offset past these. */
const PROCESSED_BEFORE = 60;
/** After the member joined, long enough for kafkajs' first fetch to have read the committed offsets. */
const AFTER_JOIN_MS = 2_000;

const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });
const key = (i: number) => `k-${i}`;
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => key(from + i));

describe('a task under exactly_once_v2 starting beside a pending transactional offset commit', () => {
  const { clients, instances } = instancesUnderTest();

  const setUp = async () => {
    const input = uniqueName('stable-in');
    const output = uniqueName('stable-out');
    const applicationId = uniqueName('stable');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: keys(0, LINES).map((k) => ({ key: k, value: `value of ${k}` })) });
    /** Keys in the order the task processed them. */
    const processed: string[] = [];
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .mapValues((value, k) => {
        processed.push(k);
        return value.toUpperCase();
      })
      .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
    const instance = new StreamsInstance(
      builder.build(),
      {
        'application.id': applicationId,
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'processing.guarantee': 'exactly_once_v2',
        'commit.interval.ms': 200,
      },
      { logger: quietLogger },
    );
    instances.push(instance);
    return { input, output, applicationId, admin, instance, processed };
  };

  /** The previous owner's open transaction: its output for the first records, and the input offset past them. */
  const pendingTransaction = async (transactionalId: string, applicationId: string, input: string, output: string): Promise<KafkaTransaction> => {
    const previous = await clients.transactionalProducer({ transactionalId });
    const transaction = await previous.transaction();
    await transaction.send({ topic: output, messages: keys(0, PROCESSED_BEFORE).map((k) => ({ key: k, value: `VALUE OF ${k.toUpperCase()}` })) });
    await transaction.sendOffsets({ consumerGroupId: applicationId, topics: [{ topic: input, partitions: [{ partition: 0, offset: String(PROCESSED_BEFORE) }] }] });
    return transaction;
  };

  const committedOffset = async (admin: KafkaAdmin, applicationId: string, input: string) => {
    const [topic] = await admin.fetchOffsets({ groupId: applicationId, topics: [input] });
    return Number(topic?.partitions.find((p) => p.partition === 0)?.offset ?? -1);
  };

  /** The output as a read_committed consumer sees it: every key once, each key's record committed by one transaction. */
  const committedOutput = async (output: string) => {
    const consumer = await clients.consumer({ groupId: uniqueName('stable-check'), isolationLevel: 'read_committed' });
    return (await consumeUntil(consumer, output, LINES)).map((r) => r.key);
  };

  it(
    "waits for another producer's pending offset commit to end, and starts after the offsets it committed",
    async () => {
      const { input, output, applicationId, admin, instance, processed } = await setUp();
      const transaction = await pendingTransaction(uniqueName('previous-owner'), applicationId, input, output);
      await instance.start();
      await waitFor(
        async () => {
          const [group] = (await admin.describeGroups([applicationId])).groups;
          return group?.state === 'Stable' && group.members.length === 1;
        },
        'the instance to join its group',
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, AFTER_JOIN_MS));
      await transaction.commit();

      await waitFor(() => processed.includes(key(LINES - 1)), 'the last record to be processed', 30_000);
      expect(processed).toEqual(keys(PROCESSED_BEFORE, LINES));
      await waitFor(async () => (await committedOffset(admin, applicationId, input)) === LINES, 'the task to commit the input to its end', 30_000);
      expect(await committedOutput(output)).toEqual(keys(0, LINES));
      await instance.close();
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    "has the task's own previous producer's pending transaction aborted, and starts where the offsets stood before it",
    async () => {
      const { input, output, applicationId, admin, instance, processed } = await setUp();
      // The id of the task's producer (<application.id>-<taskId>): the task's producer fences it and aborts its transaction.
      await pendingTransaction(`${applicationId}-0_0`, applicationId, input, output);
      const started = Date.now();
      await instance.start();
      await waitFor(() => processed.includes(key(LINES - 1)), 'the last record to be processed', 30_000);
      // Long before the transaction's 60 s timeout: the stable read comes after the abort, not before it.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(processed).toEqual(keys(0, LINES));
      await waitFor(async () => (await committedOffset(admin, applicationId, input)) === LINES, 'the task to commit the input to its end', 30_000);
      expect(await committedOutput(output)).toEqual(keys(0, LINES));
      await instance.close();
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
