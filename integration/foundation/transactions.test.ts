import { createTopics, fetchTopicOffsets } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, consumeUntil, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

it('shows a read_committed consumer the committed batch and never the aborted one', async () => {
  const admin = await clients.admin();
  const topic = uniqueName('transactions');
  await createTopics(admin, [{ name: topic, partitions: 1 }]);
  const producer = await clients.transactionalProducer({ transactionalId: uniqueName('sluice-test-tx') });

  // Aborted first, so that the committed records sit after it in the log and reading them means reading past it.
  const aborted = await producer.transaction();
  await aborted.send({ topic, messages: [1, 2, 3, 4, 5].map((i) => ({ key: `k${i}`, value: `aborted-${i}` })) });
  await aborted.abort();
  const committed = await producer.transaction();
  await committed.send({ topic, messages: [1, 2, 3, 4, 5].map((i) => ({ key: `k${i}`, value: `committed-${i}` })) });
  await committed.commit();

  const readCommitted = await consumeUntil(
    await clients.consumer({ groupId: uniqueName('read-committed'), isolationLevel: 'read_committed' }),
    topic,
    5,
  );
  expect(readCommitted.map((r) => r.value)).toEqual([1, 2, 3, 4, 5].map((i) => `committed-${i}`));

  // The aborted records are really in the log: a read_uncommitted consumer (the default) sees all ten.
  const readUncommitted = await consumeUntil(await clients.consumer({ groupId: uniqueName('read-uncommitted') }), topic, 10);
  expect(readUncommitted.map((r) => r.value)).toEqual([
    ...[1, 2, 3, 4, 5].map((i) => `aborted-${i}`),
    ...[1, 2, 3, 4, 5].map((i) => `committed-${i}`),
  ]);

  // Five data records and one marker per transaction.
  expect(await fetchTopicOffsets(admin, topic)).toEqual([{ partition: 0, earliest: 0, latest: 12 }]);
});
