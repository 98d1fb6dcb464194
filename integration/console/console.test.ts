/**
 * The web console in a real Chromium against a real node on the real broker, signed in as an operator over HTTP
 * Basic: the overview shows the instance live; the word count's graph shows its nodes, topics and store; lag shows
 * per partition; a restart shows its state changes without a reload; a query for a word returns its count; the
 * cluster view shows the store's partitions on this node; Swagger UI shows the API. A viewer gets no restart or
 * stop, and nothing of the console answers without credentials. No page logs a console error. Screenshots of every
 * view go to test-output/console/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request } from 'undici';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import type { TestNode } from '../api/support/node';
import { waitFor } from '../support/streams';
import { startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const ROOT = path.resolve(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-output', 'console');
const STEP_MS = 30_000;

const clients = new KafkaTestClients();
const input = uniqueName('console-in');
const output = uniqueName('console-out');
const id = uniqueName('console-wc');
const users = { ops: { password: 'ops-pass', role: 'operator' as const }, viewer: { password: 'viewer-pass', role: 'viewer' as const } };

let node: TestNode;
let browser: Browser;
let operator: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

function watchErrors(target: Page): void {
  target.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${target.url()}: ${message.text()}`);
  });
  target.on('pageerror', (error) => consoleErrors.push(`${target.url()}: ${error.message}`));
}

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  // The global setup has built the console and installed Chromium.
  ({ browser, node } = await startWordCountConsole(clients, { input, output, id }, ['kafka streams', 'kafka sluice', 'hello kafka', 'hello console'], { server: { users, allowPlaintextPasswords: true } }));
  operator = await browser.newContext({ httpCredentials: { username: 'ops', password: 'ops-pass', send: 'always' }, viewport: { width: 1280, height: 900 } });
  page = await operator.newPage();
  watchErrors(page);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('nothing of the console or the docs answers without credentials', async () => {
  for (const route of ['/', '/ui', '/ui/model', '/docs', '/docs/json']) {
    const answer = await request(`${node.url}${route}`);
    await answer.body.dump();
    expect([route, answer.statusCode]).toEqual([route, 401]);
  }
});

it('overview: the instance and its state, live', async () => {
  await page.goto(`${node.url}/ui/`);
  await page.getByTestId(`state-${id}`).filter({ hasText: 'RUNNING' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('nodes').getByText('(this node)').waitFor({ timeout: STEP_MS });
  await shot('overview');
});

it("instance: the word count's graph shows its nodes, topics and store; lag per partition; metrics with sparklines", async () => {
  await page.getByRole('link', { name: id }).click();
  const graph = page.getByTestId('topology-graph');
  await graph.waitFor({ timeout: STEP_MS });
  const kinds = async (kind: string) => graph.locator(`[data-testid="graph-node"][data-kind="${kind}"]`).evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-name')));
  expect(await kinds('store')).toEqual([WORD_COUNT_STORE]);
  expect(await kinds('topic')).toEqual(expect.arrayContaining([input, output]));
  expect((await kinds('internal-topic')).some((topic) => topic?.endsWith('-repartition'))).toBe(true);
  expect((await kinds('SOURCE')).length).toBe(2);
  expect((await kinds('SINK')).length).toBe(2);
  expect(await kinds('PROCESSOR')).toEqual(expect.arrayContaining([expect.stringMatching(/^KSTREAM-AGGREGATE-/)]));

  // One row per partition of the input topic, each with a lag (lag over time: lag.test.ts).
  const inputRows = page.getByTestId('lag-row').filter({ has: page.locator('td', { hasText: new RegExp(`^${input}$`) }) });
  await waitFor(async () => (await inputRows.count()) === 3, 'a lag row per input partition', STEP_MS);
  const lags = await inputRows.locator('td.lag').allTextContents();
  // A lag the consumer does not know yet shows as a dash, not as the API's -1.
  expect(lags.every((lag) => /^(\d+|—)$/.test(lag))).toBe(true);

  await page.getByTestId('metric-name').fill('alive-stream-threads');
  await page.getByTestId('metrics').locator('input[type=checkbox]').first().check();
  await page.getByTestId('selected-metrics').locator('svg.sparkline').waitFor({ timeout: STEP_MS });
  await page.getByTestId('metric-name').fill('');
  expect(await page.getByTestId('config').textContent()).toContain('application.id');
  await shot('instance');
  // The first screen alone, small enough for the README.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, 'instance-first-screen.png') });
});

it('restart: the state changes show without a reload', async () => {
  await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
  await page.getByRole('button', { name: 'Restart' }).click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('transitions').getByText('PENDING_SHUTDOWN').first().waitFor({ timeout: STEP_MS });
  await page.getByTestId('transitions').locator('li').first().filter({ hasText: '→ RUNNING' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('instance-state').filter({ hasText: 'RUNNING' }).waitFor({ timeout: STEP_MS });
  expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
});

it('query: a word returns its count, with the server and status of its part, and the query as curl', async () => {
  await page.goto(`${node.url}/ui/#/query`);
  await page.getByTestId('query-app').selectOption(id);
  await page.getByTestId('query-store').selectOption(WORD_COUNT_STORE);
  await page.getByTestId('query-clause').selectOption('get');
  await page.getByTestId('param-key').fill('kafka');
  // Until the restarted instance has its store open and the three lines counted.
  const firstRow = page.getByTestId('query-result').locator('tbody tr').first().locator('td');
  let cells: string[] = [];
  await waitFor(
    async () => {
      await page.getByTestId('run-query').click();
      await page.getByTestId('query-summary').or(page.locator('p.error')).first().waitFor({ timeout: STEP_MS });
      cells = (await firstRow.count()) > 0 ? await firstRow.allTextContents() : [];
      return cells[1] === '3';
    },
    'kafka counted 3 times',
    60_000,
  );
  // The count's timestamp shows as a date, between the value and the server.
  expect(cells).toEqual(['kafka', '3', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/), expect.stringContaining(new URL(node.url).port), 'SUCCESS']);
  const curl = await page.getByTestId('curl').textContent();
  expect(curl).toContain(`-u 'ops'`);
  expect(curl).toContain(`${node.url}/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}`);
  expect(curl).toContain('"get":{"key":"kafka"}');
  await shot('query');
});

it('cluster: which node hosts which partition of the store', async () => {
  await page.goto(`${node.url}/ui/#/cluster`);
  const rows = page.getByTestId('store-partitions').locator('tbody tr');
  await waitFor(async () => (await rows.count()) === 3, 'a row per partition of the store', STEP_MS);
  for (const text of await rows.allTextContents()) expect(text).toContain('(this node)');
  await shot('cluster');
});

it('Swagger UI at /docs', async () => {
  await page.goto(`${node.url}/docs`);
  await page.getByText('Sluice management API').first().waitFor({ timeout: STEP_MS });
  await page.locator('.opblock-tag-section').first().waitFor({ timeout: STEP_MS });
  await shot('docs');
});

it('a viewer gets no restart or stop', async () => {
  const viewer = await browser.newContext({ httpCredentials: { username: 'viewer', password: 'viewer-pass', send: 'always' } });
  const viewerPage = await viewer.newPage();
  watchErrors(viewerPage);
  await viewerPage.goto(`${node.url}/ui/#/instance/${id}`);
  await viewerPage.getByTestId('topology-graph').waitFor({ timeout: STEP_MS });
  await viewerPage.getByText('viewer (viewer)').waitFor({ timeout: STEP_MS });
  expect(await viewerPage.getByRole('button', { name: 'Restart' }).count()).toBe(0);
  expect(await viewerPage.getByRole('button', { name: 'Stop' }).count()).toBe(0);
  await viewer.close();
});

it('no page logged a console error', () => {
  expect(consoleErrors).toEqual([]);
});
