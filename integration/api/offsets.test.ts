/**
 * Offsets and lag: records produced while the instance is stopped show as lag once it is back, spread over the
 * partitions as they were produced; after it runs, lag falls to 0 and the committed offsets reach the log end.
 *
 * The backlog is visible between the restart's assignment and the first records processed. To make that window
 * wide enough to watch, the stop cleans up the local state: the restart then restores a large changelog first,
 * and the input partitions wait (paused) until it is done.
 */
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { TestNode, wordCountDefinition } from './support/node';

jest.setTimeout(3 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

interface Position {
  topic: string;
  partition: number;
  consumed_offset: number;
  committed_offset: number;
  log_end_offset: number;
  lag: number;
}

interface Offsets {
  group: string;
  consumers: { positions: Position[] }[];
}

const PARTITIONS = 3;
/** Distinct words before the stop: each is a changelog record to restore. */
const WARM_UP_WORDS = 30_000;
const BACKLOG = [500, 300, 200];

it('lag of 1 000 records produced while stopped, then 0 with committed = log end', async () => {
  const input = uniqueName('api-lag-in');
  const output = uniqueName('api-lag-out');
  const id = uniqueName('api-lag');
  await createTopics(await clients.admin(), [
    { name: input, partitions: PARTITIONS },
    { name: output, partitions: PARTITIONS },
  ]);
  const node = await TestNode.start({ topologies: [wordCountDefinition(input, output)], instances: [{ topology: 'word-count', applicationId: id }] });
  const allPositions = async () => ((await node.get(`/api/v1/streams/${id}/offsets`)).json() as Offsets).consumers.flatMap((c) => c.positions);
  const inputPositions = async () => (await allPositions()).filter((p) => p.topic === input).sort((a, b) => a.partition - b.partition);
  const caughtUp = async () => {
    const positions = await allPositions();
    return positions.length > PARTITIONS && positions.every((p) => p.lag === 0 && p.committed_offset === p.log_end_offset);
  };
  try {
    await node.waitForState(id, 'RUNNING');
    const producer = await clients.producer();
    for (let start = 0; start < WARM_UP_WORDS; start += 5000) {
      await producer.send({
        topic: input,
        messages: Array.from({ length: 5000 }, (_, i) => ({ partition: (start + i) % PARTITIONS, value: `w${start + i}` })),
      });
    }
    await waitFor(caughtUp, 'the warm-up processed and committed', 120_000);

    expect((await node.call('DELETE', `/api/v1/streams/${id}/stop`, { cleanup: true })).json()).toEqual({ id, state: 'STOPPED' });
    expect((await node.get(`/api/v1/streams/${id}/offsets`)).json()).toEqual({ group: id, consumers: [] });
    const before = new Map<number, number>();
    const admin = await clients.admin();
    for (const { partition, high } of await admin.fetchTopicOffsets(input)) before.set(partition, Number(high));
    for (const [partition, count] of BACKLOG.entries()) {
      await producer.send({ topic: input, messages: Array.from({ length: count }, (_, i) => ({ partition, value: `backlog ${i}` })) });
    }

    // Watch the offsets from the restart on.
    const seen: Position[][] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const positions = await inputPositions();
        if (positions.length === PARTITIONS) seen.push(positions);
      }
    })();
    expect((await node.call('POST', `/api/v1/streams/${id}/restart`)).status).toBe(200);
    await node.waitForState(id, 'RUNNING');
    await waitFor(caughtUp, 'lag 0 and committed = log end on every partition', 120_000);
    watching = false;
    await watcher;

    const backlog = seen.find((positions) => positions.reduce((sum, p) => sum + p.lag, 0) === 1000);
    expect({ backlog: backlog?.map((p) => p.lag), first: seen[0]?.map((p) => p.lag) }).toEqual({ backlog: BACKLOG, first: expect.anything() });

    const final = await inputPositions();
    for (const p of final) {
      expect([p.partition, p.lag, p.log_end_offset, p.committed_offset]).toEqual([
        p.partition,
        0,
        before.get(p.partition)! + BACKLOG[p.partition]!,
        before.get(p.partition)! + BACKLOG[p.partition]!,
      ]);
      expect(p.consumed_offset).toBe(p.log_end_offset - 1);
    }
  } finally {
    await node.stop();
  }
});
