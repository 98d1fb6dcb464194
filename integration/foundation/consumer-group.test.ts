import { createTopics, type KafkaConsumer } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

/** Follows the partitions of `topic` that a member holds, as of its latest join. */
function trackAssignment(consumer: KafkaConsumer, topic: string): () => number[] {
  let partitions: number[] = [];
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    partitions = [...(payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b);
  });
  return () => partitions;
}

async function eventually(condition: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not reached within ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('splits 6 partitions between two members of a group, and each member gets records only from its own', async () => {
  const topic = uniqueName('group');
  const groupId = uniqueName('group');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 6 }]);

  const members = [await clients.consumer({ groupId }), await clients.consumer({ groupId })];
  const assignments = members.map((member) => trackAssignment(member, topic));
  const receivedFrom = members.map(() => new Set<number>());
  for (const [i, member] of members.entries()) {
    await member.subscribe({ topics: [topic], fromBeginning: true });
    await member.run({ eachMessage: async ({ partition }) => void receivedFrom[i]!.add(partition) });
  }

  const split = () => {
    const [a, b] = assignments.map((assignment) => assignment());
    return a!.length > 0 && b!.length > 0 && [...a!, ...b!].sort().join() === '0,1,2,3,4,5';
  };
  await eventually(split, 30_000, () => `assignments ${JSON.stringify(assignments.map((a) => a()))}`);
  const [first, second] = assignments.map((assignment) => assignment());
  expect(first!.filter((p) => second!.includes(p))).toEqual([]);
  expect([...first!, ...second!].sort()).toEqual([0, 1, 2, 3, 4, 5]);

  const producer = await clients.producer();
  await producer.send({ topic, messages: [0, 1, 2, 3, 4, 5].map((partition) => ({ partition, value: `to ${partition}` })) });
  await eventually(
    () => receivedFrom[0]!.size + receivedFrom[1]!.size === 6,
    30_000,
    () => `received from ${JSON.stringify(receivedFrom.map((s) => [...s]))}`,
  );
  expect([...receivedFrom[0]!].sort()).toEqual(first);
  expect([...receivedFrom[1]!].sort()).toEqual(second);
});
