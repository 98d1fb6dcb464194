/**
 * A topology's own event types (compatibility file, section 6): the order-enrichment example publishes its large
 * orders to `large-orders`; a client of a real node on a real broker lists the type beside the built-in ones,
 * subscribes to it, and receives every large order, enriched, as `{"record": {key, value, timestamp}}`, and no other.
 */
import type { TopologyDefinition } from '../../src/host/topology-definition';
import { createTopics } from '../../src/streams/kafka';
import { LARGE_ORDERS_EVENT, orderEnrichmentTopology, type OrderTopics } from '../../examples/order-enrichment';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { EventSubscription } from './support/sse';
import { TestNode } from './support/node';

jest.setTimeout(4 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

it('sends each record the topology publishes to the subscribers of its event type', async () => {
  const topics: OrderTopics = { orders: uniqueName('events-orders'), customers: uniqueName('events-customers'), enrichedOrders: uniqueName('events-enriched') };
  const id = uniqueName('events');
  await createTopics(await clients.admin(), [
    { name: topics.orders, partitions: 2 },
    { name: topics.customers, partitions: 1 },
    { name: topics.enrichedOrders, partitions: 2 },
  ]);
  const definition: TopologyDefinition = {
    name: 'io.sluice.it.OrderEnrichment',
    version: '1.0.0',
    description: 'Order enrichment on test topics',
    aliases: ['order-enrichment'],
    build: () => orderEnrichmentTopology(topics),
  };
  const node = await TestNode.start({ topologies: [definition], instances: [{ topology: 'order-enrichment', applicationId: id }] });
  let events: EventSubscription | undefined;
  try {
    const listed = await node.get(`/api/v1/streams/${id}/subscriptions`);
    expect(listed.json()).toEqual(['state', 'rebalance', 'restore', 'metrics', 'thread', 'timeline', 'memory', LARGE_ORDERS_EVENT]);
    const unknown = await node.get(`/api/v1/streams/${id}/subscribe/small-orders`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error_code: 404, exception: 'UnknownEventType', message: expect.stringContaining(LARGE_ORDERS_EVENT) });

    events = await EventSubscription.open(`${node.url}/api/v1/streams/${id}/subscribe/${LARGE_ORDERS_EVENT}`);
    await node.waitForState(id, 'RUNNING');
    const producer = await clients.producer();
    await producer.send({ topic: topics.customers, messages: [{ key: 'c1', value: JSON.stringify({ name: 'Ada', tier: 'gold' }) }] });
    // Orders sent once the customer is in the global table: they are joined with it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const amounts = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? 1000 + i : i));
    await producer.send({
      topic: topics.orders,
      messages: amounts.map((amount, i) => ({ key: `o${i}`, value: JSON.stringify({ customer: 'c1', item: `item-${i}`, amount }), timestamp: String(1_700_000_000_000 + i) })),
    });
    const large = amounts.map((amount, i) => ({ amount, i })).filter(({ amount }) => amount >= 1000);
    await events.waitFor((frames) => frames.length >= large.length, `${large.length} large orders`, 60_000);
    // A moment for anything that should not come.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(events.frames.every((frame) => frame.event === LARGE_ORDERS_EVENT)).toBe(true);
    const received = events.frames.map((frame) => frame.data.record as { key: string; value: { amount: number; name: string }; timestamp: number });
    expect(received.map((r) => r.key).sort()).toEqual(large.map(({ i }) => `o${i}`).sort());
    for (const record of received) {
      const i = Number(record.key.slice(1));
      expect(record).toEqual({ key: `o${i}`, value: { customer: 'c1', item: `item-${i}`, amount: amounts[i], name: 'Ada', tier: 'gold' }, timestamp: 1_700_000_000_000 + i });
    }
    expect(new Set(events.frames.map((frame) => frame.id)).size).toBe(events.frames.length);
  } finally {
    events?.close();
    await node.stop();
  }
});
