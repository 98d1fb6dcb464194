import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, consumeUntil, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

/** The same pairs as src/streams/kafka/murmur2.test.ts, computed by the Java client's Utils.murmur2. */
const JAVA_PLACEMENT_OF_6: ReadonlyArray<{ key: string; partition: number }> = [
  { key: '', partition: 3 },
  { key: 'a', partition: 4 },
  { key: 'hello', partition: 3 },
  { key: 'sluice', partition: 1 },
  { key: 'word-42', partition: 1 },
  { key: 'key-0001', partition: 2 },
  { key: 'Grüße, 世界 🌍', partition: 4 },
  { key: 'The quick brown fox jumps over the lazy dog. '.repeat(5), partition: 5 },
];

const clients = new KafkaTestClients();
afterAll(() => clients.close());

it('puts each keyed record on the partition the Java client picks', async () => {
  const topic = uniqueName('placement');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 6 }]);

  const producer = await clients.producer();
  const metadata = await producer.send({
    topic,
    messages: JAVA_PLACEMENT_OF_6.map(({ key }) => ({ key: Buffer.from(key, 'utf8'), value: key })),
  });
  // The broker acknowledges one entry per partition written to.
  expect(metadata.map((m) => m.partition).sort()).toEqual([...new Set(JAVA_PLACEMENT_OF_6.map((c) => c.partition))].sort());

  const records = await consumeUntil(await clients.consumer({ groupId: uniqueName('placement') }), topic, JAVA_PLACEMENT_OF_6.length);
  const partitionOf = new Map(records.map((r) => [r.value, r.partition]));
  for (const { key, partition } of JAVA_PLACEMENT_OF_6) {
    expect({ key, partition: partitionOf.get(key) }).toEqual({ key, partition });
  }
});
