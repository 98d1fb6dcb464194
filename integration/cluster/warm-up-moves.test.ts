/**
 * Issue 14, warm-up moves (KIP-441) on real processes: a third `sluice start` node joins a running two-node
 * cluster whose store is far more than `acceptable.recovery.lag` records per partition. It first gets warm-up
 * replicas only (there are no standby replicas configured: every standby it holds is a warm-up), the partitions
 * staying with the nodes that run them; the probing rebalance after `probing.rebalance.interval.ms` (Kafka
 * Streams' minimum, one minute) then moves them. Meanwhile `get`s for every partition go on through the first two
 * nodes, and none fails. They ride out a rebalance as a Kafka Streams client retries InvalidStateStoreException:
 * `retries` 5, 100 ms apart (a cold move of these partitions restores in well under that, so the retries do not
 * hide a missing warm-up: the assignment shows it).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RebalanceTimelineEntry, Timeline } from '../../src/client';
import { KV_STORE } from './fixtures/cluster-topology';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from './support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const PARTITIONS = 6;
/** 10 000 records a partition, ten times the acceptable lag below. */
const KEYS = 60_000;
const ACCEPTABLE_LAG = 1_000;
const PROBING_INTERVAL_MS = 60_000;
/** Between two gets of the query loop. */
const QUERY_PAUSE_MS = 3;
const keyOf = (i: number) => `key-${String(i).padStart(5, '0')}`;
const valueOf = (i: number) => `value-${i}`;

interface QueryResult {
  status: string;
  took: number;
  result: { success: { server: string; records: { key: string; value: string }[] }[]; failure: { server: string; errors: { message: string }[] }[] };
}
interface Assignment {
  name: string;
  partitions: number[];
}
interface ApplicationRecord {
  instances: { endpoint?: { address: string; port: number }; metadata: { assignments: Assignment[]; standbyAssignments: Assignment[] } }[];
}

describe('a third node joining a two-node cluster with a large store', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('warmup');
  const input = uniqueName('warmup-in');
  const nodes: SluiceNode[] = [];
  let build: SluiceBuild | undefined;
  let workDir: string | undefined;

  afterAll(async () => {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    await clients.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  const get = async (node: SluiceNode, i: number): Promise<QueryResult> => {
    const answer = await node.post(`/api/v1/applications/${applicationId}/stores/${KV_STORE}`, {
      type: 'key_value',
      query: { get: { key: keyOf(i) } },
      set_options: { retries: 5, retry_backoff_ms: 100 },
    });
    if (answer.status !== 200) throw new Error(`${node.name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as QueryResult;
  };
  const timeline = async (node: SluiceNode) => (await node.get(`/api/v1/streams/${applicationId}/timeline`)).body as Timeline;
  const rebalances = (t: Timeline) => t.entries.filter((e): e is RebalanceTimelineEntry => e.type === 'rebalance');
  const application = async (node: SluiceNode) => (await node.get(`/api/v1/applications/${applicationId}`)).body as ApplicationRecord;
  const partitionsOf = (assignments: Assignment[]) => assignments.find((a) => a.name === input)?.partitions ?? [];
  const instanceOf = (record: ApplicationRecord, node: SluiceNode) => record.instances.find((i) => i.endpoint && `${i.endpoint.address}:${i.endpoint.port}` === node.server);

  it(
    'warms the moving partitions up on the new node before they move, and no query fails meanwhile',
    async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-warmup-'));
      build = await buildSluice();
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
      const producer = await clients.producer();
      for (let from = 0; from < KEYS; from += 5_000) {
        await producer.send({ topic: input, messages: Array.from({ length: 5_000 }, (_, n) => ({ key: keyOf(from + n), value: valueOf(from + n) })) });
      }
      const start = (name: string) =>
        SluiceNode.start({
          build: build!,
          name,
          bootstrapServers: bootstrapServers().join(','),
          applicationId,
          inputTopic: input,
          workDir: workDir!,
          streams: { 'acceptable.recovery.lag': ACCEPTABLE_LAG, 'probing.rebalance.interval.ms': PROBING_INTERVAL_MS },
        });
      nodes.push(await start('node-a'), await start('node-b'));
      const [a, b] = nodes as [SluiceNode, SluiceNode];
      await eventually(
        'two nodes answering every key',
        () => get(a, KEYS - 1),
        (r) => r.status === 'SUCCESS' && r.result.success[0]?.records[0]?.value === valueOf(KEYS - 1),
        120_000,
      );
      await eventually(
        'the six partitions over the two nodes',
        () => application(a),
        (r) => r.instances.length === 2 && r.instances.reduce((n, i) => n + partitionsOf(i.metadata.assignments).length, 0) === PARTITIONS,
        60_000,
      );

      // Queries through the first two nodes for keys spread over every partition, a few hundred a second: enough to
      // meet every moment of the move, and not so many that they take the cores from the tests running beside.
      const failures: string[] = [];
      let answered = 0;
      let slowest = 0;
      let querying = true;
      const queries = (async () => {
        for (let n = 0; querying; n++) {
          const i = (n * 7919) % KEYS;
          const node = n % 2 === 0 ? a : b;
          try {
            const result = await get(node, i);
            slowest = Math.max(slowest, result.took);
            const value = result.result.success[0]?.records[0]?.value;
            if (result.status !== 'SUCCESS' || value !== valueOf(i)) failures.push(`${node.name} ${keyOf(i)}: ${JSON.stringify(result)}`);
            else answered++;
          } catch (error) {
            failures.push(`${node.name} ${keyOf(i)}: ${String(error)}`);
          }
          await new Promise((resolve) => setTimeout(resolve, QUERY_PAUSE_MS));
        }
      })();

      try {
        const c = await start('node-c');
        nodes.push(c);
        // The first rebalance gives the new node warm-ups, not the partitions: no standby replicas are configured.
        const warming = await eventually(
          'node-c to join with warm-up replicas',
          () => application(a),
          (r) => r.instances.length === 3 && partitionsOf(instanceOf(r, c)?.metadata.standbyAssignments ?? []).length > 0,
          90_000,
        );
        expect(partitionsOf(instanceOf(warming, c)!.metadata.assignments)).toEqual([]);
        const warmups = partitionsOf(instanceOf(warming, c)!.metadata.standbyAssignments);
        expect(warmups.length).toBeLessThanOrEqual(2);

        // The probing rebalance moves them once warm.
        const moved = await eventually(
          'the warmed-up partitions to move to node-c',
          () => application(a),
          (r) => partitionsOf(instanceOf(r, c)?.metadata.assignments ?? []).length > 0,
          PROBING_INTERVAL_MS + 90_000,
        );
        expect(partitionsOf(instanceOf(moved, c)!.metadata.assignments)).toEqual(expect.arrayContaining(warmups));
        // node-c's timeline: the warm-ups it gained as such, then the probing rebalance that the leader's timeline
        // explains. node-a's host map can show the move before node-c has closed its entry for it (node-c closes it
        // once its own read of the group is back), so node-c's timeline is waited for, as a user would.
        const gainedBy = (t: Timeline, role: string) => rebalances(t).flatMap((r) => r.tasks_gained.filter((task) => task.role === role).map((task) => Number(task.task_id.split('_')[1])));
        const cTimeline = await eventually(
          "node-c's timeline to show the move",
          () => timeline(c),
          (t) => warmups.every((p) => gainedBy(t, 'active').includes(p)),
          30_000,
        );
        expect(gainedBy(cTimeline, 'warmup').sort()).toEqual(expect.arrayContaining(warmups));
        const timelines = await Promise.all(nodes.map(timeline));
        const probing = timelines.flatMap(rebalances).flatMap((r) => r.causes).filter((cause) => cause.type === 'probing_rebalance');
        expect(probing.length).toBeGreaterThan(0);
        // A few more seconds of queries after the move.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      } finally {
        querying = false;
        await queries;
      }
      expect(failures.slice(0, 5)).toEqual([]);
      expect(answered).toBeGreaterThan(1_000);
      process.stderr.write(`warm-up moves: ${answered} gets answered during the move, ${failures.length} failed, the slowest in ${slowest} ms\n`);
    },
    BROKER_TEST_TIMEOUT_MS + 240_000,
  );
});
