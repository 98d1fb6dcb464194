/**
 * The console's layout and manners, as a user meets them: no view wider than a 390 px phone, the navigation showing
 * where one is, a "not found" view (with nothing to restart or stop) for an unknown instance or route, the actions
 * an instance's state allows, a confirmation dialog that keeps the keyboard and closes on Esc, an offsets table
 * that reads, metrics filtered by group, name and tag apart, and the system's dark mode. Screenshots go to test-output/console/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import type { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { openPage, startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 30_000;

const clients = new KafkaTestClients();
const input = uniqueName('layout-in');
const output = uniqueName('layout-out');
const id = uniqueName('layout-wc');

let node: TestNode;
let browser: Browser;

/** How far the page reaches past the viewport's right edge, and the nav bar's width against the viewport's. */
const widths = (page: Page) =>
  page.evaluate<{ overflow: number; nav: number; viewport: number }>(`({
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    nav: document.querySelector('nav.top').getBoundingClientRect().width,
    viewport: document.documentElement.clientWidth,
  })`);

const inputRows = (page: Page) => page.getByTestId('lag-row').filter({ has: page.locator('td', { hasText: new RegExp(`^${input}$`) }) });

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ browser, node } = await startWordCountConsole(clients, { input, output, id }, ['a long line of words for the layout test', 'and some more words']));
  await node.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('at 390×844 the overview and the instance page scroll only down, under a nav bar as wide as the screen', async () => {
  const page = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${node.url}/ui/`);
  await page.getByTestId(`state-${id}`).filter({ hasText: 'RUNNING' }).waitFor({ timeout: STEP_MS });
  await page.getByTestId('nodes').getByText('(this node)').waitFor({ timeout: STEP_MS });
  expect(await widths(page)).toEqual({ overflow: 0, nav: 390, viewport: 390 });
  await page.screenshot({ path: path.join(SHOTS, 'overview-390.png'), fullPage: true });

  await page.getByRole('link', { name: id }).click();
  await page.getByTestId('topology-graph').waitFor({ timeout: STEP_MS });
  await waitFor(async () => (await inputRows(page).count()) === 3, 'a lag row per input partition', STEP_MS);
  await page.getByTestId('config').waitFor({ timeout: STEP_MS });
  expect(await widths(page)).toEqual({ overflow: 0, nav: 390, viewport: 390 });
  await page.screenshot({ path: path.join(SHOTS, 'instance-390.png'), fullPage: true });
  await page.context().close();
});

it('at 390×844 the cluster and query views, a result shown, scroll only down too', async () => {
  const page = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${node.url}/ui/#/cluster`);
  await waitFor(async () => (await page.getByTestId('store-partitions').locator('tbody tr').count()) === 3, 'a row per partition of the store', STEP_MS);
  expect(await widths(page)).toEqual({ overflow: 0, nav: 390, viewport: 390 });
  await page.screenshot({ path: path.join(SHOTS, 'cluster-390.png'), fullPage: true });

  await page.goto(`${node.url}/ui/#/query`);
  await page.getByTestId('query-app').selectOption(id);
  await page.getByTestId('query-store').selectOption(WORD_COUNT_STORE);
  await page.getByTestId('query-clause').selectOption('all');
  await page.getByTestId('run-query').click();
  await page.getByTestId('query-summary').waitFor({ timeout: STEP_MS });
  expect(await widths(page)).toEqual({ overflow: 0, nav: 390, viewport: 390 });
  await page.screenshot({ path: path.join(SHOTS, 'query-390.png'), fullPage: true });
  await page.context().close();
});

it('the nav bar marks the current view', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  const current = () => page.locator('nav.top a[aria-current="page"]').allTextContents();
  await page.goto(`${node.url}/ui/#/cluster`);
  await page.getByTestId('store-partitions').waitFor({ timeout: STEP_MS });
  expect(await current()).toEqual(['Cluster']);
  await page.getByRole('link', { name: 'Query' }).click();
  await page.getByTestId('query-app').waitFor({ timeout: STEP_MS });
  expect(await current()).toEqual(['Query']);
  await page.context().close();
});

it('an unknown instance or route shows "not found", with nothing to restart or stop', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/no-such-instance`);
  await page.getByTestId('not-found').getByText('This node runs no instance no-such-instance.').waitFor({ timeout: STEP_MS });
  expect(await page.getByRole('button', { name: /Restart|Stop|Start/ }).count()).toBe(0);
  await page.screenshot({ path: path.join(SHOTS, 'not-found.png') });
  await page.goto(`${node.url}/ui/#/no-such-view`);
  await page.getByTestId('not-found').getByText('The console has no view at #/no-such-view.').waitFor({ timeout: STEP_MS });
  expect(await page.getByRole('button').count()).toBe(0);
  await page.context().close();
});

it('the offsets table shows no raw -1 and names each stream thread once, above its partitions', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  const offsets = page.getByTestId('offsets');
  await waitFor(async () => (await inputRows(page).count()) === 3, 'a lag row per input partition', STEP_MS);
  const cells = await offsets.locator('td').allTextContents();
  expect(cells).not.toContain('-1');
  const threads = await offsets.getByTestId('offsets-thread').allTextContents();
  expect(threads.length).toBeGreaterThan(0);
  expect(new Set(threads).size).toBe(threads.length);
  for (const thread of threads) expect(cells.filter((cell) => cell.includes(thread))).toEqual([]);
  await page.context().close();
});

it('metrics are filtered by group, name and tag, each on its own part', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  const rows = page.getByTestId('metrics').locator('tbody tr');
  const shown = () => rows.evaluateAll((trs) => trs.map((tr) => ({ group: tr.children[1]!.textContent, name: tr.children[2]!.textContent, tags: tr.children[3]!.textContent })));
  const groups = () => page.getByTestId('metric-group').locator('option').allTextContents();
  await waitFor(async () => (await groups()).includes('stream-thread-metrics'), 'the metric groups', STEP_MS);
  await page.getByTestId('metric-group').selectOption('stream-thread-metrics');
  await page.getByTestId('metric-name').fill('process-rate');
  const byName = await shown();
  expect(byName.length).toBeGreaterThan(0);
  for (const row of byName) expect(row).toEqual({ group: 'stream-thread-metrics', name: 'process-rate', tags: expect.stringContaining('thread-id=') });
  // "thread-id" is only ever a tag: as a name it matches nothing, as a tag every metric of the group.
  await page.getByTestId('metric-name').fill('thread-id');
  expect(await rows.count()).toBe(0);
  await page.getByTestId('metric-name').fill('');
  await page.getByTestId('metric-tag').fill('thread-id');
  expect((await shown()).length).toBeGreaterThan(byName.length);
  await page.context().close();
});

it('the confirmation dialog keeps the focus within it and closes on Esc, giving the focus back', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor({ timeout: STEP_MS });
  const focusInDialog = () => page.evaluate<boolean>(`document.activeElement?.closest('[role="dialog"]') !== null`);
  expect(await focusInDialog()).toBe(true);
  for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(key);
    expect([key, await focusInDialog()]).toEqual([key, true]);
  }
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: STEP_MS });
  // The focus comes back once the dialog's cleanup has run, which may be a moment after it left the page.
  await page.waitForFunction(`document.activeElement?.textContent === 'Stop'`, undefined, { timeout: STEP_MS }).catch(() => undefined);
  expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Stop');
  expect(await node.state(id)).toBe('RUNNING');
  await page.context().close();
});

it('a stopped instance offers Start, not Stop; started, it offers Restart and Stop again', async () => {
  const page = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('instance-state').filter({ hasText: 'STOPPED' }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Start', exact: true }).waitFor({ timeout: STEP_MS });
  expect(await page.getByRole('button', { name: /^(Stop|Restart)$/ }).count()).toBe(0);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.getByTestId('instance-state').filter({ hasText: 'RUNNING' }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ timeout: STEP_MS });
  expect(await page.getByRole('button', { name: 'Start', exact: true }).count()).toBe(0);
  await page.context().close();
});

it('follows the system into dark mode', async () => {
  const page = await openPage(browser, { width: 1280, height: 900, colorScheme: 'dark' });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await page.getByTestId('topology-graph').waitFor({ timeout: STEP_MS });
  const brightness = (css: string) => {
    const [r = 0, g = 0, b = 0] = (css.match(/\d+/g) ?? []).map(Number);
    return (r + g + b) / 3;
  };
  const colours = await page.evaluate<{ page: string; card: string; text: string }>(`({
    page: getComputedStyle(document.documentElement).backgroundColor,
    card: getComputedStyle(document.querySelector('.card')).backgroundColor,
    text: getComputedStyle(document.querySelector('.card')).color,
  })`);
  expect(brightness(colours.page)).toBeLessThan(60);
  expect(brightness(colours.card)).toBeLessThan(60);
  expect(brightness(colours.text)).toBeGreaterThan(180);
  await page.screenshot({ path: path.join(SHOTS, 'instance-dark.png') });
  await page.context().close();
});
