/**
 * Large answers over three Sluice processes and one real broker (issue 16): an `all` of 200 000 records is
 * streamed (chunked HTTP, the peers' parts as gRPC server streams) and still answers every record exactly once in
 * the contract's body; a forwarded get still answers through the streamed peer call.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import * as applicationSchemas from '../../src/server/schemas/applications';
import { expectMatchesSchema } from '../../src/server/testing/schema-check';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { KV_STORE, SESSION_STORE, WINDOW_STORE } from './fixtures/cluster-topology';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { buildSluice, eventually, showingLogsOf, SluiceNode, type SluiceBuild } from './support/sluice-cluster';

const PARTITIONS = 6;
const KEYS = 200_000;
const keyOf = (i: number) => `key-${String(i).padStart(6, '0')}`;
const valueOf = (i: number) => `value-${i}`;

interface QueryResult {
  status: string;
  server: string;
  result: { total: number; success: { server: string; remote: boolean; total: number; records: { key: string; value: string }[] }[]; failure: unknown[] };
}

let build: SluiceBuild | undefined;
const clients = new KafkaTestClients();
const applicationId = uniqueName('large-queries');
const input = uniqueName('large-queries-in');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-large-'));
const nodes: SluiceNode[] = [];
const storePath = `/api/v1/applications/${applicationId}/stores/${KV_STORE}`;

/** A query's answer as the wire gives it: status, headers and the body's text. */
async function post(node: SluiceNode, body: unknown, path = storePath): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(`http://${node.server}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

async function query(node: SluiceNode, body: unknown, path = storePath): Promise<QueryResult> {
  const answer = await post(node, body, path);
  if (answer.status !== 200) throw new Error(`${node.name}: HTTP ${answer.status} ${answer.text.slice(0, 500)}`);
  return JSON.parse(answer.text) as QueryResult;
}

beforeAll(async () => {
  build = await buildSluice();
  process.stderr.write(`large queries test: node logs under ${workDir}\n`);
  const admin = await clients.admin();
  await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
  const producer = await clients.producer();
  for (let from = 0; from < KEYS; from += 20_000) {
    await producer.send({ topic: input, messages: Array.from({ length: 20_000 }, (_, i) => ({ key: keyOf(from + i), value: valueOf(from + i) })) });
  }
  nodes.push(
    ...(await Promise.all(
      ['node-a', 'node-b', 'node-c'].map((name) => SluiceNode.start({ build: build!, name, bootstrapServers: bootstrapServers().join(','), applicationId, inputTopic: input, workDir })),
    )),
  );
  // Ready: the counts of the three nodes add up to every key.
  await eventually(
    'the three nodes to hold every key',
    () => query(nodes[0]!, { type: 'key_value', query: { count: {} } }),
    (result) =>
      result.status === 'SUCCESS' && result.result.success.length === 3 && result.result.success.reduce((sum, part) => sum + Number(part.records[0]?.value), 0) === KEYS,
    240_000,
    (result) => JSON.stringify(result.result.success.map((part) => [part.server, part.records[0]?.value])),
  ).catch(showingLogsOf(nodes));
}, 400_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await clients.close();
  fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

it(
  'an all of 200 000 records over three nodes is streamed, and answers every record exactly once in the contract body',
  async () => {
    const answer = await post(nodes[0]!, { type: 'key_value', query: { all: {} } });
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    const result = JSON.parse(answer.text) as QueryResult;
    expectMatchesSchema(applicationSchemas.storeQueryResult, result);
    expect(result.status).toBe('SUCCESS');
    expect(result.result.failure).toEqual([]);
    expect(result.result.success.map((part) => part.server).sort()).toEqual(nodes.map((node) => node.server).sort());
    expect(result.result.success.map((part) => part.remote)).toEqual([false, true, true]);
    const seen = new Map<string, string>();
    for (const part of result.result.success) {
      expect(part.total).toBe(part.records.length);
      for (const record of part.records) {
        expect(seen.has(record.key)).toBe(false);
        seen.set(record.key, record.value);
      }
    }
    expect(result.result.total).toBe(KEYS);
    expect(seen.size).toBe(KEYS);
    for (let i = 0; i < KEYS; i += 997) expect(seen.get(keyOf(i))).toBe(valueOf(i));

    // The records route streams the same records as one array.
    const records = await request(`http://${nodes[1]!.server}${storePath}/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'key_value', query: { all: {} } }),
    });
    const list = (await records.body.json()) as { key: string }[];
    expectMatchesSchema(applicationSchemas.storeRecords, list);
    expect(new Set(list.map((record) => record.key)).size).toBe(KEYS);
    expect(list).toHaveLength(KEYS);
  },
  BROKER_TEST_TIMEOUT_MS,
);

it(
  'paging with limit=1000 through the 200 000 records visits every key exactly once, asked of any node; a bad token is a 400',
  async () => {
    const seen = new Set<string>();
    let next: string | undefined;
    let pages = 0;
    do {
      const node = nodes[pages % nodes.length]!;
      const result = (await query(node, { type: 'key_value', query: { all: {} }, set_options: { limit: 1000, ...(next ? { next } : {}) } })) as QueryResult & { next?: string };
      expectMatchesSchema(applicationSchemas.storeQueryResult, result);
      expect(result.status).toBe('SUCCESS');
      for (const part of result.result.success) {
        expect(part.total).toBeLessThanOrEqual(1000);
        for (const record of part.records) {
          expect(seen.has(record.key)).toBe(false);
          seen.add(record.key);
        }
      }
      next = result.next;
      pages++;
    } while (next !== undefined && pages < 1000);
    expect(next).toBeUndefined();
    expect(seen.size).toBe(KEYS);
    // 6 partitions over 3 nodes, 1000 records per part: about 67 pages.
    expect(pages).toBeGreaterThanOrEqual(KEYS / 3000);

    const first = (await query(nodes[0]!, { type: 'key_value', query: { all: {} }, set_options: { limit: 10 } })) as QueryResult & { next?: string };
    const tampered = `${first.next!.slice(0, 8)}${first.next![8] === 'A' ? 'B' : 'A'}${first.next!.slice(9)}`;
    for (const bad of [tampered, 'x'.repeat(40_000), 'not a token']) {
      const answer = await post(nodes[1]!, { type: 'key_value', query: { all: {} }, set_options: { limit: 10, next: bad } });
      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.text) as Record<string, unknown>;
      expect(body).toEqual({ error_code: 400, exception: 'InvalidQuery', message: expect.stringContaining('set_options.next is not a continuation token'), path: storePath });
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);

it(
  'paging with limit=1000 through the 200 000 windows and sessions answers every record exactly once, each partition in the order of the whole scan, asked of two nodes',
  async () => {
    type Windowed = { key: { key: string; window_start: number; window_end: number }; value: string };
    const byPartition = (records: Windowed[]) => {
      const partitions = new Map<number, string[]>();
      for (const record of records) {
        const partition = partitionForKey(Buffer.from(record.key.key), PARTITIONS);
        let list = partitions.get(partition);
        if (list === undefined) partitions.set(partition, (list = []));
        list.push(`${record.key.key}@${record.key.window_start}-${record.key.window_end}=${record.value}`);
      }
      return partitions;
    };
    const scans = [
      { store: WINDOW_STORE, type: 'window', query: { all: {} } },
      { store: SESSION_STORE, type: 'session', query: { fetch_key_range: { key_from: keyOf(0), key_to: keyOf(KEYS - 1) } } },
    ];
    for (const { store, type, query: clause } of scans) {
      const path = `/api/v1/applications/${applicationId}/stores/${store}`;
      const whole = (await query(nodes[0]!, { type, query: clause }, path)).result.success.flatMap((part) => part.records) as unknown as Windowed[];
      expect(whole).toHaveLength(KEYS);
      const paged: Windowed[] = [];
      let next: string | undefined;
      let pages = 0;
      do {
        const result = (await query(nodes[pages % 2]!, { type, query: clause, set_options: { limit: 1000, ...(next ? { next } : {}) } }, path)) as QueryResult & { next?: string };
        expectMatchesSchema(applicationSchemas.storeQueryResult, result);
        expect(result.status).toBe('SUCCESS');
        for (const part of result.result.success) expect(part.total).toBeLessThanOrEqual(1000);
        paged.push(...(result.result.success.flatMap((part) => part.records) as unknown as Windowed[]));
        next = result.next;
        pages++;
      } while (next !== undefined && pages < 1000);
      expect(next).toBeUndefined();
      expect(paged).toHaveLength(KEYS);
      expect(byPartition(paged)).toEqual(byPartition(whole));
      expect(pages).toBeGreaterThanOrEqual(KEYS / 3000);

      const kvToken = ((await query(nodes[0]!, { type: 'key_value', query: { all: {} }, set_options: { limit: 10 } })) as QueryResult & { next?: string }).next!;
      const answer = await post(nodes[1]!, { type, query: clause, set_options: { limit: 10, next: kvToken } }, path);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({ error_code: 400, exception: 'InvalidQuery', message: expect.stringContaining('issued for another query'), path });
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);

it(
  'a get forwarded to the owner of its key answers through the streamed peer call, in one piece',
  async () => {
    const servers = nodes.map((node) => node.server);
    // A key of each node's partitions, asked at node-a: one local, two forwarded.
    const ownerRecord = (await (await request(`http://${nodes[0]!.server}/api/v1/applications/${applicationId}`)).body.json()) as {
      instances: { endpoint: { address: string; port: number }; metadata: { assignments: { name: string; partitions: number[] }[] } }[];
    };
    const owner = new Map<number, string>();
    for (const instance of ownerRecord.instances) {
      for (const assignment of instance.metadata.assignments) {
        if (assignment.name === input) for (const p of assignment.partitions) owner.set(p, `${instance.endpoint.address}:${instance.endpoint.port}`);
      }
    }
    for (const server of servers) {
      const i = Array.from({ length: 1000 }, (_, n) => n).find((n) => owner.get(partitionForKey(Buffer.from(keyOf(n)), PARTITIONS)) === server)!;
      const answer = await post(nodes[0]!, { type: 'key_value', query: { get: { key: keyOf(i) } } });
      expect(answer.headers['content-length']).toBeDefined();
      const result = JSON.parse(answer.text) as QueryResult;
      expectMatchesSchema(applicationSchemas.storeQueryResult, result);
      expect(result).toMatchObject({
        status: 'SUCCESS',
        server: nodes[0]!.server,
        result: { total: 1, success: [{ server, remote: server !== nodes[0]!.server, total: 1, records: [{ key: keyOf(i), value: valueOf(i) }] }], failure: [] },
      });
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);
