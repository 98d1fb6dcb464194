/**
 * Interactive queries read through the caching layer (Kafka Streams' caching stores): a count is answered as soon
 * as the record is processed, long before the commit that would write the cache to the store below and downstream.
 */
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { TestNode, wordCountDefinition } from './support/node';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const input = uniqueName('fresh-reads-in');
const output = uniqueName('fresh-reads-out');
const id = uniqueName('fresh-reads');
let node: TestNode;

beforeAll(async () => {
  await createTopics(await clients.admin(), [
    { name: input, partitions: 2 },
    { name: output, partitions: 2 },
  ]);
  node = await TestNode.start({
    topologies: [wordCountDefinition(input, output)],
    instances: [{ topology: 'word-count', applicationId: id }],
    streams: { 'commit.interval.ms': 60_000, 'statestore.cache.max.bytes': 10 * 1024 * 1024 },
  });
  await node.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await node?.stop();
  await clients.close();
});

async function countOf(word: string): Promise<number | undefined> {
  const answer = await node.call('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}/records`, { type: 'key_value', query: { get: { key: word } } });
  expect(answer.status).toBe(200);
  return (answer.json() as { value: number }[])[0]?.value;
}

/** Offsets the application's group has committed on its input: none until the first commit. */
async function committedInputOffsets(): Promise<string[]> {
  const [committed] = await (await clients.admin()).fetchOffsets({ groupId: id, topics: [input] });
  return (committed?.partitions ?? []).map((p) => p.offset).filter((offset) => offset !== '-1');
}

it('answers a query with the values just processed, before any commit (commit.interval.ms 60 000, cache on)', async () => {
  const producer = await clients.producer();
  await producer.send({ topic: input, messages: [{ value: 'fresh kafka' }, { value: 'kafka streams' }, { value: 'fresh reads' }] });
  await waitFor(async () => (await countOf('kafka')) === 2, 'kafka counted twice', 30_000);
  expect(await countOf('fresh')).toBe(2);
  expect(await countOf('streams')).toBe(1);

  await producer.send({ topic: input, messages: [{ value: 'kafka kafka' }] });
  await waitFor(async () => (await countOf('kafka')) === 4, 'kafka counted four times', 30_000);

  // Nothing was committed yet: no input offsets, and the counts are still in the cache, not downstream.
  expect(await committedInputOffsets()).toEqual([]);
  const consumer = await clients.consumer({ groupId: uniqueName('fresh-reads-check') });
  await consumer.subscribe({ topics: [output], fromBeginning: true });
  let outputRecords = 0;
  await consumer.run({
    eachMessage: async () => {
      outputRecords++;
    },
  });
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await consumer.stop();
  expect(outputRecords).toBe(0);
});
