/**
 * A stream join with a versioned table through a real `sluice start` process and broker: a table of prices whose
 * versions arrive out of order, a few thousand orders whose timestamps go back and forth, each joined with the price
 * as of its own time; a late version inserted into the history afterwards; asOf queries over the HTTP API, also
 * after a restart whose state directory was deleted, so that the store is restored from its changelog.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTopics, describeTopicConfigs } from '../../src/streams/kafka';
import { PRICE_HISTORY_MS, PRICES_STORE, versionedJoinTopics } from '../cluster/fixtures/versioned-join-topology';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';

const ITEMS = Array.from({ length: 40 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
const VERSIONS = 10;
const ORDERS = 3000;
/** A minute boundary half an hour ago: within the store's hour of history and the topics' retention. */
const T0 = Math.floor((Date.now() - 1800_000) / 60_000) * 60_000;

/** Every version of every item's price: valid from its timestamp until the item's next one. */
const history = new Map<string, { timestamp: number; price: string }[]>();
ITEMS.forEach((item, i) => {
  const versions = Array.from({ length: VERSIONS }, (_, j) => ({ timestamp: T0 + j * 20_000 + ((i * 37) % 7) * 1000, price: `p${i}-${j}` }));
  history.set(item, versions);
});

function priceAsOf(item: string, time: number): { timestamp: number; price: string; validTo?: number } | undefined {
  const versions = [...history.get(item)!].sort((a, b) => a.timestamp - b.timestamp);
  const index = versions.filter((v) => v.timestamp <= time).length - 1;
  if (index < 0) return undefined;
  const next = versions[index + 1];
  return { ...versions[index]!, ...(next === undefined ? {} : { validTo: next.timestamp }) };
}

/** A fixed shuffle, so that a failure can be run again as it was. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface QueryBody {
  status: string;
  result: { success: { records: { key: string; value: string; timestamp: number; valid_to?: number }[] }[] };
}

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 4);

const clients = new KafkaTestClients();
const applicationId = uniqueName('versioned-join');
const input = uniqueName('vj-orders');
const topics = versionedJoinTopics(input);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-versioned-'));
let build: SluiceBuild;
let node: SluiceNode | undefined;

async function startNode(): Promise<SluiceNode> {
  const started = await SluiceNode.start({
    build,
    name: 'node',
    bootstrapServers: bootstrapServers().join(','),
    applicationId,
    inputTopic: input,
    workDir,
    topology: { module: path.join(build.root, 'integration/cluster/fixtures/versioned-join-topology.js'), alias: 'versioned-join' },
  });
  await eventually('the instance to run', async () => ((await started.get(`/api/v1/streams/${applicationId}`)).body as { state: { state: string } }).state.state, (s) => s === 'RUNNING');
  return started;
}

async function get(item: string, asOf?: number): Promise<{ status: number; body: unknown }> {
  const params = asOf === undefined ? { key: item } : { key: item, as_of: asOf };
  return node!.post(`/api/v1/applications/${applicationId}/stores/${PRICES_STORE}`, {
    type: 'versioned_key_value',
    query: { get: params },
    set_options: { retries: 20, retry_backoff_ms: 250 },
  });
}

async function records(item: string, asOf?: number): Promise<QueryBody['result']['success'][number]['records']> {
  const answer = await get(item, asOf);
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${JSON.stringify(answer.body)}`);
  return (answer.body as QueryBody).result.success.flatMap((part) => part.records);
}

function expectedRecords(item: string, asOf: number): unknown[] {
  const version = priceAsOf(item, asOf);
  if (version === undefined) return [];
  return [{ key: item, value: version.price, timestamp: version.timestamp, ...(version.validTo === undefined ? {} : { valid_to: version.validTo }) }];
}

beforeAll(async () => {
  build = await buildSluice();
  await createTopics(await clients.admin(), [
    { name: topics.orders, partitions: 3 },
    { name: topics.prices, partitions: 3 },
    { name: topics.priced, partitions: 3 },
  ]);
}, 300_000);

afterAll(async () => {
  await node?.stop();
  await clients.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

it('joins each order with the price as of its time, answers asOf queries, and restores the history from the changelog', async () => {
  const producer = await clients.producer();
  // Every version of every price, in a shuffled order: most arrive out of order and go to the history.
  const versions = [...history].flatMap(([item, list]) => list.map((v) => ({ key: item, value: v.price, timestamp: String(v.timestamp) })));
  await producer.send({ topic: topics.prices, messages: shuffled(versions) });
  node = await startNode();
  const latest = (item: string) => priceAsOf(item, Number.MAX_SAFE_INTEGER)!;
  await eventually(
    'every latest price in the store',
    () => Promise.all(ITEMS.map(async (item) => (await records(item))[0]?.value)),
    (values) => values.every((value, i) => value === latest(ITEMS[i]!).price),
  );

  // Orders from before the first price to after the last, their timestamps going back and forth.
  const orderTime = (n: number) => T0 - 10_000 + ((n * 7919) % 210_000);
  const orders = Array.from({ length: ORDERS }, (_, n) => ({ id: `o${n}`, item: ITEMS[n % ITEMS.length]!, timestamp: orderTime(n) }));
  for (let start = 0; start < orders.length; start += 500) {
    await producer.send({ topic: topics.orders, messages: orders.slice(start, start + 500).map((o) => ({ key: o.item, value: o.id, timestamp: String(o.timestamp) })) });
  }
  const expected = new Map(orders.map((o) => [o.id, `${o.id}:${priceAsOf(o.item, o.timestamp)?.price ?? 'none'}`]));
  // Every order joined before the late versions go in: an order processed after them would meet them.
  await consumeUntil(await clients.consumer({ groupId: uniqueName('vj-joined') }), topics.priced, ORDERS, 120_000);

  // A late version inserted into the history of ten items: orders at its time meet it, later versions stay.
  const lateTime = T0 + 30_500;
  const lateItems = ITEMS.slice(0, 10);
  await producer.send({ topic: topics.prices, messages: lateItems.map((item) => ({ key: item, value: `late-${item}`, timestamp: String(lateTime) })) });
  for (const item of lateItems) history.get(item)!.push({ timestamp: lateTime, price: `late-${item}` });
  await eventually(
    'the late versions in the history',
    () => Promise.all(lateItems.map(async (item) => (await records(item, lateTime))[0]?.value)),
    (values) => values.every((value, i) => value === `late-${lateItems[i]}`),
  );
  const lateOrders = lateItems.map((item, i) => ({ id: `late-o${i}`, item, timestamp: lateTime + 200 }));
  await producer.send({ topic: topics.orders, messages: lateOrders.map((o) => ({ key: o.item, value: o.id, timestamp: String(o.timestamp) })) });
  for (const o of lateOrders) expected.set(o.id, `${o.id}:late-${o.item}`);

  const output = await consumeUntil(await clients.consumer({ groupId: uniqueName('vj-check') }), topics.priced, expected.size, 120_000);
  const joined = new Map(output.map((r) => [r.value!.split(':')[0]!, r.value!]));
  expect(output).toHaveLength(expected.size);
  expect(joined).toEqual(expected);
  expect(output.filter((r) => r.value!.endsWith(':none')).length).toBeGreaterThan(0);

  // Queries: the latest version, versions as of times before, between and after the versions, and a bad as_of.
  const times = [T0 - 5_000, T0 + 1_000, lateTime, T0 + 95_000, T0 + 500_000];
  const check = async () => {
    for (const item of ITEMS) {
      expect(await records(item)).toEqual([{ key: item, value: latest(item).price, timestamp: latest(item).timestamp }]);
      for (const time of times) expect([item, time, await records(item, time)]).toEqual([item, time, expectedRecords(item, time)]);
    }
  };
  await check();
  const bad = await get(ITEMS[0]!, 'soon' as unknown as number);
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({
    error_code: 400,
    exception: 'InvalidQuery',
    message: expect.stringContaining("'as_of' must be a time"),
    path: `/api/v1/applications/${applicationId}/stores/${PRICES_STORE}`,
  });

  // The changelog keeps every version for the history retention plus a day (Kafka Streams' versioned changelog).
  const changelog = await describeTopicConfigs(await clients.admin(), `${applicationId}-${PRICES_STORE}-changelog`);
  expect(changelog['cleanup.policy']).toBe('compact');
  expect(changelog['min.compaction.lag.ms']).toBe(String(PRICE_HISTORY_MS + 86_400_000));

  // Stopped, its state directory deleted, started again: the history comes back from the changelog.
  await node.stop();
  fs.rmSync(path.join(workDir, 'node', 'state'), { recursive: true, force: true });
  node = await startNode();
  const stores = (await node.get(`/api/v1/streams/${applicationId}/stores`)).body as { store: string; last_restoration?: { total_restored: number } }[];
  const restored = stores.filter((s) => s.store === PRICES_STORE).reduce((n, s) => n + (s.last_restoration?.total_restored ?? 0), 0);
  expect(restored).toBe(versions.length + lateItems.length);
  await check();
});
