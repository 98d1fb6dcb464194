/**
 * Restart and stop (with and without cleanup) through the API move the instance through the right states, seen in
 * `GET .../{id}` and in the `state` event stream; with cleanup the state directory is gone and the next start
 * restores the store from its changelog.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { EventSubscription } from './support/sse';
import { TestNode, wordCountDefinition } from './support/node';

const TIMEOUT_MS = 4 * BROKER_TEST_TIMEOUT_MS;
jest.setTimeout(TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

/** Whether `wanted` occurs in `seen` in this order (other states may come between). */
function inOrder(seen: readonly string[], wanted: readonly string[]): boolean {
  let next = 0;
  for (const state of seen) if (state === wanted[next]) next += 1;
  return next === wanted.length;
}

it('restart, stop, stop with cleanup and restore from the changelog, through the API and the state stream', async () => {
  const input = uniqueName('api-life-in');
  const output = uniqueName('api-life-out');
  const id = uniqueName('api-life');
  await createTopics(await clients.admin(), [
    { name: input, partitions: 2 },
    { name: output, partitions: 2 },
  ]);
  const node = await TestNode.start({ topologies: [wordCountDefinition(input, output)], instances: [{ topology: 'word-count', applicationId: id }] });
  const countOf = async (word: string): Promise<number | undefined> => {
    const answer = await node.call('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}`, {
      type: 'key_value',
      query: { get: { key: word } },
    });
    if (answer.status !== 200) return undefined;
    const records = (answer.json() as { result: { success: { records: { value: number }[] }[] } }).result.success.flatMap((p) => p.records);
    return records[0]?.value;
  };
  const events = await EventSubscription.open(`${node.url}/api/v1/streams/${id}/subscribe/state`);
  try {
    // The current state first, whatever it is by now.
    await events.waitFor((frames) => frames.length >= 1, 'the first state event');
    expect(events.frames[0]).toEqual({ event: 'state', id: 1, data: expect.objectContaining({ state: expect.any(String), since: expect.stringMatching(/Z\[UTC\]$/) }) });
    await node.waitForState(id, 'RUNNING');
    await events.waitFor((frames) => frames.some((f) => f.data.state === 'RUNNING'), 'RUNNING in the stream');

    const producer = await clients.producer();
    await producer.send({ topic: input, messages: Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: `kafka word${i % 10}` })) });
    await waitFor(async () => (await countOf('kafka')) === 200, 'kafka counted 200 times');

    // Restart: asynchronous, through PENDING_SHUTDOWN, NOT_RUNNING, CREATED, REBALANCING back to RUNNING.
    let mark = events.states().length;
    const restart = await node.call('POST', `/api/v1/streams/${id}/restart`);
    expect(restart.status).toBe(200);
    expect(restart.json()).toEqual({ id, state: expect.stringMatching(/^(RUNNING|PENDING_SHUTDOWN)$/) });
    await events.waitFor(
      () => inOrder(events.states().slice(mark), ['PENDING_SHUTDOWN', 'NOT_RUNNING', 'CREATED', 'REBALANCING', 'RUNNING']),
      'the restart states',
    );
    expect(await node.state(id)).toBe('RUNNING');
    expect(await countOf('kafka')).toBe(200);

    // Stop without cleanup: STOPPED, still listed, local state kept.
    mark = events.states().length;
    const stop = await node.call('DELETE', `/api/v1/streams/${id}/stop`, { cleanup: false });
    expect([stop.status, stop.json()]).toEqual([200, { id, state: 'STOPPED' }]);
    expect(await node.state(id)).toBe('STOPPED');
    await events.waitFor(() => inOrder(events.states().slice(mark), ['PENDING_SHUTDOWN', 'NOT_RUNNING', 'STOPPED']), 'the stop states');
    const appDir = path.join(node.stateDir, id);
    expect(fs.readdirSync(appDir).some((entry) => /^\d+_\d+$/.test(entry))).toBe(true);
    expect((await node.get('/api/v1/streams')).json()).toEqual([id]);

    // Restart from STOPPED.
    mark = events.states().length;
    expect((await node.call('POST', `/api/v1/streams/${id}/restart`)).status).toBe(200);
    await node.waitForState(id, 'RUNNING');
    await events.waitFor(() => inOrder(events.states().slice(mark), ['CREATED', 'REBALANCING', 'RUNNING']), 'the states from STOPPED');
    await waitFor(async () => (await countOf('kafka')) === 200, 'the count kept across the stop');

    // Stop with cleanup (POST, Azkarra's spelling): the state directory is gone.
    mark = events.states().length;
    const cleanStop = await node.call('POST', `/api/v1/streams/${id}/stop`, { cleanup: true });
    expect(cleanStop.json()).toEqual({ id, state: 'STOPPED' });
    await events.waitFor(() => inOrder(events.states().slice(mark), ['NOT_RUNNING', 'STOPPED']), 'the cleanup stop states');
    expect(fs.existsSync(appDir) ? fs.readdirSync(appDir).filter((entry) => /^\d+_\d+$/.test(entry)) : []).toEqual([]);

    // The next start restores the store from the changelog: every record of it, and the counts are back.
    const restores = await EventSubscription.open(`${node.url}/api/v1/streams/${id}/subscribe/restore`);
    try {
      expect((await node.call('POST', `/api/v1/streams/${id}/restart`)).status).toBe(200);
      await node.waitForState(id, 'RUNNING');
      expect(await countOf('kafka')).toBe(200);
      const done = restores.frames.filter((f) => f.data.done === true);
      const restored = done.reduce((sum, f) => sum + Number(f.data.restored), 0);
      expect(restored).toBeGreaterThan(0);
      for (const frame of restores.frames) {
        expect(Object.keys(frame.data).sort()).toEqual(['done', 'partition', 'remaining', 'restored', 'store', 'topic', 'total']);
      }
      const stores = (await node.get(`/api/v1/streams/${id}/stores`)).json() as { last_restoration?: { total_restored: number } }[];
      expect(stores.reduce((sum, s) => sum + (s.last_restoration?.total_restored ?? 0), 0)).toBe(restored);
    } finally {
      restores.close();
    }
  } finally {
    events.close();
    await node.stop();
  }
});
