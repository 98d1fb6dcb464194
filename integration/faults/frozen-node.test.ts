/**
 * A node frozen (SIGSTOP) for longer than session.timeout.ms while input arrives, then resumed. The group moves
 * its tasks to the other node meanwhile; once resumed, it must find out that it lost them and not write as a
 * zombie (under exactly-once its producers are fenced by the new owner's), then re-join. Under exactly_once_v2
 * every word ends counted exactly as often as the input holds it, on the output topic read committed and in the
 * stores; under at_least_once none less.
 */
import * as path from 'node:path';
import { BROKER_TEST_TIMEOUT_MS, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, waitFor } from '../support/streams';
import type { InstanceProcess } from '../runtime/support/instance-process';
import { WordCountProcesses } from '../runtime/support/word-count-processes';
import { FAULT_GUARANTEES } from './support/guarantees';
import { bothHoldTasks, holdsAll, nodeLogs, SteadyInput } from './support/two-nodes';

const PARTITIONS = 4;
const FIRST = 2_000;
const TOTAL = 5_000;
const SESSION_TIMEOUT_MS = 6_000;

describe.each(FAULT_GUARANTEES)('a node frozen past its session timeout under %s', (guarantee) => {
  const app = new WordCountProcesses(`frozen-${guarantee === 'exactly_once_v2' ? 'eos' : 'alos'}`);
  afterAll(() => app.cleanUp(), 30_000);

  it(
    'loses its tasks while frozen, re-joins when resumed, and nothing is lost (or, under exactly-once, doubled)',
    async () => {
      const { clients, input, output, workDir } = app;
      await app.createTopics(PARTITIONS);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, FIRST);
      const start = (name: string) =>
        app.start(name, {
          'processing.guarantee': guarantee,
          'state.dir': path.join(workDir, name, 'state'),
          'commit.interval.ms': 300,
          'session.timeout.ms': SESSION_TIMEOUT_MS,
          'heartbeat.interval.ms': 1000,
        });
      const a = start('node-a');
      const b = start('node-b');
      // What each node went through, printed when the test fails.
      try {
        /** The host map as `node` sees it: the number of input and repartition partitions each node holds. */
        await waitFor(() => bothHoldTasks([a, b]), 'both nodes running with tasks of their own', 60_000);

        const rest = new SteadyInput(producer, input, FIRST, TOTAL);
        await waitFor(() => rest.sent >= FIRST + 500, 'input to be arriving', 30_000);
        const frozen: InstanceProcess = b;
        process.kill(frozen.pid!, 'SIGSTOP');
        try {
          // The group notices the silent member and hands its tasks to the other node.
          await waitFor(() => holdsAll(a, 2 * PARTITIONS), 'node-a to hold every partition', 60_000);
        } finally {
          process.kill(frozen.pid!, 'SIGCONT');
        }
        await rest.done;
        await waitFor(() => bothHoldTasks([a, b]), 'the resumed node to re-join and hold tasks again', 90_000);

        const expected = expectedCounts(TOTAL);
        const consumer = await clients.consumer({ groupId: uniqueName('frozen-check'), isolationLevel: 'read_committed' });
        const published = await latestCounts(consumer, output, (counts) => [...expected].every(([word, n]) => (counts.get(word) ?? 0) >= n), 90_000);
        // Each word lives in the store of the one node that owns its partition now.
        let stores = new Map<string, number>();
        await waitFor(
          async () => {
            stores = new Map([...(await a.storeCounts()), ...(await b.storeCounts())]);
            return [...expected].every(([word, n]) => (stores.get(word) ?? 0) >= n);
          },
          'every word counted in the stores',
          60_000,
        );
        if (guarantee === 'exactly_once_v2') {
          expect(Object.fromEntries(published)).toEqual(Object.fromEntries(expected));
          expect(Object.fromEntries(stores)).toEqual(Object.fromEntries(expected));
        } else {
          const under = (counts: Map<string, number>) => [...expected].filter(([word, n]) => (counts.get(word) ?? 0) < n);
          expect(under(published)).toEqual([]);
          expect(under(stores)).toEqual([]);
        }
        expect([a.errors, b.errors]).toEqual([[], []]);
      } catch (error) {
        process.stderr.write(`${nodeLogs([a, b])}\n`);
        throw error;
      }
    },
    BROKER_TEST_TIMEOUT_MS + 120_000,
  );
});
