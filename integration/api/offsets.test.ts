/**
 * Offsets and lag: records produced while the instance is stopped show as lag once it is back, spread over the
 * partitions as they were produced; after it runs, lag falls to 0 and the committed offsets reach the log end.
 */
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { TestNode, wordCountDefinition } from './support/node';

jest.setTimeout(2 * BROKER_TEST_TIMEOUT_MS);

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

it('a backlog of 1 000 records produced while stopped shows as lag while it is worked off, then 0 with committed = log end', async () => {
  const input = uniqueName('api-lag-in');
  const output = uniqueName('api-lag-out');
  const id = uniqueName('api-lag');
  await createTopics(await clients.admin(), [
    { name: input, partitions: 3 },
    { name: output, partitions: 3 },
  ]);
  // Fetches of a few records: the backlog takes many fetches to work off, so the route can be seen showing it (tasks
  // process as soon as they are assigned, restored or not, and one fetch would take the whole backlog at once).
  const node = await TestNode.start({
    topologies: [wordCountDefinition(input, output)],
    instances: [{ topology: 'word-count', applicationId: id, config: { 'max.partition.fetch.bytes': 128 } }],
  });
  const offsets = async () => (await node.get(`/api/v1/streams/${id}/offsets`)).json() as Offsets;
  const inputPositions = (o: Offsets) => o.consumers.flatMap((c) => c.positions).filter((p) => p.topic === input);
  try {
    await node.waitForState(id, 'RUNNING');
    const producer = await clients.producer();
    // One record per partition first, so that every partition has a committed offset before the stop.
    await producer.send({ topic: input, messages: [0, 1, 2].map((partition) => ({ partition, value: 'warm up' })) });
    await waitFor(async () => inputPositions(await offsets()).filter((p) => p.committed_offset === p.log_end_offset).length === 3, 'the warm-up committed');

    expect((await node.call('DELETE', `/api/v1/streams/${id}/stop`)).json()).toEqual({ id, state: 'STOPPED' });
    expect(await offsets()).toEqual({ group: id, consumers: [] });

    const produced = [500, 300, 200];
    // In sends of 10: a fetch brings one record batch whole, whatever its size limit.
    for (const [partition, count] of produced.entries()) {
      for (let from = 0; from < count; from += 10) {
        await producer.send({ topic: input, messages: Array.from({ length: 10 }, (_, i) => ({ partition, value: `line ${from + i} of ${partition}` })) });
      }
    }

    // Watch the offsets from the moment of the restart: the first view of the three partitions shows the backlog.
    const seen: Position[][] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const positions = inputPositions(await offsets());
        if (positions.length === 3) seen.push(positions);
      }
    })();
    expect((await node.call('POST', `/api/v1/streams/${id}/restart`)).status).toBe(200);
    await node.waitForState(id, 'RUNNING');
    await waitFor(
      async () => {
        const positions = [...(await offsets()).consumers.flatMap((c) => c.positions)];
        return positions.length > 0 && positions.every((p) => p.lag === 0 && p.committed_offset === p.log_end_offset);
      },
      'lag 0 and committed = log end on every partition',
    );
    watching = false;
    await watcher;

    // A view of the backlog being worked off: every partition behind, by log end - consumed - 1, at most what was produced.
    const behind = seen.find((positions) => positions.every((p) => p.lag > 0));
    expect(behind).toBeDefined();
    for (const p of behind!) {
      expect(p.lag).toBe(p.log_end_offset - p.consumed_offset - 1);
      expect(p.lag).toBeLessThanOrEqual(produced[p.partition]!);
      expect(p.log_end_offset).toBe(produced[p.partition]! + 1);
    }

    const final = inputPositions(await offsets()).sort((a, b) => a.partition - b.partition);
    expect(final.map((p) => [p.lag, p.log_end_offset, p.committed_offset])).toEqual(produced.map((n) => [0, n + 1, n + 1]));
    for (const p of final) expect(p.consumed_offset).toBe(p.log_end_offset - 1);
  } finally {
    await node.stop();
  }
});
