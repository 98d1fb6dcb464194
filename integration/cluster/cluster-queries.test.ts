/**
 * Interactive queries across a cluster (issue 7, "Must show"): three `sluice start` processes on loopback, each
 * with its own HTTP and gRPC ports and state directory, one real broker, a 6-partition input topic. Run twice: peers
 * in plaintext, and peers on mutual TLS with the cluster secret (issue 12).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { SESSION_STORE, WINDOW_SIZE_MS, WINDOW_STORE, KV_STORE } from './fixtures/cluster-topology';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { writePeerSecurity } from './support/peer-security';
import { buildSluice, eventually, showingLogsOf, SluiceNode, type HttpAnswer, type SluiceBuild } from './support/sluice-cluster';

const PARTITIONS = 6;
const KEYS = 300;
/**
 * Record i has timestamp T0 + i s: five windows of one minute. T0 is a minute boundary an hour ago, not a fixed date:
 * the window and session changelogs keep records for the store retention plus a day, and the broker rolls and deletes
 * segments of records older than that, so a task that moves during the start-up rebalances would restore nothing.
 */
const T0 = Math.floor((Date.now() - 3600_000) / 60_000) * 60_000;
const keyOf = (i: number) => `key-${String(i).padStart(3, '0')}`;
const valueOf = (i: number) => `value-${i}`;
const timeOf = (i: number) => T0 + i * 1000;
const ALL_KEYS = Array.from({ length: KEYS }, (_, i) => keyOf(i));

interface Part {
  server: string;
  remote: boolean;
  total: number;
  records: { key: unknown; value: unknown; timestamp?: number }[];
}
interface QueryResult {
  took: number;
  timeout: boolean;
  server: string;
  status: string;
  result: { store: string; type: string; total: number; success: Part[]; failure: { server: string; remote: boolean; errors: { message: string }[] }[]; error?: string };
}
interface ApplicationRecord {
  id: string;
  instances: { id: string | null; endpoint?: { address: string; port: number }; isLocal: boolean; metadata: { stores: string[]; assignments: { name: string; partitions: number[] }[] } }[];
}

/** One build for both runs: compiling takes longer than starting the nodes. */
let build: SluiceBuild | undefined;
beforeAll(async () => {
  build = await buildSluice();
}, 300_000);

describe.each([
  { peers: 'plaintext', secured: false },
  { peers: 'mutual TLS and the cluster secret', secured: true },
])('interactive queries over three Sluice processes, peers on $peers', ({ secured }) => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('cluster-queries');
  const input = uniqueName('cluster-queries-in');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-cluster-'));
  const nodes: SluiceNode[] = [];
  const storePath = (store: string) => `/api/v1/applications/${applicationId}/stores/${store}`;

  const query = async (node: SluiceNode, store: string, body: unknown): Promise<QueryResult> => {
    const answer = await node.post(storePath(store), body);
    if (answer.status !== 200) throw new Error(`${node.name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as QueryResult;
  };
  const records = (result: QueryResult) => result.result.success.flatMap((part) => part.records);
  const servers = (result: QueryResult) => result.result.success.map((part) => part.server).sort();
  const application = async (node: SluiceNode) => (await node.get(`/api/v1/applications/${applicationId}`)).body as ApplicationRecord;
  /** `host:port` → partitions of the input topic, from a node's servers record. */
  const owners = async (node: SluiceNode): Promise<Map<number, string>> => {
    const byPartition = new Map<number, string>();
    for (const instance of (await application(node)).instances) {
      for (const assignment of instance.metadata.assignments) {
        if (assignment.name !== input || !instance.endpoint) continue;
        for (const partition of assignment.partitions) byPartition.set(partition, `${instance.endpoint.address}:${instance.endpoint.port}`);
      }
    }
    return byPartition;
  };
  /** A result in a few words: status, parts, failures. */
  const summary = (result: QueryResult) =>
    JSON.stringify({
      status: result.status,
      total: result.result.total,
      success: result.result.success.map((part) => `${part.server}: ${part.total}`),
      failure: result.result.failure,
      error: result.result.error,
    });
  const allOnEveryNode = (result: QueryResult, expectedServers: string[]) =>
    result.status === 'SUCCESS' && result.result.total === KEYS && JSON.stringify(servers(result)) === JSON.stringify([...expectedServers].sort());

  beforeAll(async () => {
    process.stderr.write(`cluster test: node logs under ${workDir}\n`);
    const peers = secured ? writePeerSecurity(path.join(workDir, 'peers')).peers : undefined;
    const admin = await clients.admin();
    // Kept whatever the broker's default retention: the nodes read the topic from its start.
    await createTopics(admin, [{ name: input, partitions: PARTITIONS, configs: { 'retention.ms': '-1' } }]);
    const producer = await clients.producer();
    await producer.send({
      topic: input,
      messages: ALL_KEYS.map((key, i) => ({ key, value: valueOf(i), timestamp: String(timeOf(i)) })),
    });
    const bootstrap = bootstrapServers().join(',');
    nodes.push(
      ...(await Promise.all(
        ['node-a', 'node-b', 'node-c'].map((name) => SluiceNode.start({ build: build!, name, bootstrapServers: bootstrap, applicationId, inputTopic: input, workDir, peers })),
      )),
    );
    // Ready: every node sees the three of them, and a query through any of them answers every record.
    for (const node of nodes) {
      await eventually(
        `${node.name} to answer all from the three nodes`,
        () => query(node, KV_STORE, { type: 'key_value', query: { all: {} }, set_options: { retries: 10, retry_backoff_ms: 200 } }),
        (result) => allOnEveryNode(result, nodes.map((n) => n.server)),
        150_000,
        summary,
      ).catch(showingLogsOf(nodes));
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await clients.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  it(
    'the servers record on each node lists all three nodes alike',
    async () => {
      const records = await Promise.all(nodes.map((node) => application(node)));
      const normalized = records.map((record) =>
        record.instances
          .map((instance) => ({ endpoint: instance.endpoint, stores: instance.metadata.stores, assignments: instance.metadata.assignments }))
          .sort((a, b) => (a.endpoint?.port ?? 0) - (b.endpoint?.port ?? 0)),
      );
      expect(normalized[0]).toHaveLength(3);
      expect(normalized[1]).toEqual(normalized[0]);
      expect(normalized[2]).toEqual(normalized[0]);
      expect(normalized[0]!.map((i) => `${i.endpoint!.address}:${i.endpoint!.port}`).sort()).toEqual(nodes.map((n) => n.server).sort());
      records.forEach((record, n) => {
        expect(record.instances.filter((instance) => instance.isLocal).map((instance) => instance.endpoint!.port)).toEqual([Number(nodes[n]!.server.split(':')[1])]);
      });
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'a get for every key, sent to each of the three nodes, answers the right value from the owner of the key',
    async () => {
      const owner = await owners(nodes[0]!);
      expect(owner.size).toBe(PARTITIONS);
      for (const node of nodes) {
        for (let i = 0; i < KEYS; i++) {
          const key = keyOf(i);
          const result = await query(node, KV_STORE, { type: 'key_value', query: { get: { key } } });
          const expectedServer = owner.get(partitionForKey(Buffer.from(key), PARTITIONS))!;
          expect({ key, status: result.status, server: result.server, parts: result.result.success }).toEqual({
            key,
            status: 'SUCCESS',
            server: node.server,
            parts: [{ server: expectedServer, remote: expectedServer !== node.server, total: 1, records: [{ key, value: valueOf(i) }] }],
          });
        }
      }
      // A timestamped query shows the record's timestamp.
      const timestamped = await query(nodes[1]!, KV_STORE, { type: 'timestamped_key_value', query: { get: { key: keyOf(7) } } });
      expect(records(timestamped)).toEqual([{ key: keyOf(7), value: valueOf(7), timestamp: timeOf(7) }]);
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'all, count and range return every record exactly once, in parts from all three nodes',
    async () => {
      const everyServer = nodes.map((node) => node.server).sort();
      for (const node of nodes) {
        const all = await query(node, KV_STORE, { type: 'key_value', query: { all: {} } });
        expect(all.status).toBe('SUCCESS');
        expect(servers(all)).toEqual(everyServer);
        expect(all.result.total).toBe(KEYS);
        expect(records(all).map((r) => r.key).sort()).toEqual(ALL_KEYS);
        expect(records(all).every((r) => r.value === valueOf(Number(String(r.key).slice(4))))).toBe(true);

        const count = await query(node, KV_STORE, { type: 'key_value', query: { count: {} } });
        expect(count.status).toBe('SUCCESS');
        expect(servers(count)).toEqual(everyServer);
        expect(count.result.success.every((part) => part.total === 1 && part.records[0]!.key === 'count')).toBe(true);
        expect(records(count).reduce((sum, r) => sum + Number(r.value), 0)).toBe(KEYS);

        const range = await query(node, KV_STORE, { type: 'key_value', query: { range: { key_from: 'key-100', key_to: 'key-199' } } });
        expect(range.status).toBe('SUCCESS');
        expect(servers(range)).toEqual(everyServer);
        expect(records(range).map((r) => r.key).sort()).toEqual(ALL_KEYS.slice(100, 200));

        const flat = await node.post(`${storePath(KV_STORE)}/records`, { type: 'key_value', query: { all: {} } });
        expect(flat.status).toBe(200);
        expect((flat.body as { key: string }[]).map((r) => r.key).sort()).toEqual(ALL_KEYS);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'window fetch and fetch_key_range, and session fetch, answer over the cluster',
    async () => {
      const windowOf = (i: number) => timeOf(i) - (timeOf(i) % WINDOW_SIZE_MS);
      for (const node of nodes) {
        for (const i of [0, 1, 59, 60, 150, 299]) {
          const fetched = await query(node, WINDOW_STORE, { type: 'window', query: { fetch: { key: keyOf(i), time: windowOf(i) } } });
          expect(fetched.status).toBe('SUCCESS');
          expect(records(fetched)).toEqual([{ key: { key: keyOf(i), window_start: windowOf(i), window_end: windowOf(i) + WINDOW_SIZE_MS }, value: valueOf(i) }]);

          const session = await query(node, SESSION_STORE, { type: 'session', query: { fetch: { key: keyOf(i) } } });
          expect(records(session)).toEqual([{ key: { key: keyOf(i), window_start: timeOf(i), window_end: timeOf(i) }, value: valueOf(i) }]);
        }
        const ranged = await query(node, WINDOW_STORE, {
          type: 'window',
          query: { fetch_key_range: { key_from: keyOf(0), key_to: keyOf(KEYS - 1), time_from: String(T0 - WINDOW_SIZE_MS), time_to: String(timeOf(KEYS)) } },
        });
        expect(ranged.status).toBe('SUCCESS');
        expect(servers(ranged)).toEqual(nodes.map((n) => n.server).sort());
        expect(records(ranged).map((r) => (r.key as { key: string }).key).sort()).toEqual(ALL_KEYS);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'invalid queries are 400 with the error body; an unknown store or application is 404',
    async () => {
      const node = nodes[0]!;
      const invalid: [string, string, unknown, string][] = [
        ['unknown clause', KV_STORE, { type: 'key_value', query: { scan: {} } }, "unknown clause 'scan'"],
        ['clause not allowed for the type', KV_STORE, { type: 'key_value', query: { fetch: { key: 'a', time: 1 } } }, "clause 'fetch' does not apply to key_value stores"],
        ['missing parameter', KV_STORE, { type: 'key_value', query: { range: { key_from: 'a' } } }, "needs parameter 'key_to'"],
        ['several clauses', KV_STORE, { type: 'key_value', query: { get: { key: 'a' }, all: {} } }, 'exactly one clause'],
        [
          'time_to < time_from',
          WINDOW_STORE,
          { type: 'window', query: { fetch_key_range: { key_from: 'a', key_to: 'b', time_from: 10, time_to: 5 } } },
          'time_to (5) is before time_from (10)',
        ],
        ['wrong key type', KV_STORE, { type: 'key_value', query: { get: { key: 42 } } }, "parameter 'key' is not a key of this store"],
        ['type not matching the store', KV_STORE, { type: 'session', query: { fetch: { key: 'a' } } }, `store '${KV_STORE}' is a timestamped_key_value store`],
      ];
      for (const [what, store, body, message] of invalid) {
        const answer: HttpAnswer = await node.post(storePath(store), body);
        expect({ what, status: answer.status }).toEqual({ what, status: 400 });
        expect(answer.body).toEqual({ error_code: 400, message: expect.stringContaining(message), exception: 'InvalidQuery', path: storePath(store) });
      }
      const unknownStore = await node.post(storePath('nope'), { type: 'key_value', query: { all: {} } });
      expect(unknownStore.status).toBe(404);
      expect(unknownStore.body).toMatchObject({ error_code: 404, exception: 'UnknownStore', path: storePath('nope') });
      const unknownApplication = await node.post('/api/v1/applications/nope/stores/latest', { type: 'key_value', query: { all: {} } });
      expect(unknownApplication.status).toBe(404);
      expect(unknownApplication.body).toMatchObject({ error_code: 404, exception: 'UnknownApplication' });
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'with one node frozen (SIGSTOP), a non-keyed query is PARTIAL with a failure part naming it, within query_timeout_ms',
    async () => {
      const frozen = nodes[2]!;
      const timeoutMs = 3000;
      frozen.freeze();
      try {
        const started = Date.now();
        const result = await query(nodes[0]!, KV_STORE, { type: 'key_value', query: { all: {} }, set_options: { query_timeout_ms: timeoutMs } });
        const elapsed = Date.now() - started;
        expect(elapsed).toBeLessThan(timeoutMs + 1000);
        expect(result.status).toBe('PARTIAL');
        expect(result.timeout).toBe(true);
        expect(result.result.failure).toEqual([{ server: frozen.server, remote: true, errors: [{ message: expect.any(String) }] }]);
        expect(servers(result)).toEqual([nodes[0]!.server, nodes[1]!.server].sort());
        expect(result.result.total).toBeLessThan(KEYS);
      } finally {
        frozen.resume();
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'with that node killed, after the rebalance, SUCCESS again with every record from the two others',
    async () => {
      const killed = nodes[2]!;
      await killed.kill();
      const survivors = [nodes[0]!.server, nodes[1]!.server];
      for (const node of nodes.slice(0, 2)) {
        const result = await eventually(
          `${node.name} to answer every record from the two survivors`,
          () => query(node, KV_STORE, { type: 'key_value', query: { all: {} }, set_options: { retries: 5, retry_backoff_ms: 200, query_timeout_ms: 5000 } }),
          (r) => allOnEveryNode(r, survivors),
          100_000,
          summary,
        );
        expect(records(result).map((r) => r.key).sort()).toEqual(ALL_KEYS);
        expect(result.result.failure).toEqual([]);
      }
      const owner = await owners(nodes[0]!);
      expect(new Set(owner.values())).toEqual(new Set(survivors));
      for (const i of [0, 99, 299]) {
        const result = await query(nodes[1]!, KV_STORE, { type: 'key_value', query: { get: { key: keyOf(i) } } });
        expect(records(result)).toEqual([{ key: keyOf(i), value: valueOf(i) }]);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
