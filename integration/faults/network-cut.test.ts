/**
 * The network between one node and the broker cut for longer than session.timeout.ms while input arrives, then
 * restored. The node runs on a network host of its own (a namespace, reaching the broker through its link); the
 * other node keeps the broker. The group gives the cut-off node's tasks to the other; once the link is back the
 * node must find out it lost them and not write as a zombie (under exactly-once the new owner's producers have
 * fenced its own), then re-join. Under exactly_once_v2 every word ends counted exactly as often as the input holds
 * it, on the output topic read committed and in the stores; under at_least_once processing goes on (see below).
 */
import * as path from 'node:path';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, latestCounts, produceLines, waitFor } from '../support/streams';
import { BrokerRelays, brokerUnreachable } from '../deploy/support/host-node';
import { TestNetwork } from '../deploy/support/network';
import { WordCountProcesses } from '../runtime/support/word-count-processes';
import { FAULT_GUARANTEES } from './support/guarantees';
import { bothHoldTasks, holdsAll, nodeLogs, SteadyInput } from './support/two-nodes';

const PARTITIONS = 4;
const FIRST = 2_000;
const TOTAL = 5_000;
const SESSION_TIMEOUT_MS = 6_000;
/** Longer than the session: the group drops the cut-off member. */
const CUT_MS = 15_000;

const skipped = TestNetwork.unavailable() ?? brokerUnreachable(bootstrapServers());
if (skipped) process.stderr.write(`network-cut test: skipped, ${skipped}\n`);
const describeIfHosts = skipped ? describe.skip : describe;

describeIfHosts.each(FAULT_GUARANTEES)('the network between a node and the broker cut past the session timeout under %s', (guarantee) => {
  const app = new WordCountProcesses(`cut-${guarantee === 'exactly_once_v2' ? 'eos' : 'alos'}`);
  let network: TestNetwork | undefined;
  let relays: BrokerRelays | undefined;
  afterAll(async () => {
    try {
      await app.cleanUp();
    } finally {
      relays?.stop();
      network?.destroy();
    }
  }, 30_000);

  it(
    'loses its tasks while cut off, re-joins when the link is back, and nothing is lost (or, under exactly-once, doubled)',
    async () => {
      network = TestNetwork.create(['cut-host']);
      relays = await BrokerRelays.start(network, bootstrapServers());
      const host = network.hosts[0]!;
      const { clients, input, output, workDir } = app;
      await app.createTopics(PARTITIONS);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, FIRST);
      const config = (name: string) => ({
        'processing.guarantee': guarantee,
        'state.dir': path.join(workDir, name, 'state'),
        'commit.interval.ms': 300,
        'session.timeout.ms': SESSION_TIMEOUT_MS,
        'heartbeat.interval.ms': 1000,
      });
      const a = app.start('node-a', config('node-a'));
      const b = app.start('node-b', config('node-b'), (command, args, options) => network!.spawn(host, command, args, options));
      try {
        await waitFor(() => bothHoldTasks([a, b]), 'both nodes running with tasks of their own', 90_000);

        const rest = new SteadyInput(producer, input, FIRST, TOTAL);
        await waitFor(() => rest.sent >= FIRST + 500, 'input to be arriving', 30_000);
        const cutAt = Date.now();
        network.cut(host);
        try {
          // The group drops the silent member and hands its tasks to the node that still reaches the broker.
          await waitFor(() => holdsAll(a, 2 * PARTITIONS), 'node-a to hold every partition', 60_000);
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, CUT_MS - (Date.now() - cutAt))));
        } finally {
          network.restore(host);
        }
        await rest.done;
        await waitFor(() => bothHoldTasks([a, b]), 'the node cut off to re-join and hold tasks again', 120_000);

        const expected = expectedCounts(TOTAL);
        const consumer = await clients.consumer({ groupId: uniqueName('cut-check'), isolationLevel: 'read_committed' });
        const under = (counts: Map<string, number>) => [...expected].filter(([word, n]) => (counts.get(word) ?? 0) < n);
        if (guarantee === 'exactly_once_v2') {
          const published = await latestCounts(consumer, output, (counts) => under(counts).length === 0, 90_000);
          let stores = new Map<string, number>();
          await waitFor(
            async () => {
              stores = new Map([...(await a.storeCounts()), ...(await b.storeCounts())]);
              return under(stores).length === 0;
            },
            'every word counted in the stores',
            60_000,
          );
          expect(Object.fromEntries(published)).toEqual(Object.fromEntries(expected));
          expect(Object.fromEntries(stores)).toEqual(Object.fromEntries(expected));
        } else {
          // Under at-least-once a produce request the cut-off node had on the wire when the link went down reaches
          // the broker when it comes back, after the new owner's writes, and nothing fences it: a changelog can be
          // set back, and the counts after it with it (Kafka Streams has the same gap; exactly-once closes it). What
          // is checked is that processing goes on: every word reaches the output topic after the link is back.
          const published = await latestCounts(consumer, output, (counts) => [...expected.keys()].every((word) => counts.has(word)), 90_000);
          expect([...expected.keys()].filter((word) => !published.has(word))).toEqual([]);
          process.stderr.write(`network cut, at-least-once: ${under(published).length} of ${expected.size} words counted short on the output topic\n`);
        }
        // The cut-off node went through a rebalance and came back; neither node failed.
        expect(b.states.map((change) => change.state)).toContain('REBALANCING');
        expect([a.errors, b.errors, a.state, b.state]).toEqual([[], [], 'RUNNING', 'RUNNING']);
      } catch (error) {
        process.stderr.write(`${nodeLogs([a, b])}\n`);
        throw error;
      }
    },
    BROKER_TEST_TIMEOUT_MS + 180_000,
  );
});
