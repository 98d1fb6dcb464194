/**
 * Every view of the console, checked by axe-core at a desktop's size and a phone's, in light and dark mode: no
 * violation of impact serious or critical (contrast, names of controls, ARIA, lang, ...). The views are the routes
 * ui/src/main.tsx answers, with the dialogs and states that show more: a node runs the word count and the
 * order enrichment (the biggest graph of the examples), signed in as an operator so that restart and stop show.
 * Every link of the console to one of its own views must lead to a view listed here. Screenshots of each view go to
 * test-output/console/all-<view>-<width>[-dark].png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AxeResults, Result } from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ORDER_TOPICS, orderEnrichmentTopology, type OrderTopics } from '../../examples/order-enrichment';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { TestNode, wordCountDefinition } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, launchChromium } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const STEP_MS = 30_000;

const clients = new KafkaTestClients();
const wordCount = { input: uniqueName('a11y-in'), output: uniqueName('a11y-out'), id: uniqueName('a11y-wc') };
const orders = uniqueName('a11y-orders');
const orderTopics = Object.fromEntries(Object.entries(ORDER_TOPICS).map(([part, topic]) => [part, uniqueName(`a11y-${topic}`)])) as Required<OrderTopics>;
const users = { ops: { password: 'ops-pass', role: 'operator' as const } };

interface View {
  name: string;
  hash: string;
  /** Waits until the view shows what it is for, then opens what it adds (a dialog). */
  ready: (page: Page) => Promise<void>;
}

const rowsOf = (page: Page, testId: string) => page.getByTestId(testId).locator('tbody tr');
const atLeastOne = async (page: Page, testId: string, what: string) => waitFor(async () => (await rowsOf(page, testId).count()) > 0, what, STEP_MS);
const instanceHeading = (id: string) => (page: Page) => page.getByRole('heading', { level: 1, name: id }).waitFor({ timeout: STEP_MS });
const instancePage = (id: string) => async (page: Page) => {
  await page.getByTestId('graph-node').first().waitFor({ timeout: STEP_MS });
  await page.getByTestId('config').waitFor({ timeout: STEP_MS });
  await atLeastOne(page, 'offsets', 'an offsets row');
  await atLeastOne(page, 'metrics', 'a metrics row');
  await instanceHeading(id)(page);
};
const dialog = (button: string) => async (page: Page) => {
  await instancePage(wordCount.id)(page);
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.getByRole('dialog').waitFor({ timeout: STEP_MS });
};
const graphPanel = async (page: Page) => {
  await instancePage(orders)(page);
  await page.getByTestId('graph-node').first().click();
  await page.getByTestId('graph-panel').waitFor({ timeout: STEP_MS });
};
const tasksTab = async (page: Page) => {
  await instanceHeading(wordCount.id)(page);
  await page.getByTestId('task').first().waitFor({ timeout: STEP_MS });
  await page.getByTestId('store-row').first().waitFor({ timeout: STEP_MS });
};
/** The node samples lag every 10 s: the chart's first sample can take that long. */
const lagTab = async (page: Page) => {
  await instanceHeading(wordCount.id)(page);
  await page.getByTestId('lag-chart').getByTestId('series').first().waitFor({ timeout: 60_000 });
};
const timelineTab = async (page: Page) => {
  await instanceHeading(wordCount.id)(page);
  await page.getByTestId('timeline-entry').first().waitFor({ timeout: STEP_MS });
  await page.getByTestId('timeline-answered').waitFor({ timeout: STEP_MS });
};
const queryHash = `#/query/${new URLSearchParams({ app: wordCount.id, store: WORD_COUNT_STORE, clause: 'all' }).toString()}`;

/** One line per view: a new route, tab or dialog of the console is a new line here. */
const VIEWS: readonly View[] = [
  { name: 'overview', hash: '#/', ready: (page) => page.getByTestId(`state-${wordCount.id}`).filter({ hasText: 'RUNNING' }).waitFor({ timeout: STEP_MS }) },
  { name: 'instance', hash: `#/instance/${wordCount.id}`, ready: instancePage(wordCount.id) },
  { name: 'instance-tasks', hash: `#/instance/${wordCount.id}/tasks`, ready: tasksTab },
  { name: 'instance-lag', hash: `#/instance/${wordCount.id}/lag`, ready: lagTab },
  { name: 'instance-timeline', hash: `#/instance/${wordCount.id}/timeline`, ready: timelineTab },
  { name: 'instance-orders', hash: `#/instance/${orders}`, ready: instancePage(orders) },
  { name: 'graph-panel', hash: `#/instance/${orders}`, ready: graphPanel },
  { name: 'restart-dialog', hash: `#/instance/${wordCount.id}`, ready: dialog('Restart') },
  { name: 'stop-dialog', hash: `#/instance/${wordCount.id}`, ready: dialog('Stop') },
  { name: 'query', hash: '#/query', ready: (page) => page.getByTestId('curl').filter({ hasText: 'curl' }).waitFor({ timeout: STEP_MS }) },
  { name: 'query-result', hash: queryHash, ready: (page) => atLeastOne(page, 'query-result', 'a query result row') },
  { name: 'cluster', hash: '#/cluster', ready: (page) => atLeastOne(page, 'store-partitions', 'a store partition row') },
  { name: 'not-found', hash: '#/no-such-view', ready: (page) => page.getByTestId('not-found').waitFor({ timeout: STEP_MS }) },
  { name: 'instance-not-found', hash: '#/instance/no-such-instance', ready: (page) => page.getByTestId('not-found').waitFor({ timeout: STEP_MS }) },
  { name: 'tab-not-found', hash: `#/instance/${wordCount.id}/no-such-tab`, ready: (page) => page.getByTestId('not-found').waitFor({ timeout: STEP_MS }) },
];

const WIDE = { width: 1440, height: 900 } as const;
const PHONE = { width: 390, height: 844 } as const;
/**
 * Each view light at both sizes, and dark on the wide screen: the dark scheme changes colours, not layout, so its
 * contrast is checked once (the phone's layout in light).
 */
const RUNS = [
  { size: WIDE, scheme: 'light' },
  { size: PHONE, scheme: 'light' },
  { size: WIDE, scheme: 'dark' },
] as const;

let node: TestNode;
let browser: Browser;
const contexts = new Map<string, BrowserContext>();
/** The console's links to its own views, as found on every view visited. */
const linked = new Set<string>();

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const admin = await clients.admin();
  [browser] = await Promise.all([
    launchChromium(),
    createTopics(admin, [wordCount.input, wordCount.output, ...Object.values(orderTopics)].map((name) => ({ name, partitions: 3 }))),
  ]);
  node = await TestNode.start({
    topologies: [
      wordCountDefinition(wordCount.input, wordCount.output),
      { name: 'io.sluice.it.OrderEnrichment', version: '1.0.0', description: 'Order enrichment on test topics', aliases: ['order-enrichment'], build: () => orderEnrichmentTopology(orderTopics) },
    ],
    instances: [
      { topology: 'word-count', applicationId: wordCount.id },
      { topology: 'order-enrichment', applicationId: orders },
    ],
    server: { users, allowPlaintextPasswords: true },
  });
  const producer = await clients.producer();
  await producer.send({ topic: wordCount.input, messages: ['hello kafka', 'kafka streams in the console'].map((value) => ({ value })) });
  const authorization = `Basic ${Buffer.from('ops:ops-pass').toString('base64')}`;
  const state = async (id: string) => ((await node.call('GET', `/api/v1/streams/${id}`, undefined, { authorization })).json() as { state: { state: string } }).state.state;
  await waitFor(async () => (await state(wordCount.id)) === 'RUNNING' && (await state(orders)) === 'RUNNING', 'both instances RUNNING', 90_000);
  for (const { size, scheme } of RUNS) {
    const context = await browser.newContext({ viewport: size, colorScheme: scheme, httpCredentials: { username: 'ops', password: 'ops-pass', send: 'always' } });
    contexts.set(`${size.width}-${scheme}`, context);
  }
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

const describeNode = (node: Result['nodes'][number]) => `${node.target.join(' ')}${node.failureSummary ? ` (${node.failureSummary.replace(/\s+/g, ' ')})` : ''}`;

/** Serious and critical violations as "rule [impact]: target (why), ..." lines. */
function seriousViolations(results: AxeResults): string[] {
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} [${violation.impact}]: ${violation.nodes.map(describeNode).join('; ')}`);
}

const matrix = VIEWS.flatMap((view) => RUNS.map(({ size, scheme }) => ({ view, size, scheme })));

it.each(matrix.map((run) => [`${run.view.name} at ${run.size.width} px, ${run.scheme}`, run] as const))(
  '%s: no serious or critical axe violation, and nothing wider than the screen',
  async (_title, { view, size, scheme }) => {
    const page = await contexts.get(`${size.width}-${scheme}`)!.newPage();
    try {
      await page.goto(`${node.url}/ui/${view.hash}`);
      await view.ready(page);
      // The page's Content-Security-Policy refuses inline scripts (addScriptTag); evaluate runs outside of it.
      await page.evaluate(AXE_SOURCE);
      const results = await page.evaluate<AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
      const suffix = scheme === 'dark' ? '-dark' : '';
      await page.screenshot({ path: path.join(SHOTS, `all-${view.name}-${size.width}${suffix}.png`), fullPage: true });
      for (const href of await page.locator('a[href^="#"]').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''))) linked.add(href);
      expect(seriousViolations(results)).toEqual([]);
      expect(await horizontalOverflow(page)).toBe(0);
    } finally {
      await page.close();
    }
  },
);

/** A view of one instance is the same view of the other: the instance's tabs link to their own. */
const anyInstance = (hash: string) => hash.replace(new RegExp(`^#/instance/(${wordCount.id}|${orders})(?=/|$)`), '#/instance/<id>');

it('every view the console links to is among the views checked', () => {
  const checked = new Set(VIEWS.map((view) => anyInstance(view.hash)));
  expect([...linked].map(anyInstance).filter((href) => !checked.has(href))).toEqual([]);
});
