/**
 * Issue 14, static membership (KIP-345): two word-count processes with `group.instance.id`. One is closed and
 * started again within session.timeout.ms, on the same state directory: it gets its tasks back and the other
 * node never rebalances (no REBALANCING state, no new assignment), and every line ends up counted.
 */
import * as path from 'node:path';
import { BROKER_TEST_TIMEOUT_MS } from '../support/kafka';
import { expectedCounts, produceLines, waitFor } from '../support/streams';
import { describeLog } from './support/kafka-streams-states';
import { WordCountProcesses } from './support/word-count-processes';

const PARTITIONS = 4;
const LINES = 3_000;
const SESSION_TIMEOUT_MS = 30_000;

describe('static membership, one of two processes restarted within the session timeout', () => {
  const app = new WordCountProcesses('static');
  afterAll(() => app.cleanUp(), 30_000);

  it(
    'the restarted node gets its tasks back and the other never rebalances',
    async () => {
      const { input, workDir, clients } = app;
      await app.createTopics(PARTITIONS);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);
      const start = (name: string) =>
        app.start(name, {
          'group.instance.id': name,
          'state.dir': path.join(workDir, name, 'state'),
          'session.timeout.ms': SESSION_TIMEOUT_MS,
          'heartbeat.interval.ms': 2000,
          'commit.interval.ms': 300,
        });
      const a = start('node-a');
      await waitFor(() => a.state === 'RUNNING', 'node-a to run', 60_000);
      let b = start('node-b');
      const nodes = () => [a, b];
      const logs = () => nodes().map((c) => `--- ${c.name} (${c.exit}): ${describeLog(c.states)}\nrebalances ${JSON.stringify(c.rebalances)}\n${c.tail()}`).join('\n');
      const bothHold = async () => {
        for (const node of nodes()) if (node.state !== 'RUNNING') return false;
        const held = (await a.metadata()).map((m) => m.topicPartitions.length);
        return held.length === 2 && held.every((n) => n > 0);
      };
      const counted = async (lines: number) => {
        const stores = new Map([...(await a.storeCounts()), ...(await b.storeCounts())]);
        return [...expectedCounts(lines)].every(([word, n]) => stores.get(word) === n);
      };
      try {
        await waitFor(bothHold, 'both nodes running with tasks of their own', 90_000);
        await waitFor(() => counted(LINES), 'the first lines counted', 60_000);
        const tasksOfB = (await b.threads()).flatMap((t) => t.activeTasks.map((task) => task.taskId)).sort();

        const statesBefore = a.states.length;
        const rebalancesBefore = a.rebalances.length;
        const restartedAt = Date.now();
        await b.stop();
        b = start('node-b');
        await waitFor(() => b.state === 'RUNNING', 'node-b to run again', 60_000);
        expect(Date.now() - restartedAt).toBeLessThan(SESSION_TIMEOUT_MS);
        await produceLines(producer, input, LINES, 2 * LINES);
        await waitFor(() => counted(2 * LINES), 'every line counted after the restart', 60_000);

        expect((await b.threads()).flatMap((t) => t.activeTasks.map((task) => task.taskId)).sort()).toEqual(tasksOfB);
        expect(a.states.slice(statesBefore).map((c) => c.state)).toEqual([]);
        expect(a.rebalances.slice(rebalancesBefore)).toEqual([]);
        expect([a.errors, b.errors]).toEqual([[], []]);
        process.stderr.write(`static membership: node-b closed and back to RUNNING in ${Date.now() - restartedAt} ms; node-a saw no rebalance\n`);
      } catch (error) {
        process.stderr.write(`${logs()}\n`);
        throw error;
      }
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );
});
