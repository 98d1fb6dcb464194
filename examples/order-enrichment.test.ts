import { Serdes, TopologyTestDriver } from '../src';
import {
  type Balance,
  BALANCES_STORE,
  type Customer,
  CUSTOMERS_STORE,
  type EnrichedOrder,
  LARGE_ORDERS_EVENT,
  type Order,
  ORDER_TOPICS,
  type Payment,
  orderEnrichmentTopology,
  type PricedOrder,
  PRICED_ORDERS_STORE,
  type Product,
} from './order-enrichment';

describe('order-enrichment example', () => {
  let driver: TopologyTestDriver;

  beforeEach(() => {
    driver = new TopologyTestDriver(orderEnrichmentTopology(), { 'application.id': 'order-enrichment' }, 0);
  });

  afterEach(async () => {
    await driver.close();
  });

  it('joins each order with its customer from the global table, unknown customers with nulls, updates as they come', () => {
    const customers = driver.createInputTopic(ORDER_TOPICS.customers, Serdes.String(), Serdes.Json<Customer>());
    const orders = driver.createInputTopic(ORDER_TOPICS.orders, Serdes.String(), Serdes.Json<Order>());
    customers.pipeInput('c1', { name: 'Ada', tier: 'gold' }, 0);
    orders.pipeInput('o1', { customer: 'c1', item: 'tea', amount: 3 }, 1);
    orders.pipeInput('o2', { customer: 'c2', item: 'cake', amount: 5 }, 2);
    customers.pipeInput('c2', { name: 'Bob', tier: 'silver' }, 3);
    customers.pipeInput('c1', { name: 'Ada', tier: 'platinum' }, 4);
    orders.pipeInput('o3', { customer: 'c1', item: 'scone', amount: 4 }, 5);
    orders.pipeInput('o4', { customer: 'c2', item: 'tea', amount: 3 }, 6);
    const output = driver.createOutputTopic(ORDER_TOPICS.enrichedOrders, Serdes.String(), Serdes.Json<EnrichedOrder>());
    expect(output.readKeyValuesToList()).toEqual([
      { key: 'o1', value: { customer: 'c1', item: 'tea', amount: 3, name: 'Ada', tier: 'gold' } },
      { key: 'o2', value: { customer: 'c2', item: 'cake', amount: 5, name: null, tier: null } },
      { key: 'o3', value: { customer: 'c1', item: 'scone', amount: 4, name: 'Ada', tier: 'platinum' } },
      { key: 'o4', value: { customer: 'c2', item: 'tea', amount: 3, name: 'Bob', tier: 'silver' } },
    ]);
    expect(driver.getKeyValueStore<string, { value: Customer }>(CUSTOMERS_STORE).get('c2')?.value).toEqual({ name: 'Bob', tier: 'silver' });
  });

  it('publishes the enriched orders of at least 1000 to the large-orders event type, and nothing else', () => {
    const customers = driver.createInputTopic(ORDER_TOPICS.customers, Serdes.String(), Serdes.Json<Customer>());
    const orders = driver.createInputTopic(ORDER_TOPICS.orders, Serdes.String(), Serdes.Json<Order>());
    customers.pipeInput('c1', { name: 'Ada', tier: 'gold' }, 0);
    orders.pipeInput('o1', { customer: 'c1', item: 'tea', amount: 3 }, 1);
    orders.pipeInput('o2', { customer: 'c1', item: 'piano', amount: 4200 }, 2);
    orders.pipeInput('o3', { customer: 'c9', item: 'car', amount: 1000 }, 3);
    expect(orderEnrichmentTopology().eventTypes()).toEqual([LARGE_ORDERS_EVENT]);
    expect(driver.publishedEvents(LARGE_ORDERS_EVENT)).toEqual([
      { type: LARGE_ORDERS_EVENT, key: 'o2', value: { customer: 'c1', item: 'piano', amount: 4200, name: 'Ada', tier: 'gold' }, timestamp: 2 },
      { type: LARGE_ORDERS_EVENT, key: 'o3', value: { customer: 'c9', item: 'car', amount: 1000, name: null, tier: null }, timestamp: 3 },
    ]);
    expect(driver.publishedEvents('other')).toEqual([]);
  });

  it('prices the latest version of each order with its item from the products table, and re-prices them as prices change', () => {
    const products = driver.createInputTopic(ORDER_TOPICS.products, Serdes.String(), Serdes.Json<Product>());
    const orders = driver.createInputTopic(ORDER_TOPICS.orders, Serdes.String(), Serdes.Json<Order>());
    const priced = driver.createOutputTopic(ORDER_TOPICS.pricedOrders, Serdes.String(), Serdes.Json<PricedOrder>());
    products.pipeInput('tea', { price: 3 }, 0);
    orders.pipeInput('o1', { customer: 'c1', item: 'tea', amount: 2 }, 1);
    orders.pipeInput('o2', { customer: 'c2', item: 'cake', amount: 1 }, 2);
    products.pipeInput('cake', { price: 4 }, 3);
    // o1 changes item: it is priced with cake from now on, and tea's price no longer reaches it.
    orders.pipeInput('o1', { customer: 'c1', item: 'cake', amount: 2 }, 4);
    products.pipeInput('tea', { price: 3.5 }, 5);
    products.pipeInput('cake', { price: 4.5 }, 6);
    expect(priced.readKeyValuesToList()).toEqual([
      { key: 'o1', value: { customer: 'c1', item: 'tea', amount: 2, price: 3, total: 6 } },
      { key: 'o2', value: { customer: 'c2', item: 'cake', amount: 1, price: null, total: null } },
      { key: 'o2', value: { customer: 'c2', item: 'cake', amount: 1, price: 4, total: 4 } },
      { key: 'o1', value: { customer: 'c1', item: 'cake', amount: 2, price: 4, total: 8 } },
      { key: 'o1', value: { customer: 'c1', item: 'cake', amount: 2, price: 4.5, total: 9 } },
      { key: 'o2', value: { customer: 'c2', item: 'cake', amount: 1, price: 4.5, total: 4.5 } },
    ]);
    expect(driver.getTimestampedKeyValueStore<string, PricedOrder>(PRICED_ORDERS_STORE).get('o1')?.value.total).toBe(9);
  });

  it('needs no co-partitioning of its inputs: the global store makes no task, and the foreign-key join and the cogroup size their own topics', () => {
    const topology = orderEnrichmentTopology();
    const internal = topology.repartitionTopics().map((t) => t.name);
    expect(internal).toEqual([
      expect.stringMatching(/^KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d+-topic$/),
      expect.stringMatching(/^KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d+-topic$/),
      'orders-by-customer-repartition',
    ]);
    // Each internal topic is co-partitioned with one input, never the inputs with each other.
    expect(topology.copartitionedTopics()).toEqual([
      [internal[0], ORDER_TOPICS.products],
      [internal[1], ORDER_TOPICS.orders],
      [internal[2], ORDER_TOPICS.payments],
    ]);
    expect(topology.toString()).toContain('Sub-topology: 0 for global store (will not generate tasks)');
    const withoutPricing = orderEnrichmentTopology({ orders: 'o', customers: 'c', enrichedOrders: 'e' });
    expect(withoutPricing.copartitionedTopics()).toEqual([]);
    expect(withoutPricing.repartitionTopics()).toEqual([]);
  });

  it("folds each customer's orders and valid payments into one balance (cogroup); payments of zero or less are dropped (processValues)", () => {
    const orders = driver.createInputTopic(ORDER_TOPICS.orders, Serdes.String(), Serdes.Json<Order>());
    const payments = driver.createInputTopic(ORDER_TOPICS.payments, Serdes.String(), Serdes.Json<Payment>());
    orders.pipeInput('o1', { customer: 'c1', item: 'tea', amount: 3 }, 1);
    orders.pipeInput('o2', { customer: 'c2', item: 'cake', amount: 4.5 }, 2);
    payments.pipeInput('c1', { amount: 2.004 }, 3);
    payments.pipeInput('c1', { amount: 0 }, 4);
    payments.pipeInput('c2', { amount: -1 }, 5);
    orders.pipeInput('o3', { customer: 'c1', item: 'scone', amount: 2.5 }, 6);
    const output = driver.createOutputTopic(ORDER_TOPICS.balances, Serdes.String(), Serdes.Json<Balance>());
    expect(output.readKeyValuesToList()).toEqual([
      { key: 'c1', value: { ordered: 3, paid: 0, due: 3 } },
      { key: 'c2', value: { ordered: 4.5, paid: 0, due: 4.5 } },
      { key: 'c1', value: { ordered: 3, paid: 2, due: 1 } },
      { key: 'c1', value: { ordered: 5.5, paid: 2, due: 3.5 } },
    ]);
    expect(driver.getKeyValueStore<string, { value: Balance }>(BALANCES_STORE).get('c2')?.value).toEqual({ ordered: 4.5, paid: 0, due: 4.5 });
  });
});
