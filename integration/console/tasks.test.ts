/**
 * The tasks and stores tab, as a user meets it: the stream thread and its active tasks, each store partition with its
 * size on disk; and, once the instance is stopped, its state directory deleted and its store's changelog filled with
 * 200 000 words, the restore as it happens after a restart: restoring, its progress rising, then done. Screenshots go
 * to test-output/console/tasks-*.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import type { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, openPage, startWordCountConsole } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 30_000;
const WORDS = 200_000;
/** Small sends make small record batches: a fetch returns at least one whole batch, whatever its size limit. */
const BATCH = 500;

const clients = new KafkaTestClients();
const input = uniqueName('tasks-in');
const output = uniqueName('tasks-out');
const id = uniqueName('tasks-wc');

let node: TestNode;
let browser: Browser;

/** Each restoring partition's records restored so far, as the tab shows them ("restoring 45% (12,345 of 66,000)"). */
const restoringShown = (page: Page) =>
  page
    .getByTestId('store-row')
    .filter({ has: page.getByTestId('restore-progress') })
    .evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-partition'), row.querySelector('[data-testid="restore-progress"]')?.textContent ?? ''] as const))
    .then((rows) => rows.map(([partition, text]) => ({ partition, done: Number(/\(([\d,]+) of/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN) })));

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ browser, node } = await startWordCountConsole(clients, { input, output, id }, ['tasks and stores', 'of the word count'], {
    // Small fetches: the restore of 200 000 words takes seconds, long enough to watch.
    streams: { 'restore.consumer.max.partition.fetch.bytes': 4 * 1024 },
    memory: { budget: 512 * 1024 * 1024 },
  }));
  await node.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it('shows the node\'s memory budget part by part: what each holds against its bound', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/tasks`);
  const parts = page.getByTestId('memory-part');
  await waitFor(async () => (await parts.count()) === 5, 'five parts of the memory budget', STEP_MS);
  const rows = await parts.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-part'), ...[...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')]));
  expect(rows.map((r) => r[0])).toEqual(['total', 'heap', 'record-cache', 'producer-buffer', 'fetch']);
  // 512 MiB in all, a tenth each to the caches, the producer buffers and the fetches.
  // In use: this test's own process, the node's host, whatever it holds (KB to GB).
  expect(rows[0]!.slice(1, 3)).toEqual(['Resident (not file-backed)', expect.stringMatching(/^[\d.]+ (KB|MB|GB)$/)]);
  expect(rows[0]![3]).toBe('512 MB');
  expect(rows[2]![3]).toBe('51 MB');
  expect(rows[3]![3]).toBe('51 MB');
  // What the consumers may fetch at once (the group consumer's 1 MiB, the restore and standby readers' shares): within the part.
  expect(rows[4]!.slice(1, 4)).toEqual(['Fetches (at most)', expect.stringMatching(/^[\d.]+ MB$/), '51 MB']);
  const fetchPercent = Number(/(\d+)%$/.exec(rows[4]![4]!)?.[1]);
  expect(fetchPercent).toBeGreaterThan(0);
  expect(fetchPercent).toBeLessThanOrEqual(100);
  expect(Number(/(\d+)%$/.exec(rows[0]![4]!)?.[1])).toBeGreaterThan(0);
  await page.screenshot({ path: path.join(SHOTS, 'tasks-memory.png'), fullPage: true });
  await page.close();
});

it('lists the stream thread with its active tasks, and each store partition with its size on disk', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/tasks`);
  const thread = page.getByTestId('thread');
  await waitFor(async () => (await thread.getByTestId('task').count()) === 6, 'six tasks (two sub-topologies, three partitions)', STEP_MS);
  expect(await thread.count()).toBe(1);
  expect(await thread.locator('h3').textContent()).toMatch(new RegExp(`^${id}-[0-9a-f-]+-StreamThread-1 RUNNING$`));
  const tasks = await thread.getByTestId('task').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-kind'), r.children[0]!.textContent]));
  expect(tasks.map(([, task]) => task).sort()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2']);
  expect(tasks.every(([kind]) => kind === 'active')).toBe(true);
  expect(await page.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Tasks and stores');

  const stores = page.getByTestId('store-row').filter({ has: page.locator('td', { hasText: new RegExp(`^${WORD_COUNT_STORE}$`) }) });
  await waitFor(async () => (await stores.count()) === 3, 'a row per partition of the store', STEP_MS);
  for (const cells of await stores.evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)))) {
    expect(cells[4]).toMatch(/^\d+(\.\d)? (B|KB|MB)$/);
  }
  await page.screenshot({ path: path.join(SHOTS, 'tasks-1440.png'), fullPage: true });
  await page.context().close();
});

it('at 390×844 the tab scrolls only down', async () => {
  const page = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${node.url}/ui/#/instance/${id}/tasks`);
  await waitFor(async () => (await page.getByTestId('store-row').count()) === 3, 'the store partitions', STEP_MS);
  expect(await horizontalOverflow(page)).toBe(0);
  await page.screenshot({ path: path.join(SHOTS, 'tasks-390.png'), fullPage: true });
  await page.context().close();
});

it('after its state is deleted, shows the store restoring, its progress rising, then restored', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}/tasks`);
  await page.getByTestId('thread').waitFor({ timeout: STEP_MS });

  expect((await node.call('DELETE', `/api/v1/streams/${id}/stop`, {})).status).toBe(200);
  fs.rmSync(path.join(node.stateDir, id), { recursive: true, force: true });
  // Distinct words, so that compaction leaves them all: as the word count writes its changelog (a word, its count as a long).
  const producer = await clients.producer();
  const count = Buffer.alloc(8);
  count.writeBigInt64BE(1n);
  for (let start = 0; start < WORDS; start += BATCH) {
    const messages = Array.from({ length: BATCH }, (_, i) => ({ key: `word-${(start + i).toString(36)}`, value: count }));
    await producer.send({ topic: `${id}-${WORD_COUNT_STORE}-changelog`, messages });
  }
  expect((await node.call('POST', `/api/v1/streams/${id}/restart`)).status).toBe(200);

  // Readings of each partition while it restores, until one has risen between two of them.
  const readings = new Map<string | null, number[]>();
  let rose: number[] | undefined;
  await waitFor(
    async () => {
      for (const { partition, done } of await restoringShown(page)) {
        const seen = readings.get(partition) ?? [];
        if (seen[seen.length - 1] !== done) readings.set(partition, [...seen, done]);
        if (readings.size === 1 && seen.length === 0) await page.screenshot({ path: path.join(SHOTS, 'tasks-restoring.png'), fullPage: true });
      }
      rose = [...readings.values()].find((seen) => seen.length >= 2);
      return rose !== undefined;
    },
    'two readings of a restoring partition',
    90_000,
  );
  expect(rose![1]).toBeGreaterThan(rose![0]!);

  await waitFor(async () => (await page.getByTestId('last-restoration').count()) === 3, 'each partition restored', 120_000);
  expect(await page.getByTestId('restore-progress').count()).toBe(0);
  const restored = await page.getByTestId('last-restoration').allTextContents();
  const total = restored.map((text) => Number(/^([\d,]+) records in/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN)).reduce((a, b) => a + b, 0);
  // The words produced, and the few the word count wrote before.
  expect(total).toBeGreaterThanOrEqual(WORDS);
  await page.screenshot({ path: path.join(SHOTS, 'tasks-restored.png'), fullPage: true });
  await page.context().close();
});
