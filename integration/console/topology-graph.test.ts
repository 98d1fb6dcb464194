/**
 * The topology graph at a real topology's size, the order-enrichment example (three sub-topologies, a foreign-key
 * join, a repartition, a global store), as a user meets it: fitted to its box with no sideways scroll, zoom and fit
 * buttons, a sub-topology that collapses and expands, the join's internal topics drawn as the legend says, and a
 * side panel per node (type, stores, topics, metrics) opened by a click or by the keyboard and closed by Esc. The
 * page with it fits a 390 px phone. Screenshots go to test-output/console/topology-*.png. (The console's size is
 * held by src/server/plugins/ui.test.ts.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { orderEnrichmentTopology, type OrderTopics } from '../../examples/order-enrichment';
import { createTopics } from '../../src/streams/kafka';
import { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, launchChromium, openPage } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 30_000;

const clients = new KafkaTestClients();
const id = uniqueName('graph-orders');
const topics: Required<OrderTopics> = {
  orders: uniqueName('graph-orders-in'),
  customers: uniqueName('graph-customers'),
  enrichedOrders: uniqueName('graph-enriched'),
  products: uniqueName('graph-products'),
  pricedOrders: uniqueName('graph-priced'),
  payments: uniqueName('graph-payments'),
  balances: uniqueName('graph-balances'),
};

// The nodes the tests open, found in the topology's own description rather than by the builder's numbering.
const description = orderEnrichmentTopology(topics).describe();
const allNodes = description.subTopologies.flatMap((sub) => sub.nodes.map((node) => ({ ...node, sub: sub.id })));
const ordersSource = allNodes.find((node) => node.topics?.includes(topics.orders))!;
const toTable = allNodes.find((node) => node.name.startsWith('KSTREAM-TOTABLE-'))!;
const productsSub = allNodes.find((node) => node.topics?.includes(topics.products))!.sub;

let node: TestNode;
let browser: Browser;

async function openInstance(options: { width: number; height: number; colorScheme?: 'light' | 'dark' }): Promise<Page> {
  const page = await openPage(browser, options);
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await page.getByTestId('graph-node').first().waitFor({ timeout: STEP_MS });
  return page;
}

const graphNode = (page: Page, name: string) => page.locator(`[data-testid="graph-node"][data-name="${name}"]`);
/** The live figures drawn under a node. */
const figuresUnder = (page: Page, name: string) => page.locator(`[data-testid="node-figures"][data-of="${name}"]`);
const transform = (page: Page) => page.getByTestId('graph-drawing').getAttribute('transform');
const scaleOf = (value: string | null) => Number(/scale\(([\d.e-]+)\)/.exec(value ?? '')?.[1]);
const focused = (page: Page) =>
  page.evaluate<{ testId: string | null; name: string | null }>(`({
    testId: document.activeElement?.getAttribute('data-testid') ?? null,
    name: document.activeElement?.getAttribute('data-name') ?? null,
  })`);

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const [launched] = await Promise.all([launchChromium(), createTopics(await clients.admin(), Object.values(topics).map((name) => ({ name, partitions: 2 })))]);
  browser = launched;
  node = await TestNode.start({
    topologies: [{ name: 'io.sluice.it.OrderEnrichment', version: '1.0.0', description: 'Order enrichment on test topics', aliases: ['order-enrichment'], build: () => orderEnrichmentTopology(topics) }],
    instances: [{ topology: 'order-enrichment', applicationId: id }],
  });
  await node.waitForState(id, 'RUNNING');
  // An order processed, so that its source reports metrics.
  const producer = await clients.producer();
  await producer.send({ topic: topics.orders, messages: [{ key: 'order-1', value: JSON.stringify({ customer: 'c-1', item: 'widget', amount: 12 }) }] });
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('at 1440×900 the whole graph fits its box: no sideways scroll, the drawing within it', async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  const viewport = page.getByTestId('graph-viewport');
  const box = (await viewport.boundingBox())!;
  const drawing = (await page.getByTestId('graph-drawing').boundingBox())!;
  expect(await viewport.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0);
  expect(await horizontalOverflow(page)).toBe(0);
  expect(drawing.x).toBeGreaterThanOrEqual(box.x);
  expect(drawing.y).toBeGreaterThanOrEqual(box.y);
  expect(drawing.x + drawing.width).toBeLessThanOrEqual(box.x + box.width);
  expect(drawing.y + drawing.height).toBeLessThanOrEqual(box.y + box.height);
  // Every node of the description is drawn.
  for (const { name } of allNodes) expect(await graphNode(page, name).count()).toBe(1);
  await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'topology-1440.png') });
  await page.context().close();
});

it("the foreign-key join's subscription and response topics and the repartition topic are internal, as the legend explains", async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  const internal = await page
    .locator('[data-testid="graph-node"][data-kind="internal-topic"]')
    .evaluateAll((nodes) => nodes.map((n) => ({ name: n.getAttribute('data-name'), internal: n.getAttribute('data-internal'), drawn: n.getAttribute('class') })));
  expect(internal.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual([
    { name: expect.stringMatching(/^KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d+-topic$/), internal: 'fk-subscription', drawn: 'node internal-topic' },
    { name: expect.stringMatching(/^KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d+-topic$/), internal: 'fk-response', drawn: 'node internal-topic' },
    { name: 'orders-by-customer-repartition', internal: 'repartition', drawn: 'node internal-topic' },
  ]);
  const external = await page.locator('[data-testid="graph-node"][data-kind="topic"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-name')));
  expect(external.sort()).toEqual(Object.values(topics).sort());
  const legend = page.getByTestId('graph-legend').locator('li[data-kind="internal-topic"]');
  expect(await legend.textContent()).toMatch(/^internal topic: created by the application \(repartition, foreign-key join subscription and response\)$/);
  expect(await legend.locator('.swatch.node-internal-topic').count()).toBe(1);
  await page.context().close();
});

it("a click on a node opens its panel: the node's type, stores, topics and metrics", async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  await graphNode(page, ordersSource.name).click();
  const panel = page.getByRole('region', { name: ordersSource.name });
  await panel.waitFor({ timeout: STEP_MS });
  expect(await panel.getByTestId('panel-type').textContent()).toBe('Source');
  expect(await panel.getByTestId('panel-topics').textContent()).toBe(`reads ${topics.orders}`);
  expect(await panel.getByTestId('panel-stores').textContent()).toBe('none');
  // The order produced has gone through the source on one of its tasks (sub-topology 1, partition 0 or 1).
  const metric = (name: string) => panel.getByTestId('panel-metrics').locator('tbody tr').filter({ has: page.locator('td', { hasText: new RegExp(`^${name}$`) }) });
  await waitFor(async () => (await metric('process-total').count()) > 0, 'the source process-total in its panel', 60_000);
  const totals = await metric('process-total').evaluateAll((rows) => rows.map((row) => ({ task: row.children[0]!.textContent, value: Number(row.children[2]!.textContent) })));
  expect(totals.every((t) => new RegExp(`^${ordersSource.sub}_[01]$`).test(t.task ?? ''))).toBe(true);
  expect(totals.reduce((sum, t) => sum + t.value, 0)).toBe(1);
  await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'topology-panel-1440.png') });

  // Another node's click shows that node.
  await graphNode(page, toTable.name).click();
  const other = page.getByRole('region', { name: toTable.name });
  await other.waitFor({ timeout: STEP_MS });
  expect(await other.getByTestId('panel-type').textContent()).toBe('Processor');
  expect(await other.getByTestId('panel-stores').textContent()).toBe(toTable.stores!.join(''));
  expect(await other.getByTestId('panel-topics').textContent()).toBe('none');
  // Past the sources each node counts what it processes: its process-total per task of its sub-topology.
  const otherMetric = other.getByTestId('panel-metrics').locator('tbody tr').filter({ has: page.locator('td', { hasText: /^process-total$/ }) });
  await waitFor(async () => (await otherMetric.count()) > 0, 'the processor\'s process-total in its panel', STEP_MS);
  const otherTasks = await otherMetric.evaluateAll((rows) => rows.map((row) => row.children[0]!.textContent));
  expect(otherTasks.every((task) => new RegExp(`^${toTable.sub}_\\d+$`).test(task ?? ''))).toBe(true);
  await page.context().close();
});

it("the keyboard reaches the nodes by Tab as one stop, opens a node's panel by Enter or Space, moves by arrows, and Esc closes the panel", async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  await page.getByTestId('graph-fit').focus();
  for (let i = 0; i < 10 && (await focused(page)).testId !== 'graph-node'; i++) await page.keyboard.press('Tab');
  const first = await focused(page);
  expect(first.testId).toBe('graph-node');
  // The nodes are one stop: Tab leaves them, Shift+Tab comes back to the same one.
  await page.keyboard.press('Tab');
  expect((await focused(page)).testId).not.toBe('graph-node');
  await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toEqual(first);
  await page.keyboard.press('Enter');
  const panel = page.getByRole('region', { name: first.name! });
  await panel.waitFor({ timeout: STEP_MS });
  expect(await panel.getByTestId('panel-type').textContent()).toMatch(/^(Source|Processor|Sink|Topic|Internal topic.*|State store)$/);
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached', timeout: STEP_MS });
  expect(await focused(page)).toEqual(first);

  await page.keyboard.press('ArrowDown');
  const next = await focused(page);
  expect(next.testId).toBe('graph-node');
  expect(next.name).not.toBe(first.name);
  await page.keyboard.press(' ');
  await page.getByRole('region', { name: next.name! }).waitFor({ timeout: STEP_MS });
  await page.keyboard.press('Escape');
  await page.getByTestId('graph-panel').waitFor({ state: 'detached', timeout: STEP_MS });
  await page.context().close();
});

it('zoom in and out change the scale; fit puts the drawing back', async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  const fitted = await transform(page);
  await page.getByRole('button', { name: 'Zoom in' }).click();
  expect(scaleOf(await transform(page))).toBeGreaterThan(scaleOf(fitted));
  await page.getByRole('button', { name: 'Zoom out' }).click();
  await page.getByRole('button', { name: 'Zoom out' }).click();
  expect(scaleOf(await transform(page))).toBeLessThan(scaleOf(fitted));
  await page.getByRole('button', { name: 'Fit' }).click();
  expect(await transform(page)).toBe(fitted);
  await page.context().close();
});

it('a sub-topology collapses to one box and expands again, by click or by the keyboard', async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  const label = `Sub-topology ${productsSub}`;
  const members = allNodes.filter((n) => n.sub === productsSub);
  const stores = new Set(members.flatMap((n) => n.stores ?? []));
  await page.getByRole('button', { name: `Collapse ${label}` }).click();
  const group = page.locator(`[data-testid="graph-node"][data-kind="group"][data-name="${label}"]`);
  await group.waitFor({ timeout: STEP_MS });
  expect(await group.textContent()).toContain(`${members.length + stores.size} nodes`);
  for (const { name } of members) expect(await graphNode(page, name).count()).toBe(0);
  // Its topics stay, joined to the box.
  expect(await graphNode(page, topics.products).count()).toBe(1);
  await page.getByRole('button', { name: `Expand ${label}` }).click();
  await graphNode(page, members[0]!.name).waitFor({ timeout: STEP_MS });
  for (const { name } of members) expect(await graphNode(page, name).count()).toBe(1);
  expect(await group.count()).toBe(0);
  // By the keyboard: the focus stays on the group's control as it collapses and expands.
  const focusedLabel = () => page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label') ?? null`);
  expect(await focusedLabel()).toBe(`Collapse ${label}`);
  await page.keyboard.press('Enter');
  await group.waitFor({ timeout: STEP_MS });
  expect(await focusedLabel()).toBe(`Expand ${label}`);
  await page.keyboard.press(' ');
  await graphNode(page, members[0]!.name).waitFor({ timeout: STEP_MS });
  expect(await focusedLabel()).toBe(`Collapse ${label}`);
  await page.context().close();
});

it('at 390×844 the instance page with this graph scrolls only down', async () => {
  const page = await openInstance({ width: 390, height: 844 });
  expect(await horizontalOverflow(page)).toBe(0);
  await graphNode(page, ordersSource.name).click();
  await page.getByRole('region', { name: ordersSource.name }).waitFor({ timeout: STEP_MS });
  expect(await horizontalOverflow(page)).toBe(0);
  await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'topology-390.png') });
  await page.context().close();
});

it('in dark mode, with a panel open', async () => {
  const page = await openInstance({ width: 1440, height: 900, colorScheme: 'dark' });
  await graphNode(page, toTable.name).click();
  await page.getByRole('region', { name: toTable.name }).waitFor({ timeout: STEP_MS });
  expect(await horizontalOverflow(page)).toBe(0);
  await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'topology-dark-1440.png') });
  await page.context().close();
});

it("shows under each node the records per second it processes: rising while orders flow, back to zero once they stop", async () => {
  const page = await openInstance({ width: 1440, height: 900 });
  const next = ordersSource.successors[0]!;
  const rate = async (name: string) => {
    const shown = figuresUnder(page, name).getByTestId('node-rate');
    return (await shown.count()) === 0 ? Number.NaN : Number(await shown.getAttribute('data-value'));
  };
  const producer = await clients.producer();
  let flowing = true;
  const flow = (async () => {
    for (let round = 0; flowing; round++) {
      const messages = Array.from({ length: 50 }, (_, i) => ({ key: `flow-${round}-${i}`, value: JSON.stringify({ customer: 'c-1', item: 'widget', amount: 1 }) }));
      await producer.send({ topic: topics.orders, messages });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    await waitFor(async () => (await rate(ordersSource.name)) > 0 && (await rate(next)) > 0, 'the source and the node after it at a rate above zero while orders flow', STEP_MS);
    expect(await figuresUnder(page, ordersSource.name).getByTestId('node-rate').textContent()).toMatch(/^[\d.]+k?\/s$/);
    await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'topology-rates-1440.png') });
  } finally {
    flowing = false;
    await flow;
  }
  await waitFor(async () => (await rate(ordersSource.name)) === 0 && (await rate(next)) === 0, 'the rates back to zero once the orders stop', STEP_MS);
  await page.context().close();
});
