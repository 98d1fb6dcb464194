/**
 * The cluster view at a real topology's size: the order-enrichment example, whose cogroup reads two topics (the
 * orders repartitioned by customer, and the payments) into one store and whose customers are a global store. Each
 * partition of each store names its node once, and the global store is listed, on this node.
 */
import type { Browser } from 'playwright-core';
import { BALANCES_STORE, CUSTOMERS_STORE, orderEnrichmentTopology, type OrderTopics } from '../../examples/order-enrichment';
import { createTopics } from '../../src/streams/kafka';
import { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { launchChromium } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const id = uniqueName('console-orders');
const topics: Required<OrderTopics> = {
  orders: uniqueName('console-orders-in'),
  customers: uniqueName('console-customers'),
  enrichedOrders: uniqueName('console-enriched'),
  products: uniqueName('console-products'),
  pricedOrders: uniqueName('console-priced'),
  payments: uniqueName('console-payments'),
  balances: uniqueName('console-balances'),
};

let node: TestNode;
let browser: Browser;

beforeAll(async () => {
  const partitions: Record<keyof OrderTopics, number> = { orders: 3, customers: 2, enrichedOrders: 3, products: 2, pricedOrders: 3, payments: 2, balances: 2 };
  const [launched] = await Promise.all([
    launchChromium(),
    createTopics(
      await clients.admin(),
      Object.entries(topics).map(([key, name]) => ({ name, partitions: partitions[key as keyof OrderTopics] })),
    ),
  ]);
  browser = launched;
  node = await TestNode.start({
    topologies: [{ name: 'io.sluice.it.OrderEnrichment', version: '1.0.0', description: 'Order enrichment on test topics', aliases: ['order-enrichment'], build: () => orderEnrichmentTopology(topics) }],
    instances: [{ topology: 'order-enrichment', applicationId: id }],
  });
  await node.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('lists each node once per store partition, and the global store on this node', async () => {
  const page = await browser.newPage();
  await page.goto(`${node.url}/ui/#/cluster`);
  const table = page.getByTestId('store-partitions');
  const balances = table.locator(`tbody tr[data-store="${BALANCES_STORE}"]`);
  // The balances are partitioned as the payments: two partitions.
  await waitFor(async () => (await balances.count()) === 2, 'a row per partition of the balances', 60_000);
  const thisNode = expect.stringMatching(new RegExp(`^\\S+:${new URL(node.url).port} \\(this node\\)$`));
  const rows = await table.locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ store: tr.getAttribute('data-store'), partition: tr.getAttribute('data-partition'), active: tr.children[3]!.textContent })),
  );
  expect(rows.length).toBeGreaterThan(3);
  for (const row of rows) expect(row).toEqual({ ...row, active: thisNode });
  expect(rows.filter((row) => row.store === BALANCES_STORE)).toEqual([
    { store: BALANCES_STORE, partition: '0', active: thisNode },
    { store: BALANCES_STORE, partition: '1', active: thisNode },
  ]);
  expect(rows.filter((row) => row.store === CUSTOMERS_STORE)).toEqual([{ store: CUSTOMERS_STORE, partition: 'global', active: thisNode }]);
  expect(await table.locator(`tr[data-store="${CUSTOMERS_STORE}"] td`).nth(2).textContent()).toBe('all (global)');
  await page.close();
});
