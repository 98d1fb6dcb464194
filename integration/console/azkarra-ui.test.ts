/**
 * Azkarra Streams 0.8.0's own web UI (from the azkarra-server jar on Maven Central) as one more client of a real
 * Sluice node on the real broker, in a real Chromium: what an Azkarra user would check in each view. Sluice answers
 * every call the UI makes; the one shape it answers differently (`GET /api/v1/applications/{id}`, the contract's
 * object where Azkarra 0.8 sent a bare array of servers) leaves the instances table of the details and the store list
 * of the query page empty, as the README says. Screenshots of every view go to test-output/azkarra-ui/.
 * Skipped, saying why, only when the jar is neither cached nor fetchable (the global setup tried).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import type { TestNode } from '../api/support/node';
import { AZKARRA_UI_ERROR_ENV, AZKARRA_UI_VERSION, startAzkarraUi, type AzkarraUi } from '../support/azkarra-ui';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const ROOT = path.resolve(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-output', 'azkarra-ui');
const STEP_MS = 30_000;

/** Console errors that are Azkarra's own or the documented gap, each with why it is expected. */
const EXPECTED_ERRORS: { pattern: RegExp; why: string }[] = [
  // Azkarra's index.html links /static/css/main.css, which its jar does not contain.
  { pattern: /status of 404/, why: "Azkarra's index.html links a stylesheet its jar lacks" },
  // The query page iterates the application answer as Azkarra 0.8's bare array of servers.
  { pattern: /forEach is not a function/, why: 'GET /api/v1/applications/{id} has the contract shape' },
];

const unavailable = process.env[AZKARRA_UI_ERROR_ENV];
if (unavailable !== undefined) process.stderr.write(`Azkarra web UI test skipped: ${unavailable}\n`);
const describeIfAvailable = unavailable === undefined ? describe : describe.skip;

describeIfAvailable(`Azkarra ${AZKARRA_UI_VERSION}'s web UI against a Sluice node${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`, () => {
  const clients = new KafkaTestClients();
  const input = uniqueName('azkarra-ui-in');
  const output = uniqueName('azkarra-ui-out');
  const id = uniqueName('azkarra-ui-wc');

  let node: TestNode;
  let ui: AzkarraUi;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const tab = async (name: string) => {
    await page.getByRole('tab', { name }).click();
    // Bootstrap fades the pane in: the screenshot waits for it to be shown.
    await page.locator('.tab-pane.active.show').waitFor({ timeout: STEP_MS });
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ browser, node } = await startWordCountConsole(clients, { input, output, id }, ['kafka streams', 'kafka sluice', 'hello kafka']));
    ui = await startAzkarraUi(node.url);
    await waitFor(async () => (await node.state(id)) === 'RUNNING', 'the word count RUNNING', 60_000);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  }, BROKER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    await node?.stop();
    await clients.close();
  });

  it("overview: Sluice's version, info and the instance's health", async () => {
    await page.goto(`${ui.url}/#/`);
    await page.getByText(id).waitFor({ timeout: STEP_MS });
    expect(await page.locator('body').textContent()).toContain('"sluice"');
    await shot('overview');
  });

  it('active streams: the word count, RUNNING', async () => {
    await page.goto(`${ui.url}/#/streams`);
    const row = page.locator('tr', { hasText: id });
    await row.waitFor({ timeout: STEP_MS });
    expect(await row.textContent()).toContain('RUNNING');
    await shot('streams');
  });

  it("an instance: its DAG draws the word count's nodes and store, threads and tasks, configuration, metrics, offsets", async () => {
    await page.goto(`${ui.url}/#/streams/${id}`);
    await page.getByText(/RUNNING \(/).waitFor({ timeout: STEP_MS });
    await shot('instance-overview');

    await tab('DAG');
    const dag = page.locator('#svg-container');
    for (const name of [input, output, 'AGGREGATE', 'FLATMAPVALUES', 'count-repartition']) {
      await dag.locator('text', { hasText: name }).first().waitFor({ timeout: STEP_MS });
    }
    expect(await page.locator('#nav-streams-dag').textContent()).toMatch(/stores\s*:\s*1/);
    await shot('instance-dag');

    await tab('Threads/Tasks');
    await page.getByText(/StreamThread-1 \(RUNNING\)/).waitFor({ timeout: STEP_MS });
    for (const task of ['0_0', '0_1', '0_2', '1_0', '1_1', '1_2']) {
      await page.locator('#nav-streams-tasks td', { hasText: new RegExp(`^${task}$`) }).waitFor({ timeout: STEP_MS });
    }
    await shot('instance-tasks');

    await tab('Configuration');
    await page.locator('#nav-streams-config tr', { hasText: 'application.id' }).filter({ hasText: id }).waitFor({ timeout: STEP_MS });
    await shot('instance-config');

    await tab('Metrics');
    await page.locator('#nav-streams-metrics td', { hasText: /^records-lag$/ }).first().waitFor({ timeout: STEP_MS });
    await shot('instance-metrics');

    await tab('Consumers/Offsets');
    await page.getByText(`Topic : ${input}`).waitFor({ timeout: STEP_MS });
    await shot('instance-offsets');
  });

  it('topologies and environments: the word count and the one environment of the node', async () => {
    await page.goto(`${ui.url}/#/topologies`);
    await page.locator('tr', { hasText: 'word-count' }).waitFor({ timeout: STEP_MS });
    await shot('topologies');

    await page.goto(`${ui.url}/#/environments`);
    await page.getByText('__default').waitFor({ timeout: STEP_MS });
    await page.getByText(id).first().waitFor({ timeout: STEP_MS });
    await shot('environments');
  });

  it("query page: lists the application but no store (the documented gap); given the store, a query for 'kafka' shows its count", async () => {
    await page.goto(`${ui.url}/#/query`);
    const application = page.locator('#query-application-id');
    await application.locator('option', { hasText: id }).waitFor({ state: 'attached', timeout: STEP_MS });
    await application.selectOption(id);
    const store = page.locator('#query-store-name');
    await store.waitFor({ timeout: STEP_MS });
    // The store list is filled from an array Sluice does not send (see EXPECTED_ERRORS).
    await waitFor(async () => consoleErrors.some((error) => /forEach is not a function/.test(error)), 'the query page to read the application', STEP_MS);
    expect(await store.locator('option').count()).toBe(0);
    await shot('query-no-store');

    // The rest of the page works against Sluice: the store's option is added as Azkarra 0.8 itself would list it.
    await store.evaluate((select, name) => {
      const option = select.ownerDocument.createElement('option');
      option.textContent = name;
      select.append(option);
    }, WORD_COUNT_STORE);
    await store.selectOption(WORD_COUNT_STORE);
    await page.locator('#query-store-type').selectOption({ label: 'KeyValue' });
    await page.locator('#query-store-operation').selectOption({ label: 'get' });
    await page.locator('.input-group', { has: page.locator('.input-group-text', { hasText: /^key$/ }) }).locator('input').last().fill('kafka');
    await page.getByRole('button', { name: 'Execute' }).click();
    const record = page.locator('.table-records tbody tr', { hasText: 'kafka' });
    await record.waitFor({ timeout: STEP_MS });
    expect((await record.locator('td').allTextContents()).map((cell) => cell.trim())).toEqual(expect.arrayContaining(['kafka', '3']));
    await shot('query');
  });

  it('Sluice answered every call the UI made, and no page logged an unexpected error', () => {
    expect(ui.failedCalls).toEqual([]);
    expect(consoleErrors.filter((error) => !EXPECTED_ERRORS.some(({ pattern }) => pattern.test(error)))).toEqual([]);
  });
});
