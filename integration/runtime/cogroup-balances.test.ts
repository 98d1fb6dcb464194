/**
 * The order-enrichment example's balances on a real broker: a cogroup of the orders (repartitioned by customer, from
 * three partitions into the payments' two) and of the payments checked by a fixed-key processor (`processValues`).
 * Every customer's balance in the store and on the output topic is what the input adds up to; every refused payment
 * is dropped and no other record.
 */
import { StreamsInstance } from '../../src';
import type { ReadOnlyKeyValueStore, ValueAndTimestamp } from '../../src';
import { type Balance, BALANCES_STORE, type OrderTopics, orderEnrichmentTopology } from '../../examples/order-enrichment';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, consumeUntil, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

const ORDERS = 3_000;
const PAYMENTS = 1_200;
const CUSTOMERS = 25;

const orderAmount = (i: number): number => (i % 7) + 0.5;
/** One payment in three is of zero or less: refused. */
const paymentAmount = (i: number): number => (i % 6) - 1;

function expectedBalances(): Map<string, Balance> {
  const balances = new Map<string, Balance>();
  const of = (customer: string) => balances.get(customer) ?? { ordered: 0, paid: 0, due: 0 };
  for (let i = 0; i < ORDERS; i++) {
    const b = of(`c${i % CUSTOMERS}`);
    balances.set(`c${i % CUSTOMERS}`, { ...b, ordered: b.ordered + orderAmount(i), due: b.due + orderAmount(i) });
  }
  for (let i = 0; i < PAYMENTS; i++) {
    if (paymentAmount(i) <= 0) continue;
    const b = of(`c${i % CUSTOMERS}`);
    balances.set(`c${i % CUSTOMERS}`, { ...b, paid: b.paid + paymentAmount(i), due: b.due - paymentAmount(i) });
  }
  return balances;
}

describe('cogroup and processValues on a real broker', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  it(
    "folds each customer's orders and valid payments into one balance, in the store and on the output topic",
    async () => {
      const topics: Required<OrderTopics> = {
        orders: uniqueName('cg-orders'),
        customers: uniqueName('cg-customers'),
        enrichedOrders: uniqueName('cg-enriched'),
        products: uniqueName('cg-products'),
        pricedOrders: uniqueName('cg-priced'),
        payments: uniqueName('cg-payments'),
        balances: uniqueName('cg-balances'),
      };
      await createTopics(await clients.admin(), [
        { name: topics.orders, partitions: 3 },
        { name: topics.customers, partitions: 1 },
        { name: topics.enrichedOrders, partitions: 1 },
        { name: topics.products, partitions: 1 },
        { name: topics.pricedOrders, partitions: 1 },
        { name: topics.payments, partitions: 2 },
        { name: topics.balances, partitions: 2 },
      ]);
      const applicationId = uniqueName('cg');
      const instance = new StreamsInstance(
        orderEnrichmentTopology(topics),
        // No record cache: every order and every valid payment gives one balance on the output topic.
        { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 200, 'statestore.cache.max.bytes': 0 },
        { logger: testLogger },
      );
      try {
        await instance.start();
        await waitForState(instance, 'RUNNING');
        const producer = await clients.producer();
        const orders = Array.from({ length: ORDERS }, (_, i) => ({ key: `o${i}`, value: JSON.stringify({ customer: `c${i % CUSTOMERS}`, item: 'tea', amount: orderAmount(i) }) }));
        const payments = Array.from({ length: PAYMENTS }, (_, i) => ({ key: `c${i % CUSTOMERS}`, value: JSON.stringify({ amount: paymentAmount(i) }) }));
        await producer.send({ topic: topics.orders, messages: orders });
        await producer.send({ topic: topics.payments, messages: payments });

        const expected = expectedBalances();
        const valid = payments.filter((_, i) => paymentAmount(i) > 0).length;
        const published = await consumeUntil(await clients.consumer({ groupId: uniqueName('cg-check') }), topics.balances, ORDERS + valid, 90_000);
        // One balance per order and per valid payment: the refused payments reached no aggregator.
        expect(published).toHaveLength(ORDERS + valid);
        const latest = new Map(published.map((r) => [r.key!, JSON.parse(r.value!) as Balance]));
        expect(Object.fromEntries(latest)).toEqual(Object.fromEntries(expected));

        const stored = () => {
          const balances = new Map<string, Balance>();
          for (const store of instance.queryableStores(BALANCES_STORE).values()) {
            for (const kv of (store as unknown as ReadOnlyKeyValueStore<string, ValueAndTimestamp<Balance>>).all()) balances.set(kv.key, kv.value.value);
          }
          return balances;
        };
        await waitFor(() => stored().size === CUSTOMERS, 'every customer in the balances store', 30_000);
        expect(Object.fromEntries(stored())).toEqual(Object.fromEntries(expected));
        expect(instance.topology.toString()).toContain(`orders-by-customer-repartition`);
      } finally {
        await instance.close();
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
