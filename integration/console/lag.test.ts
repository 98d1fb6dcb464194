/**
 * The lag tab and the instance switcher, as a user meets them: a chart over a time axis with the group's total and a
 * line per topic, a range picker, and a history the node keeps (leaving the page and coming back loses nothing); the
 * switcher opens the same tab of the node's other instance. Screenshots go to test-output/console/lag-*.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, openPage, startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
/** The node samples every 10 s: a few samples take a while. */
const SAMPLES_MS = 60_000;

const clients = new KafkaTestClients();
const input = uniqueName('lag-in');
const output = uniqueName('lag-out');
const id = uniqueName('lag-wc');
const other = uniqueName('lag-wc2');

let node: TestNode;
let browser: Browser;

/** The lines of a chart's legend: name and how many samples it draws. */
const legend = (page: Page, chart: string) =>
  page
    .getByTestId(chart)
    .getByTestId('series')
    .evaluateAll((items) => items.map((item) => ({ name: item.getAttribute('data-name'), points: Number(item.getAttribute('data-points')) })));

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ browser, node } = await startWordCountConsole(clients, { input, output, id }, ['lag over time', 'in records and in time'], { alsoAs: [other] }));
  await Promise.all([node.waitForState(id, 'RUNNING'), node.waitForState(other, 'RUNNING')]);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('charts the lag over a time axis, the total and each topic, in records and in time', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  await waitFor(async () => (await legend(page, 'lag-chart')).some((s) => s.name === input && s.points >= 2), 'two samples of the input topic', SAMPLES_MS);
  const names = (await legend(page, 'lag-chart')).map((s) => s.name);
  expect(names).toEqual([`${id} (total)`, ...[input, `${id}-count-repartition`].sort()]);
  expect((await legend(page, 'lag-time-chart')).map((s) => s.name)).toEqual(names);
  expect(await page.getByTestId('lag-chart').getByTestId('x-tick').count()).toBeGreaterThan(2);
  for (const tick of await page.getByTestId('lag-chart').getByTestId('x-tick').allTextContents()) expect(tick).toMatch(/^\d{1,2}:\d{2}( [AP]M)?$/);
  expect(await page.getByTestId('lag-chart').locator('polyline').count()).toBeGreaterThanOrEqual(names.length);
  expect(await page.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Lag');
  await page.screenshot({ path: path.join(SHOTS, 'lag-1440.png'), fullPage: true });
  await page.context().close();
});

it('the range picker switches between 15 min, 1 h and 24 h', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  const pressed = () => page.locator('.range-picker button[aria-pressed="true"]').allTextContents();
  await page.getByTestId('lag-chart').getByTestId('series').first().waitFor({ timeout: SAMPLES_MS });
  expect(await pressed()).toEqual(['1 h']);
  const ticks = () => page.getByTestId('lag-chart').getByTestId('x-tick').allTextContents();
  const hourTicks = await ticks();
  await page.getByTestId('range-24h').click();
  expect(await pressed()).toEqual(['24 h']);
  // A day's axis: its ticks hours apart, not the hour's.
  await waitFor(async () => JSON.stringify(await ticks()) !== JSON.stringify(hourTicks), 'the axis of a day', 10_000);
  // Per minute: the minute under way is shown from the first sample.
  await waitFor(async () => (await legend(page, 'lag-chart')).some((s) => s.name === input && s.points >= 1), 'the minutes of the input topic', SAMPLES_MS);
  await page.getByTestId('range-15m').click();
  expect(await pressed()).toEqual(['15 min']);
  await page.context().close();
});

it('keeps the history when the page is left and opened again: the node holds it', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  await waitFor(async () => ((await legend(page, 'lag-chart'))[0]?.points ?? 0) >= 2, 'two samples', SAMPLES_MS);
  const before = (await legend(page, 'lag-chart'))[0]!.points;
  await page.goto('about:blank');
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  await page.getByTestId('lag-chart').getByTestId('series').first().waitFor({ timeout: 10_000 });
  expect((await legend(page, 'lag-chart'))[0]!.points).toBeGreaterThanOrEqual(before);
  await page.context().close();
});

it('the instance switcher opens the same tab of another instance of the node', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  const switcher = page.getByTestId('instance-switcher');
  await switcher.waitFor({ timeout: 10_000 });
  expect((await switcher.locator('option').allTextContents()).sort()).toEqual([id, other].sort());
  await switcher.selectOption(other);
  await page.locator('h1', { hasText: other }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).hash).toBe(`#/instance/${other}/lag`);
  expect(await switcher.inputValue()).toBe(other);
  await waitFor(async () => (await legend(page, 'lag-chart')).some((s) => s.name === `${other} (total)`), "the other instance's lag", SAMPLES_MS);
  await page.context().close();
});

it('at 390×844 the lag tab scrolls only down', async () => {
  const page = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${node.url}/ui/#/instance/${id}/lag`);
  await page.getByTestId('lag-chart').getByTestId('series').first().waitFor({ timeout: SAMPLES_MS });
  await page.getByTestId('lag-time-chart').getByTestId('series').first().waitFor({ timeout: SAMPLES_MS });
  expect(await horizontalOverflow(page)).toBe(0);
  await page.screenshot({ path: path.join(SHOTS, 'lag-390.png'), fullPage: true });
  await page.context().close();
});
