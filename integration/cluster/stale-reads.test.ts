/**
 * Issue 14, stale reads on real processes: three `sluice start` nodes with num.standby.replicas=1 and a session
 * timeout longer than the test's window. One node is SIGKILLed; before the group notices, a `get` with
 * allow_stale for each of its keys is answered by the standby of the key's partition on another node (its part
 * says standby and lag), and without allow_stale the key's part fails naming the dead node; `count` and `all` with
 * allow_stale read its partitions from their standbys and answer every record. Once the group has
 * rebalanced, the promoted tasks restored next to nothing of their changelogs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KV_STORE } from './fixtures/cluster-topology';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from './support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const PARTITIONS = 6;
const KEYS = 3_000;
const keyOf = (i: number) => `key-${String(i).padStart(4, '0')}`;
const valueOf = (i: number) => `value-${i}`;
/** Longer than the test takes to query the dead node's keys: the group has not rebalanced meanwhile. */
const SESSION_TIMEOUT_MS = 45_000;

interface Part {
  server: string;
  remote: boolean;
  total: number;
  records: { key: string; value: string }[];
  standby?: boolean;
  lag?: number;
}
interface QueryResult {
  status: string;
  result: { total: number; success: Part[]; failure: { server: string; errors: { message: string }[] }[] };
}
interface ApplicationRecord {
  instances: { endpoint?: { address: string; port: number }; metadata: { assignments: { name: string; partitions: number[] }[]; standbyAssignments: { name: string; partitions: number[] }[] } }[];
}
interface StoreStatus {
  store: string;
  partition: number;
  last_restoration?: { starting_offset: number; ending_offset: number; total_restored: number };
}
interface StatusRecord {
  state: string;
  threads: { standby_tasks: { task_id: string; lag?: number }[] }[];
}

describe('stale reads from standby replicas over three nodes, one SIGKILLed', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('stale');
  const input = uniqueName('stale-in');
  const nodes: SluiceNode[] = [];
  let build: SluiceBuild | undefined;
  let workDir: string | undefined;

  afterAll(async () => {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    await clients.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  const query = async (node: SluiceNode, body: unknown): Promise<QueryResult> => {
    const answer = await node.post(`/api/v1/applications/${applicationId}/stores/${KV_STORE}`, body);
    if (answer.status !== 200) throw new Error(`${node.name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as QueryResult;
  };
  const get = (node: SluiceNode, i: number, options: object) => query(node, { type: 'key_value', query: { get: { key: keyOf(i) } }, set_options: options });
  const endpointOf = (instance: ApplicationRecord['instances'][number]) => `${instance.endpoint!.address}:${instance.endpoint!.port}`;

  it(
    'answers the dead node\'s keys from standbys before the group rebalances, and the promoted tasks restore almost nothing',
    async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-stale-'));
      build = await buildSluice();
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
      const producer = await clients.producer();
      await producer.send({ topic: input, messages: Array.from({ length: KEYS }, (_, i) => ({ key: keyOf(i), value: valueOf(i) })) });
      for (const name of ['node-a', 'node-b', 'node-c']) {
        nodes.push(
          await SluiceNode.start({
            build,
            name,
            bootstrapServers: bootstrapServers().join(','),
            applicationId,
            inputTopic: input,
            workDir,
            streams: { 'num.standby.replicas': 1, 'session.timeout.ms': SESSION_TIMEOUT_MS, 'heartbeat.interval.ms': 3000 },
          }),
        );
      }
      const [a, b, c] = nodes as [SluiceNode, SluiceNode, SluiceNode];

      // Every node holds actives and standbys, every record is queryable, and every standby has read its changelog's end.
      const record = await eventually(
        'three nodes, each with active and standby partitions',
        async () => (await a.get(`/api/v1/applications/${applicationId}`)).body as ApplicationRecord,
        (r) => r.instances.length === 3 && r.instances.every((i) => i.metadata.assignments.length > 0 && i.metadata.standbyAssignments.length > 0),
        120_000,
      );
      await eventually('every record queryable', () => query(a, { type: 'key_value', query: { count: {} } }), (r) => r.status === 'SUCCESS' && r.result.success.reduce((n, p) => n + (p.records[0] as unknown as { value: number }).value, 0) === KEYS, 90_000);
      for (const node of nodes) {
        await eventually(
          `${node.name}'s standbys to catch up`,
          async () => (await node.get(`/api/v1/streams/${applicationId}/status`)).body as StatusRecord,
          (s) => s.threads.flatMap((t) => t.standby_tasks).length > 0 && s.threads.flatMap((t) => t.standby_tasks).every((t) => t.lag === 0),
          60_000,
        );
      }

      const victim = record.instances.find((i) => endpointOf(i) === c.server)!;
      const victimPartitions = new Set(victim.metadata.assignments.find((x) => x.name === input)!.partitions);
      const standbyOf = new Map<number, string>();
      for (const instance of record.instances) for (const p of instance.metadata.standbyAssignments.find((x) => x.name === input)?.partitions ?? []) standbyOf.set(p, endpointOf(instance));
      // The dead node's keys, as the producer placed them: the first few of each of its partitions.
      const partitionOf = async (i: number) => (await get(a, i, {})).result.success[0]!.server;
      const victimKeys: number[] = [];
      for (let i = 0; i < KEYS && victimKeys.length < 20; i++) if ((await partitionOf(i)) === c.server) victimKeys.push(i);
      expect(victimKeys.length).toBe(20);
      expect(victimPartitions.size).toBeGreaterThan(0);

      const killedAt = Date.now();
      await c.kill();
      for (const i of victimKeys) {
        const stale = await get(a, i, { allow_stale: true, query_timeout_ms: 4000 });
        expect({ key: keyOf(i), status: stale.status, parts: stale.result.success.map((p) => ({ ...p, lag: typeof p.lag })) }).toEqual({
          key: keyOf(i),
          status: 'SUCCESS',
          parts: [{ server: expect.not.stringMatching(c.server), remote: expect.any(Boolean), total: 1, records: [{ key: keyOf(i), value: valueOf(i) }], standby: true, lag: 'number' }],
        });
        expect([...standbyOf.values()]).toContain(stale.result.success[0]!.server);
      }
      const firstStaleAnswerMs = Date.now() - killedAt;
      // A count over every partition reads the dead node's partitions from their standbys: every record, no failure.
      const staleCount = await query(a, { type: 'key_value', query: { count: {} }, set_options: { allow_stale: true, query_timeout_ms: 4000 } });
      expect({ status: staleCount.status, failure: staleCount.result.failure }).toEqual({ status: 'SUCCESS', failure: [] });
      expect(staleCount.result.success.reduce((n, p) => n + (p.records[0] as unknown as { value: number }).value, 0)).toBe(KEYS);
      expect(staleCount.result.success.some((p) => p.standby === true)).toBe(true);
      const staleAll = await query(a, { type: 'key_value', query: { all: {} }, set_options: { allow_stale: true, query_timeout_ms: 4000 } });
      expect(staleAll.status).toBe('SUCCESS');
      expect(staleAll.result.success.flatMap((p) => p.records.map((r) => r.key)).sort()).toEqual(Array.from({ length: KEYS }, (_, i) => keyOf(i)));
      const plain = await get(b, victimKeys[0]!, { query_timeout_ms: 3000 });
      expect(plain.status).toBe('NOT_AVAILABLE');
      expect(plain.result.success).toEqual([]);
      expect(plain.result.failure.map((f) => f.server)).toEqual([c.server]);
      // Still before the group noticed the kill: the survivors never left RUNNING.
      expect(Date.now() - killedAt).toBeLessThan(SESSION_TIMEOUT_MS);
      for (const node of [a, b]) expect(((await node.get(`/api/v1/streams/${applicationId}/status`)).body as StatusRecord).state).toBe('RUNNING');
      process.stderr.write(`stale reads: ${victimKeys.length} keys of the killed node answered from standbys within ${firstStaleAnswerMs} ms of the kill\n`);

      // After the rebalance every key answers from an active again, and the promoted tasks read only a tail.
      await eventually(
        'every key answered from the two survivors',
        () => query(a, { type: 'key_value', query: { count: {} }, set_options: { retries: 5, retry_backoff_ms: 200 } }),
        (r) => r.status === 'SUCCESS' && r.result.success.length === 2 && r.result.success.reduce((n, p) => n + (p.records[0] as unknown as { value: number }).value, 0) === KEYS,
        SESSION_TIMEOUT_MS + 60_000,
      );
      for (const i of victimKeys) expect((await get(b, i, {})).result.success[0]!.records).toEqual([{ key: keyOf(i), value: valueOf(i) }]);
      // Each promoted partition restored from where its standby had checkpointed: fewer than 1 % of its changelog.
      const promoted: { partition: number; restored: number; changelog: number }[] = [];
      for (const node of [a, b]) {
        const stores = (await node.get(`/api/v1/streams/${applicationId}/stores`)).body as StoreStatus[];
        for (const s of stores) {
          if (s.store !== KV_STORE || !victimPartitions.has(s.partition)) continue;
          expect(s.last_restoration).toBeDefined();
          promoted.push({ partition: s.partition, restored: s.last_restoration!.total_restored, changelog: s.last_restoration!.ending_offset });
        }
      }
      process.stderr.write(`stale reads: restored on promotion ${JSON.stringify(promoted)}\n`);
      expect(promoted.map((p) => p.partition).sort()).toEqual([...victimPartitions].sort());
      for (const p of promoted) {
        expect(p.changelog).toBeGreaterThan(0);
        expect(p.restored).toBeLessThan(p.changelog / 100);
      }
    },
    BROKER_TEST_TIMEOUT_MS + 180_000,
  );
});
