/**
 * The console's query page in a real Chromium against a node running the word count (three thousand distinct words)
 * and the page views (windows, sessions, a versioned table) on the real broker: the type comes from the store and
 * only its clauses are offered; a window store's rows show their window and timestamp as dates, sort by a column and
 * export as CSV and JSON; the URL of a query run opens the same form and result in a fresh page; a range with no
 * bounds says it returned all; a large answer pages through with the continuation token; a failed query shows its
 * message and no earlier result; a phone's screen needs no sideways scroll. Screenshots go to test-output/console/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pageViewsTopology, PAGE_VIEWS_PER_MINUTE_STORE, USER_SESSIONS_STORE, USERS_STORE, type PageViewTopics } from '../../examples/page-views';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { TestNode, wordCountDefinition } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { horizontalOverflow, launchChromium, openPage } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 30_000;

const clients = new KafkaTestClients();
const wordInput = uniqueName('query-in');
const wordOutput = uniqueName('query-out');
const words = uniqueName('query-wc');
const views = uniqueName('query-pv');
const viewTopics: PageViewTopics = {
  pageViews: uniqueName('query-pv-views'),
  users: uniqueName('query-pv-users'),
  viewCounts: uniqueName('query-pv-counts'),
  finalViewCounts: uniqueName('query-pv-final'),
  userSessions: uniqueName('query-pv-sessions'),
  enrichedViews: uniqueName('query-pv-enriched'),
};

/** Distinct words w0000 to w2999 once each, and two more counted 3 and 2 times. */
const DISTINCT = Array.from({ length: 3000 }, (_, i) => `w${String(i).padStart(4, '0')}`);
const ALL_WORDS = DISTINCT.length + 2;
/** The page views' first minute: 2026-01-15 09:30 UTC. */
const T = Date.UTC(2026, 0, 15, 9, 30, 0);

let node: TestNode;
let browser: Browser;
const pageErrors: string[] = [];

/** A page whose uncaught errors are kept; times show in the browser's zone: UTC, for the dates below. */
async function openUtcPage(width: number, height: number): Promise<Page> {
  const page = await openPage(browser, { width, height, timezoneId: 'UTC' });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

async function choose(page: Page, app: string, store: string, clause: string): Promise<void> {
  await page.getByTestId('query-app').selectOption(app);
  await page.getByTestId('query-store').selectOption(store);
  await page.getByTestId('query-clause').selectOption(clause);
}

/** Runs the form's query and waits for its answer, a result or an error. */
async function run(page: Page): Promise<void> {
  await page.getByTestId('run-query').click();
  await page.getByTestId('query-summary').or(page.locator('p.error')).first().waitFor({ timeout: STEP_MS });
}

const headers = async (page: Page) => (await page.getByTestId('query-result').locator('thead th').allTextContents()).map((h) => h.replace(/ [▲▼]$/, ''));
const cells = (page: Page) =>
  page.evaluate<string[][]>(
    `Array.from(document.querySelectorAll('[data-testid="query-result"] tbody tr'), (row) => Array.from(row.querySelectorAll('td'), (td) => td.textContent))`,
  );
const column = async (page: Page, name: string) => {
  const index = (await headers(page)).indexOf(name);
  return (await cells(page)).map((row) => row[index]!);
};

/** What the form shows: the choices, the parameters and options typed, the boxes ticked. */
const formState = (page: Page) =>
  page.evaluate<{ selects: string[]; type: string | undefined; inputs: (string | boolean)[] }>(`({
    selects: Array.from(document.querySelectorAll('form.query-form select'), (s) => s.value),
    type: document.querySelector('[data-testid="query-type"]')?.textContent,
    inputs: Array.from(document.querySelectorAll('form.query-form input'), (i) => (i.type === 'checkbox' ? i.checked : i.value)),
  })`);

/** RFC 4180: quoted fields, quotes doubled, CRLF between records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

async function exported(page: Page, format: 'csv' | 'json'): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-${format}`).click()]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

async function post(app: string, store: string, body: object): Promise<{ result: { total: number } }> {
  return (await node.call('POST', `/api/v1/applications/${app}/stores/${store}`, body)).json() as { result: { total: number } };
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const admin = await clients.admin();
  [browser] = await Promise.all([
    launchChromium(),
    createTopics(admin, [
      { name: wordInput, partitions: 3 },
      { name: wordOutput, partitions: 3 },
      ...Object.values(viewTopics).map((name) => ({ name, partitions: 2 })),
    ]),
  ]);
  node = await TestNode.start({
    topologies: [
      wordCountDefinition(wordInput, wordOutput),
      { name: 'io.sluice.it.PageViews', version: '1.0.0', description: 'Page views', aliases: ['page-views'], build: () => pageViewsTopology(viewTopics) },
    ],
    instances: [
      { topology: 'word-count', applicationId: words },
      { topology: 'page-views', applicationId: views },
    ],
  });
  await Promise.all([node.waitForState(words, 'RUNNING'), node.waitForState(views, 'RUNNING')]);
  const producer = await clients.producer();
  const lines = Array.from({ length: 30 }, (_, i) => DISTINCT.slice(i * 100, (i + 1) * 100).join(' '));
  await producer.send({ topic: wordInput, messages: [...lines, 'kafka streams', 'kafka streams', 'kafka'].map((value) => ({ value })) });
  // Pages a spreadsheet would take for a formula, and one with quotes, beside plain ones.
  const view = (user: string, page: string, offset: number) => ({ key: user, value: page, timestamp: String(T + offset) });
  await producer.send({
    topic: viewTopics.pageViews,
    messages: [
      view('alice', '/home', 1000),
      view('alice', '/about', 2000),
      view('bob', '/home', 3000),
      view('carol', '=SUM(1,2)', 4000),
      view('dave', 'say "hi", twice', 5000),
      view('alice', '/home', 61_000),
    ],
  });
  await producer.send({ topic: viewTopics.users, messages: [{ key: 'alice', value: JSON.stringify({ name: 'Alice', region: 'eu' }), timestamp: String(T) }] });
  await waitFor(
    async () => {
      const answer = (await node.call('POST', `/api/v1/applications/${words}/stores/${WORD_COUNT_STORE}/records`, { type: 'key_value', query: { count: {} } })).json();
      return (answer as { value: number }[])[0]?.value === ALL_WORDS;
    },
    `${ALL_WORDS} words counted`,
    60_000,
  );
  await waitFor(
    async () => (await post(views, PAGE_VIEWS_PER_MINUTE_STORE, { type: 'window', query: { all: {} } })).result.total === 5,
    'five windows of page views',
    60_000,
  );
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it("takes the type from the store and offers only that type's clauses", async () => {
  const page = await openUtcPage(1440, 900);
  await page.goto(`${node.url}/ui/#/query`);
  const offered = async (app: string, store: string) => {
    await page.getByTestId('query-app').selectOption(app);
    await page.getByTestId('query-store').selectOption(store);
    return { type: await page.getByTestId('query-type').textContent(), clauses: (await page.getByTestId('query-clause').locator('option').allTextContents()).sort() };
  };
  expect(await offered(words, WORD_COUNT_STORE)).toEqual({
    type: expect.stringMatching(/key_value$/),
    clauses: ['all', 'count', 'get', 'prefix_scan', 'range', 'reverse_all', 'reverse_range'],
  });
  expect(await offered(views, PAGE_VIEWS_PER_MINUTE_STORE)).toEqual({
    type: expect.stringMatching(/window$/),
    clauses: ['all', 'fetch', 'fetch_all', 'fetch_key_range', 'fetch_time_range'],
  });
  expect(await offered(views, USER_SESSIONS_STORE)).toEqual({ type: 'session', clauses: ['fetch', 'fetch_key_range'] });
  expect(await offered(views, USERS_STORE)).toEqual({ type: 'versioned_key_value', clauses: ['get'] });
  // The type is shown, not chosen: there is no list of types to pick one that cannot apply.
  expect(await page.locator('select[data-testid="query-type"]').count()).toBe(0);
  await page.context().close();
});

describe('a window store', () => {
  let page: Page;
  let url: string;
  let shown: string[][];

  beforeAll(async () => {
    page = await openUtcPage(1440, 900);
    await page.goto(`${node.url}/ui/#/query`);
  });

  afterAll(async () => page.context().close());

  it('shows each window start and end and the timestamp as dates, picked with date-time pickers', async () => {
    await choose(page, views, PAGE_VIEWS_PER_MINUTE_STORE, 'fetch_all');
    await page.getByTestId('param-time_from').fill('2026-01-15T09:30');
    await page.getByTestId('param-time_to').fill('2026-01-15T09:31');
    await page.getByTestId('option-remote_access_allowed').uncheck();
    await page.getByTestId('option-limit').fill('100');
    await run(page);
    expect(await headers(page)).toEqual(['Key', 'Window start', 'Window end', 'Value', 'Timestamp', 'Server', 'Part']);
    const rows = await cells(page);
    expect(rows).toHaveLength(5);
    expect(rows).toContainEqual(['/home', '2026-01-15 09:30:00', '2026-01-15 09:31:00', '2', '2026-01-15 09:30:03', expect.any(String), 'SUCCESS']);
    expect(rows).toContainEqual(['/home', '2026-01-15 09:31:00', '2026-01-15 09:32:00', '1', '2026-01-15 09:31:01', expect.any(String), 'SUCCESS']);
    await page.getByText('Times are in UTC.').first().waitFor({ timeout: STEP_MS });
    const curl = await page.getByTestId('curl').textContent();
    expect(curl).toContain(`"fetch_all":{"time_from":${T},"time_to":${T + 60_000}}`);
    expect(curl).toContain('"remote_access_allowed":false');
  });

  it('sorts by a column, both ways', async () => {
    const numbers = async () => (await column(page, 'Value')).map(Number);
    await page.getByTestId('sort-value').click();
    expect(await numbers()).toEqual([1, 1, 1, 1, 2]);
    expect(await page.locator('th[aria-sort="ascending"]').textContent()).toBe('Value ▲');
    await page.getByTestId('sort-value').click();
    expect(await numbers()).toEqual([2, 1, 1, 1, 1]);
    await page.getByTestId('sort-window_start').click();
    expect(await column(page, 'Window start')).toEqual([...Array(4).fill('2026-01-15 09:30:00'), '2026-01-15 09:31:00']);
    await page.getByTestId('sort-value').click();
    await page.getByTestId('sort-value').click();
    shown = await cells(page);
    expect(shown[0]![3]).toBe('2');
    await shot(page, 'query-window-1440');
  });

  it('exports the rows shown as CSV (RFC 4180, no cell a spreadsheet takes for a formula) and as JSON', async () => {
    const csv = await exported(page, 'csv');
    expect(csv.name).toBe(`${PAGE_VIEWS_PER_MINUTE_STORE}-fetch_all.csv`);
    const header = ['Key', 'Window start (UTC)', 'Window end (UTC)', 'Value', 'Timestamp (UTC)', 'Server', 'Part'];
    const asText = (cell: string) => (/^[=+\-@]/.test(cell) ? `'${cell}` : cell);
    expect(parseCsv(csv.text)).toEqual([header, ...shown.map((row) => row.map(asText))]);
    const lines = csv.text.split('\r\n');
    expect(lines).toContainEqual(expect.stringMatching(/^"'=SUM\(1,2\)",2026-01-15 09:30:00,/));
    expect(lines).toContainEqual(expect.stringMatching(/^"say ""hi"", twice",2026-01-15 09:30:00,/));

    const json = JSON.parse((await exported(page, 'json')).text) as { key: string; window_start: number; window_end: number; value: number; timestamp: number; part: string }[];
    expect(json.map((row) => [row.key, String(row.value)])).toEqual(shown.map((row) => [row[0], row[3]]));
    expect(json).toContainEqual(expect.objectContaining({ key: '=SUM(1,2)', window_start: T, window_end: T + 60_000, value: 1, timestamp: T + 4000, part: 'SUCCESS' }));
    url = page.url();
  });

  it('keeps the query in the URL: opened in a fresh page, the same form and the same result', async () => {
    const fresh = await openUtcPage(1440, 900);
    await fresh.goto(url);
    await fresh.getByTestId('query-summary').waitFor({ timeout: STEP_MS });
    expect(await formState(fresh)).toEqual(await formState(page));
    expect((await formState(fresh)).selects).toEqual([views, PAGE_VIEWS_PER_MINUTE_STORE, 'fetch_all']);
    expect(await cells(fresh)).toEqual(shown);
    expect(await fresh.locator('th[aria-sort="descending"]').textContent()).toBe('Value ▼');
    await fresh.context().close();
  });

  it('a failed query shows its message and leaves no earlier result', async () => {
    await page.getByTestId('param-time_to').fill('2026-01-15T09:29');
    await run(page);
    expect(await page.locator('p.error').textContent()).toMatch(/time_to \(\d+\) is before time_from \(\d+\)/);
    expect(await page.getByTestId('query-result').count()).toBe(0);
    expect(await page.getByTestId('query-summary').count()).toBe(0);
    await shot(page, 'query-error-1440');
  });

  it('at 390×844 the form and the result scroll only down', async () => {
    const phone = await openUtcPage(390, 844);
    await phone.goto(url);
    await phone.getByTestId('query-summary').waitFor({ timeout: STEP_MS });
    expect(await cells(phone)).toEqual(shown);
    const overflow = await horizontalOverflow(phone);
    expect(overflow).toBe(0);
    await shot(phone, 'query-window-390');
    await phone.context().close();
  });
});

describe('the word count', () => {
  let page: Page;

  beforeAll(async () => {
    page = await openUtcPage(1440, 900);
    await page.goto(`${node.url}/ui/#/query`);
  });

  afterAll(async () => page.context().close());

  it('a range with no bounds says it returned all; with one bound it asks for both', async () => {
    await choose(page, words, WORD_COUNT_STORE, 'range');
    await page.getByTestId('param-key_from').fill('w1');
    await page.getByTestId('form-problem').filter({ hasText: 'key_from and key_to go together' }).waitFor({ timeout: STEP_MS });
    expect(await page.getByTestId('run-query').isDisabled()).toBe(true);
    await page.getByTestId('param-key_from').fill('');
    await run(page);
    expect(await page.getByTestId('query-note').textContent()).toBe('range with no bounds ran as all: it returned all records of the store.');
    expect(await page.getByTestId('query-summary').textContent()).toMatch(new RegExp(`^${ALL_WORDS} record\\(s\\)`));
    expect(await page.getByTestId('query-result').locator('tbody tr').count()).toBe(ALL_WORDS);
  });

  it('pages through a large answer with the continuation token, every key once', async () => {
    await choose(page, words, WORD_COUNT_STORE, 'all');
    await page.getByTestId('option-limit').fill('500');
    await run(page);
    const seen: string[] = [];
    const pages: string[][] = [];
    for (;;) {
      const keys = await column(page, 'Key');
      pages.push(keys);
      seen.push(...keys);
      expect(await page.getByTestId('query-summary').textContent()).toMatch(new RegExp(`^Page ${pages.length}: ${keys.length} record`));
      if (await page.getByTestId('page-next').isDisabled()) break;
      await page.getByTestId('page-next').click();
      await page.getByTestId('query-summary').filter({ hasText: `Page ${pages.length + 1}:` }).waitFor({ timeout: STEP_MS });
    }
    expect(pages.length).toBe(Math.ceil(ALL_WORDS / 500));
    expect(seen.length).toBe(ALL_WORDS);
    expect(new Set(seen)).toEqual(new Set([...DISTINCT, 'kafka', 'streams']));
    await page.getByTestId('page-previous').click();
    await page.getByTestId('query-summary').filter({ hasText: `Page ${pages.length - 1}:` }).waitFor({ timeout: STEP_MS });
    expect(await column(page, 'Key')).toEqual(pages[pages.length - 2]);
    await shot(page, 'query-paging-1440');
  });

  it('a store that is not queryable shows the message, not the earlier result', async () => {
    await choose(page, words, WORD_COUNT_STORE, 'get');
    await page.getByTestId('param-key').fill('kafka');
    await run(page);
    expect((await cells(page))[0]?.slice(0, 2)).toEqual(['kafka', '3']);
    await node.call('DELETE', `/api/v1/streams/${words}/stop`, { cleanup: false });
    await node.waitForState(words, 'STOPPED');
    await run(page);
    expect(await page.locator('p.error').textContent()).toBe(`Application '${words}' has no running local instance (state STOPPED)`);
    expect(await page.getByTestId('query-result').count()).toBe(0);
  });
});

it('no page threw', () => {
  expect(pageErrors).toEqual([]);
});
