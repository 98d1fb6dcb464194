/**
 * The timeline tab across the cluster, as a user meets it: two nodes run the word count, one stops and a third joins.
 * The tab of the node that stayed shows both rebalances with their causes (member left, member joined), and entries
 * from both nodes of the application now (the merged scope=cluster timeline); the API's merged answer names every
 * node that answered. At 390 px wide the tab scrolls only down. Screenshots go to test-output/console/timeline-*.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Timeline } from '../../src/client';
import { TestNode, wordCountDefinition } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, openPage, startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 3);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 90_000;

const clients = new KafkaTestClients();
const input = uniqueName('timeline-in');
const output = uniqueName('timeline-out');
const id = uniqueName('timeline-wc');

let first: TestNode;
let joined: TestNode | undefined;
let browser: Browser;

const startNode = () => TestNode.start({ topologies: [wordCountDefinition(input, output)], instances: [{ topology: 'word-count', applicationId: id }] });
const timeline = async (node: TestNode, scope: 'local' | 'cluster') => (await node.get(`/api/v1/streams/${id}/timeline?scope=${scope}`)).json() as Timeline;
/** Whether the node's timeline holds a finished rebalance with a cause of `type` about `server`. */
const rebalancedFor = (t: Timeline, type: string, server: string) =>
  t.entries.some((e) => e.type === 'rebalance' && e.ended_at !== null && e.causes.some((c) => c.type === type && c.application_server === server));

/** The causes the tab shows, by type, with their text; and the processes its entries are from. */
const shown = async (page: Page) => ({
  causes: await page.getByTestId('cause').evaluateAll((items) => items.map((li) => [li.getAttribute('data-type'), li.textContent ?? ''] as const)),
  processes: new Set(await page.getByTestId('timeline-entry').evaluateAll((items) => items.map((li) => li.getAttribute('data-process')))),
});

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ browser, node: first } = await startWordCountConsole(clients, { input, output, id }, ['the timeline', 'of the word count across nodes']));
  await first.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([first?.stop(), joined?.stop()]);
  await clients.close();
});

it("shows the cluster's rebalances with their causes and the entries of every node, one node gone and another joined", async () => {
  const leaving = await startNode();
  const leavingServer = leaving.host.applicationServer;
  await waitFor(async () => rebalancedFor(await timeline(first, 'local'), 'member_joined', leavingServer), 'the rebalance as the second node joined', STEP_MS);
  await leaving.stop();
  await waitFor(async () => rebalancedFor(await timeline(first, 'local'), 'member_left', leavingServer), 'the rebalance as the second node left', STEP_MS);
  joined = await startNode();
  const joinedServer = joined.host.applicationServer;
  await waitFor(async () => rebalancedFor(await timeline(first, 'local'), 'member_joined', joinedServer), 'the rebalance as the third node joined', STEP_MS);

  // The API's merged answer: both nodes of the application now answered, and their entries are merged by start time.
  let merged: Timeline | undefined;
  await waitFor(
    async () => {
      merged = await timeline(first, 'cluster');
      return (merged.success ?? []).length === 2 && new Set(merged.entries.map((e) => e.process_id)).size === 2;
    },
    'the merged timeline of both nodes',
    STEP_MS,
  );
  expect(merged!.success!.map((node) => node.server).sort()).toEqual([first.host.applicationServer, joinedServer].sort());
  expect(merged!.failure).toEqual([]);
  const starts = merged!.entries.map((e) => Date.parse(e.started_at.replace(/\[.*\]$/, '')));
  expect(starts).toEqual([...starts].sort((a, b) => a - b));

  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${first.url}/ui/#/instance/${id}/timeline`);
  await waitFor(async () => (await shown(page)).processes.size === 2, 'entries of both nodes on the tab', STEP_MS);
  const { causes } = await shown(page);
  expect(causes).toEqual(
    expect.arrayContaining([
      ['member_left', expect.stringContaining(`member left or timed out: ${leavingServer}`)],
      ['member_joined', expect.stringContaining(`member joined: ${joinedServer}`)],
    ]),
  );
  // Newest first: the third node's arrival above the second's departure.
  const order = causes.map(([, text]) => text);
  expect(order.findIndex((text) => text.includes(`member joined: ${joinedServer}`))).toBeLessThan(order.findIndex((text) => text.includes(`member left or timed out: ${leavingServer}`)));
  expect(await page.getByTestId('timeline-answered').textContent()).toContain(joinedServer);
  expect(await page.getByTestId('timeline-failed').count()).toBe(0);
  expect(await page.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Timeline');
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1440.png'), fullPage: true });
  await page.context().close();

  const phone = await openPage(browser, { width: 390, height: 844, colorScheme: 'dark' });
  await phone.goto(`${first.url}/ui/#/instance/${id}/timeline`);
  await waitFor(async () => (await shown(phone)).processes.size === 2, 'entries of both nodes on the phone', STEP_MS);
  expect(await horizontalOverflow(phone)).toBe(0);
  await phone.screenshot({ path: path.join(SHOTS, 'timeline-390-dark.png'), fullPage: true });
  await phone.context().close();
});
