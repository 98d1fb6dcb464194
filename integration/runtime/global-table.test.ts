/**
 * A KStream–GlobalKTable join on a real broker: a fresh node restores the whole customers table from every partition
 * of its topic before it runs, joins orders against it, follows the topic while running, checkpoints in `global/`,
 * and answers queries of the global store itself, never asking a peer.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StreamsInstance } from '../../src';
import type { ReadOnlyKeyValueStore } from '../../src';
import { type Customer, CUSTOMERS_STORE, type EnrichedOrder, type OrderTopics, orderEnrichmentTopology } from '../../examples/order-enrichment';
import type { TopologyDefinition } from '../../src/host/topology-definition';
import { createTopics } from '../../src/streams/kafka';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import type { StreamsState } from '../../src/streams/runtime/streams-state';
import { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const CUSTOMERS = 5_000;
const clients = new KafkaTestClients();
const topics: OrderTopics = { orders: uniqueName('gt-orders'), customers: uniqueName('gt-customers'), enrichedOrders: uniqueName('gt-enriched') };

const customer = (i: number): Customer => ({ name: `name-${i}`, tier: i % 2 === 0 ? 'gold' : 'silver' });

async function produceCustomers(from: number, to: number, tier?: string): Promise<void> {
  const producer = await clients.producer();
  for (let start = from; start < to; start += 1000) {
    const messages = [];
    for (let i = start; i < Math.min(to, start + 1000); i++) messages.push({ key: `c${i}`, value: JSON.stringify({ ...customer(i), ...(tier ? { tier } : {}) }) });
    await producer.send({ topic: topics.customers, messages });
  }
}

async function produceOrders(orders: [id: string, customer: string][]): Promise<void> {
  const producer = await clients.producer();
  await producer.send({ topic: topics.orders, messages: orders.map(([id, c]) => ({ key: id, value: JSON.stringify({ customer: c, item: 'tea', amount: 3 }) })) });
}

beforeAll(async () => {
  // Two partitions of customers against three of orders: a global table needs no co-partitioning.
  await createTopics(await clients.admin(), [
    { name: topics.customers, partitions: 2 },
    { name: topics.orders, partitions: 3 },
    { name: topics.enrichedOrders, partitions: 3 },
  ]);
  await produceCustomers(0, CUSTOMERS);
});

afterAll(() => clients.close());

it('restores the whole table on a fresh node before RUNNING, joins with it, follows its topic, and checkpoints in global/', async () => {
  const stateDir = tempStateDir();
  const config = { 'application.id': uniqueName('gt'), 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': stateDir, 'commit.interval.ms': 200 };
  const instance = new StreamsInstance(orderEnrichmentTopology(topics), config, { logger: testLogger });
  const restores: RestoreEvent[] = [];
  const states: StreamsState[] = [];
  const restoredWhenRunning: number[] = [];
  const restored = (): number => {
    const last = new Map<number, number>();
    for (const e of restores) last.set(e.partition, e.restored);
    return [...last.values()].reduce((a, b) => a + b, 0);
  };
  instance.on('restore', (e) => restores.push(e));
  instance.on('state', ({ state }) => {
    states.push(state);
    if (state === 'RUNNING') restoredWhenRunning.push(restored());
  });
  const started = Date.now();
  await instance.start();
  try {
    await waitForState(instance, 'RUNNING');
    const runningAfterMs = Date.now() - started;
    // Every customer was in the store before the instance first ran: both partitions, to their ends.
    expect(restoredWhenRunning[0]).toBe(CUSTOMERS);
    expect(new Set(restores.map((e) => `${e.store}/${e.topic}-${e.partition}`))).toEqual(new Set([`${CUSTOMERS_STORE}/${topics.customers}-0`, `${CUSTOMERS_STORE}/${topics.customers}-1`]));
    expect(states[0]).toBe('REBALANCING');
    const store = instance.queryableStores(CUSTOMERS_STORE).get(0) as unknown as ReadOnlyKeyValueStore<string, { value: Customer }>;
    expect(store.approximateNumEntries()).toBe(CUSTOMERS);
    testLogger.info({ customers: CUSTOMERS, runningAfterMs, restored: restored() }, 'global table restored');

    await produceOrders([
      ['o1', 'c1'],
      ['o2', 'c2'],
      ['o3', 'nobody'],
    ]);
    const first = await consumeUntil(await clients.consumer({ groupId: uniqueName('gt-check') }), topics.enrichedOrders, 3);
    const byOrder = new Map(first.map((r) => [r.key!, JSON.parse(r.value!) as EnrichedOrder]));
    expect(byOrder.get('o1')).toMatchObject({ customer: 'c1', name: 'name-1', tier: 'silver' });
    expect(byOrder.get('o2')).toMatchObject({ customer: 'c2', name: 'name-2', tier: 'gold' });
    expect(byOrder.get('o3')).toMatchObject({ customer: 'nobody', name: null, tier: null });

    // An update of the table topic while running reaches the store, and the joins after it.
    await produceCustomers(1, 3, 'platinum');
    await waitFor(() => store.get('c1')?.value.tier === 'platinum' && store.get('c2')?.value.tier === 'platinum', 'the updated customers in the global store', 30_000);
    await produceOrders([['o4', 'c1']]);
    const after = await consumeUntil(await clients.consumer({ groupId: uniqueName('gt-check') }), topics.enrichedOrders, 4);
    expect(JSON.parse(after.find((r) => r.key === 'o4')!.value!)).toMatchObject({ name: 'name-1', tier: 'platinum' });
  } finally {
    await instance.close();
  }
  const checkpoint = fs.readFileSync(path.join(stateDir, config['application.id'], 'global', '.checkpoint'), 'utf8').trim().split('\n');
  const offsets = await (await clients.admin()).fetchTopicOffsets(topics.customers);
  expect(checkpoint.slice(2).sort()).toEqual(offsets.map((p) => `${topics.customers} ${p.partition} ${p.high}`).sort());

  // Started again on the same state: only what the checkpoint does not cover is read (here nothing).
  const again = new StreamsInstance(orderEnrichmentTopology(topics), config, { logger: testLogger });
  const restoredAgain: RestoreEvent[] = [];
  again.on('restore', (e) => restoredAgain.push(e));
  await again.start();
  try {
    await waitForState(again, 'RUNNING');
    expect(restoredAgain.reduce((n, e) => Math.max(n, e.restored), 0)).toBe(0);
    const store = again.queryableStores(CUSTOMERS_STORE).get(0) as unknown as ReadOnlyKeyValueStore<string, { value: Customer }>;
    expect(store.approximateNumEntries()).toBe(CUSTOMERS);
  } finally {
    await again.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

it('answers a query of the global store on the node asked, with every record and no peer part, and lists it in the topology', async () => {
  const definition: TopologyDefinition = {
    name: 'io.sluice.it.OrderEnrichment',
    version: '1.0.0',
    description: 'Orders joined with a global customers table',
    aliases: ['order-enrichment'],
    build: () => orderEnrichmentTopology(topics),
  };
  const id = uniqueName('gt-api');
  const nodes = [
    await TestNode.start({ topologies: [definition], instances: [{ topology: 'order-enrichment', applicationId: id }] }),
    await TestNode.start({ topologies: [definition], instances: [{ topology: 'order-enrichment', applicationId: id }] }),
  ];
  try {
    for (const node of nodes) await node.waitForState(id, 'RUNNING');
    for (const node of nodes) {
      const server = new URL(node.url).host;
      const get = await node.call('POST', `/api/v1/applications/${id}/stores/${CUSTOMERS_STORE}`, { type: 'key_value', query: { get: { key: 'c4321' } } });
      expect(get.status).toBe(200);
      expect(get.json()).toMatchObject({
        status: 'SUCCESS',
        result: { total: 1, failure: [], success: [{ server, remote: false, records: [{ key: 'c4321', value: { name: 'name-4321', tier: 'silver' } }] }] },
      });
      const all = await node.call('POST', `/api/v1/applications/${id}/stores/${CUSTOMERS_STORE}`, { type: 'key_value', query: { all: {} } });
      const body = all.json() as { status: string; result: { total: number; success: { server: string; remote: boolean }[] } };
      expect(body.status).toBe('SUCCESS');
      expect(body.result.total).toBe(CUSTOMERS);
      expect(body.result.success.map((p) => [p.server, p.remote])).toEqual([[server, false]]);
    }
    const dag = (await nodes[0]!.get(`/api/v1/streams/${id}/topology`)).json() as { globalStores: { id: number; processor: { stores: string[] } }[] };
    expect(dag.globalStores).toEqual([expect.objectContaining({ id: 0, processor: expect.objectContaining({ stores: [CUSTOMERS_STORE] }) })]);
  } finally {
    for (const node of nodes) await node.stop();
  }
});
