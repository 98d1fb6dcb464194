/**
 * A Sluice cluster across network hosts (issue 8): three `sluice start` processes, each in a network namespace of
 * its own with its own address, on the same HTTP and gRPC ports as pods have, application.server set from the
 * environment as the StatefulSet sets it, one real broker reachable from all three. Interactive queries work
 * across the hosts; cutting one host's link makes a cluster-wide query PARTIAL within its deadline, and restoring
 * the link makes it SUCCESS again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { buildSluice, eventually, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { KV_STORE } from '../cluster/fixtures/cluster-topology';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { BrokerRelays, brokerUnreachable, HostNode } from './support/host-node';
import { TestNetwork } from './support/network';

const PARTITIONS = 6;
const KEYS = 300;
const keyOf = (i: number) => `key-${String(i).padStart(3, '0')}`;
const valueOf = (i: number) => `value-${i}`;
const ALL_KEYS = Array.from({ length: KEYS }, (_, i) => keyOf(i));
/** The deadline of the queries sent while a link is cut. */
const QUERY_TIMEOUT_MS = 3000;

interface QueryResult {
  server: string;
  status: string;
  timeout: boolean;
  result: {
    total: number;
    success: { server: string; remote: boolean; total: number; records: { key: unknown; value: unknown }[] }[];
    failure: { server: string; remote: boolean; errors: { message: string }[] }[];
  };
}
interface ApplicationRecord {
  instances: { endpoint?: { address: string; port: number }; isLocal: boolean; metadata: { assignments: { name: string; partitions: number[] }[] } }[];
}

const skipped = TestNetwork.unavailable() ?? brokerUnreachable(bootstrapServers());
if (skipped) process.stderr.write(`multi-host test: skipped, ${skipped}\n`);
const describeIfHosts = skipped ? describe.skip : describe;

describeIfHosts('a Sluice cluster over three network hosts', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('multi-host');
  const input = uniqueName('multi-host-in');
  let workDir: string | undefined;
  const nodes: HostNode[] = [];
  let network: TestNetwork | undefined;
  let relays: BrokerRelays | undefined;
  let build: SluiceBuild | undefined;

  const query = async (node: HostNode, body: unknown): Promise<QueryResult> => {
    const answer = await node.post(`/api/v1/applications/${applicationId}/stores/${KV_STORE}`, body);
    if (answer.status !== 200) throw new Error(`${node.name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as QueryResult;
  };
  const all = (node: HostNode, options: object = {}) => query(node, { type: 'key_value', query: { all: {} }, set_options: options });
  const records = (result: QueryResult) => result.result.success.flatMap((part) => part.records);
  const servers = (result: QueryResult) => result.result.success.map((part) => part.server).sort();
  const everyServer = () => nodes.map((node) => node.server).sort();
  const complete = (result: QueryResult) => result.status === 'SUCCESS' && result.result.total === KEYS && JSON.stringify(servers(result)) === JSON.stringify(everyServer());
  const summary = (result: QueryResult) =>
    JSON.stringify({ status: result.status, success: result.result.success.map((p) => `${p.server}: ${p.total}`), failure: result.result.failure });
  const application = async (node: HostNode) => (await node.get(`/api/v1/applications/${applicationId}`)).body as ApplicationRecord;
  const errors = () => nodes.map((node) => `--- ${node.name} (${node.server}) ---\n${node.errors()}`).join('\n');

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-hosts-'));
    process.stderr.write(`multi-host test: node logs under ${workDir}\n`);
    network = TestNetwork.create(['host-a', 'host-b', 'host-c']);
    relays = await BrokerRelays.start(network, bootstrapServers());
    build = await buildSluice();
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: ALL_KEYS.map((key, i) => ({ key, value: valueOf(i) })) });
    const started = await Promise.allSettled(
      network.hosts.map((host) =>
        HostNode.start({ network: network!, host, build: build!, bootstrapServers: bootstrapServers().join(','), applicationId, inputTopic: input, workDir: workDir! }),
      ),
    );
    for (const outcome of started) if (outcome.status === 'fulfilled') nodes.push(outcome.value);
    const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    for (const node of nodes) {
      await eventually(`${node.name} to answer all from the three hosts`, () => all(node, { retries: 10, retry_backoff_ms: 200 }), complete, 150_000, summary).catch(
        (error: unknown) => {
          process.stderr.write(`${errors()}\n`);
          throw error;
        },
      );
    }
  }, 300_000);

  afterAll(async () => {
    // Every step runs even when one before it failed; the network goes last, with anything still running on it.
    await Promise.allSettled(nodes.map((node) => node.stop()));
    relays?.stop();
    try {
      network?.destroy();
    } finally {
      await clients.close();
      if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    }
  }, 60_000);

  it(
    'each node advertises its own address as application.server, and every node lists the three',
    async () => {
      for (const [i, node] of nodes.entries()) {
        expect(node.server).toBe(`${network!.hosts[i]!.address}:8080`);
        const record = await application(node);
        expect(record.instances.map((instance) => `${instance.endpoint!.address}:${instance.endpoint!.port}`).sort()).toEqual(everyServer());
        expect(record.instances.filter((instance) => instance.isLocal).map((instance) => `${instance.endpoint!.address}:${instance.endpoint!.port}`)).toEqual([node.server]);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'a get for every key, sent to each node, answers the value from the host that owns the key',
    async () => {
      const owner = new Map<number, string>();
      for (const instance of (await application(nodes[0]!)).instances) {
        for (const assignment of instance.metadata.assignments) {
          if (assignment.name === input) for (const partition of assignment.partitions) owner.set(partition, `${instance.endpoint!.address}:${instance.endpoint!.port}`);
        }
      }
      expect(owner.size).toBe(PARTITIONS);
      expect(new Set(owner.values()).size).toBe(3);
      for (const node of nodes) {
        for (let i = 0; i < KEYS; i++) {
          const key = keyOf(i);
          const result = await query(node, { type: 'key_value', query: { get: { key } } });
          const expected = owner.get(partitionForKey(Buffer.from(key), PARTITIONS))!;
          expect({ key, status: result.status, parts: result.result.success }).toEqual({
            key,
            status: 'SUCCESS',
            parts: [{ server: expected, remote: expected !== node.server, total: 1, records: [{ key, value: valueOf(i) }] }],
          });
        }
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'all returns every record exactly once, in parts from the three hosts',
    async () => {
      for (const node of nodes) {
        const result = await all(node);
        expect(result.status).toBe('SUCCESS');
        expect(servers(result)).toEqual(everyServer());
        expect(records(result).map((r) => r.key).sort()).toEqual(ALL_KEYS);
        expect(records(result).every((r) => r.value === valueOf(Number(String(r.key).slice(4))))).toBe(true);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    "with one host's link cut, all is PARTIAL within the query deadline, naming that host; with the link back, SUCCESS",
    async () => {
      const [asking, other, cutOff] = nodes as [HostNode, HostNode, HostNode];
      const host = network!.hosts[2]!;
      network!.cut(host);
      try {
        const started = Date.now();
        const result = await all(asking, { query_timeout_ms: QUERY_TIMEOUT_MS });
        const elapsed = Date.now() - started;
        expect({ status: result.status, timeout: result.timeout, failure: result.result.failure }).toEqual({
          status: 'PARTIAL',
          timeout: true,
          failure: [{ server: cutOff.server, remote: true, errors: [{ message: expect.any(String) }] }],
        });
        expect(elapsed).toBeLessThan(QUERY_TIMEOUT_MS + 1000);
        expect(servers(result)).toEqual([asking.server, other.server].sort());
        expect(result.result.total).toBeLessThan(KEYS);
      } finally {
        network!.restore(host);
      }
      for (const node of nodes) {
        const result = await eventually(`${node.name} to answer all from the three hosts again`, () => all(node, { query_timeout_ms: QUERY_TIMEOUT_MS }), complete, 60_000, summary);
        expect(records(result).map((r) => r.key).sort()).toEqual(ALL_KEYS);
        expect(result.result.failure).toEqual([]);
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
