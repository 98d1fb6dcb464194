/**
 * The topology graph's live figures as a user sees them, on a word count through a named repartition topic: under
 * the source the records' end-to-end latency while lines flow; under a processor whose code throws on one record (and
 * the processing handler skips it), "1 failed"; under the repartition topic its lag, above zero while the counting
 * sub-topology is held back and back to zero once it has consumed the backlog; under the count's store its keys,
 * rising as words are counted, and its cache's hit ratio (recorded at DEBUG, as this instance is set) once words are
 * counted again; and the same figures in full in the side panel. The counting side is held by its value
 * serde, which answers "not ready" (SerdeNotReady) until the test lets it go: the thread waits without blocking the
 * node. The figures are read in one poll every 2 s, which stops once the view is left. Screenshot:
 * test-output/console/topology-live-1440.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SerdeNotReady, Serdes, StreamsBuilder, type Serde, type Topology } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { TestNode } from '../api/support/node';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { launchChromium, openPage } from './browser';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'console');
const STEP_MS = 30_000;
const STORE = 'live-word-counts';
const REPARTITION = 'by-word-repartition';

const clients = new KafkaTestClients();
const id = uniqueName('graph-live');
const input = uniqueName('graph-live-lines');

const strings = Serdes.String();
/** Set while the counting side is held: its reads wait for the promise. */
let held: { promise: Promise<void>; release: () => void } | undefined;
const hold = () => {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  held = { promise, release };
};
const letGo = () => {
  held?.release();
  held = undefined;
};
const gated: Serde<string> = {
  name: 'gated-string',
  serialize: (value) => strings.serialize(value),
  deserialize: (bytes) => {
    if (held !== undefined) throw new SerdeNotReady('held by the test', held.promise);
    return strings.deserialize(bytes);
  },
  fromJson: (json) => strings.fromJson(json),
  toJson: (value) => strings.toJson(value),
};

/** lines → (throws on "poison") → keyed by the line → repartition `by-word` → count in STORE. */
function liveTopology(): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>(input, { keySerde: strings, valueSerde: strings })
    .mapValues((line) => {
      if (line === 'poison') throw new RangeError('a poisoned line');
      return line;
    })
    .selectKey((_key, line) => line)
    .repartition({ name: 'by-word', keySerde: strings, valueSerde: gated })
    .groupByKey({ keySerde: strings, valueSerde: gated })
    .count({ storeName: STORE });
  return builder.build();
}

const description = liveTopology().describe();
const allNodes = description.subTopologies.flatMap((sub) => sub.nodes);
const source = allNodes.find((node) => node.topics?.includes(input))!;
const mapper = allNodes.find((node) => node.name.startsWith('KSTREAM-MAPVALUES-'))!;

let node: TestNode;
let browser: Browser;

const graphNode = (page: Page, name: string) => page.locator(`[data-testid="graph-node"][data-name="${name}"]`);
const figuresUnder = (page: Page, name: string) => page.locator(`[data-testid="node-figures"][data-of="${name}"]`);
/** A figure under a node, by kind (rate, latency, failed, keys, bytes, lag); NaN while it is not shown. */
const figure = async (page: Page, name: string, kind: string) => {
  const shown = figuresUnder(page, name).getByTestId(`node-${kind}`);
  return (await shown.count()) === 0 ? Number.NaN : Number(await shown.getAttribute('data-value'));
};

async function produce(lines: string[]): Promise<void> {
  const producer = await clients.producer();
  await producer.send({ topic: input, messages: lines.map((line, i) => ({ key: `k-${i}`, value: line })) });
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const [launched] = await Promise.all([launchChromium(), createTopics(await clients.admin(), [{ name: input, partitions: 2 }])]);
  browser = launched;
  node = await TestNode.start({
    topologies: [{ name: 'io.sluice.it.LiveWords', version: '1.0.0', description: 'Words counted through a repartition topic', aliases: ['live-words'], build: liveTopology }],
    instances: [{ topology: 'live-words', applicationId: id, config: { 'processing.exception.handler': 'LogAndContinueProcessingExceptionHandler', 'metrics.recording.level': 'DEBUG' } }],
  });
  await node.waitForState(id, 'RUNNING');
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  letGo();
  await browser?.close();
  await node?.stop();
  await clients.close();
});

it("shows each node's live figures: the source's latency, a processor's failures, the repartition topic's lag while a backlog waits and 0 once consumed, the store's keys rising", async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await graphNode(page, REPARTITION).waitFor({ timeout: STEP_MS });
  expect(await graphNode(page, REPARTITION).getAttribute('data-kind')).toBe('internal-topic');

  // The counting side held: the words wait in the repartition topic.
  hold();
  await produce([...Array.from({ length: 100 }, (_, i) => `word-${i}`), 'poison']);
  await waitFor(async () => (await figure(page, REPARTITION, 'lag')) > 0, 'a lag above zero under the repartition topic while its readers are held', STEP_MS);
  expect(await figuresUnder(page, REPARTITION).getByTestId('node-lag').textContent()).toMatch(/^lag \d+(\.\d)?k?$/);
  await waitFor(async () => (await figure(page, source.name, 'latency')) >= 0, "the records' end-to-end latency under the source while lines flow", STEP_MS);
  expect(await figuresUnder(page, source.name).getByTestId('node-latency').textContent()).toMatch(/^( · )?[\d.]+ m?s$/);
  await page.getByTestId('topology-graph').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'topology-live-1440.png') });
  // Nothing is counted yet: the store holds no key.
  expect(await figure(page, STORE, 'keys')).not.toBeGreaterThan(0);

  // Let go, the backlog is consumed and the words counted.
  letGo();
  await waitFor(async () => (await figure(page, REPARTITION, 'lag')) === 0, 'the lag back to 0 once the backlog is consumed', STEP_MS);
  await waitFor(async () => (await figure(page, STORE, 'keys')) === 100, 'the 100 words counted in the store', STEP_MS);
  expect(await figure(page, STORE, 'bytes')).toBeGreaterThan(0);
  await waitFor(async () => (await figure(page, mapper.name, 'failed')) === 1, 'one failure under the processor that threw', STEP_MS);
  expect(await figuresUnder(page, mapper.name).getByTestId('node-failed').textContent()).toMatch(/^( · )?1 failed$/);

  // More words: the store grows; the words counted again are found in its cache (its hit ratio, recorded at DEBUG).
  await produce([...Array.from({ length: 150 }, (_, i) => `more-${i}`), ...Array.from({ length: 100 }, (_, i) => `word-${i}`)]);
  await waitFor(async () => (await figure(page, STORE, 'keys')) === 250, 'the store at 250 keys once 150 more words are counted', STEP_MS);
  await waitFor(async () => (await figure(page, STORE, 'hits')) > 0, "the store's cache hits once words are counted again", STEP_MS);
  expect(await figure(page, STORE, 'hits')).toBeLessThanOrEqual(1);
  expect(await figuresUnder(page, STORE).getByTestId('node-hits').textContent()).toMatch(/^ · \d+ % hits$/);

  // A screen reader hears them in the node's name.
  expect(await page.getByRole('button', { name: new RegExp(`^store ${STORE}, 250 keys · `) }).count()).toBe(1);

  // The panel has the figures in full.
  await graphNode(page, STORE).click();
  const storePanel = page.getByRole('region', { name: STORE }).getByTestId('panel-live');
  await storePanel.waitFor({ timeout: STEP_MS });
  expect(await storePanel.textContent()).toContain('Keys250');
  await graphNode(page, source.name).click();
  const sourcePanel = page.getByRole('region', { name: source.name }).getByTestId('panel-live');
  await sourcePanel.waitFor({ timeout: STEP_MS });
  expect(await sourcePanel.textContent()).toMatch(/End-to-end latency[\d.]+ m?s on average, [\d.]+ m?s at most/);
  await graphNode(page, REPARTITION).click();
  expect(await page.getByRole('region', { name: REPARTITION }).getByTestId('panel-live').textContent()).toBe("Lag of this node's readers0 records");
  await page.context().close();
});

it('reads the figures in one poll every 2 s, whatever the number of nodes, and stops once the view is left', async () => {
  const page = await openPage(browser, { width: 1440, height: 900 });
  const reads: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.includes('/metrics/group/')) reads.push(pathname.slice(pathname.indexOf('/metrics/group/') + '/metrics/group/'.length));
  });
  await page.goto(`${node.url}/ui/#/instance/${id}`);
  await figuresUnder(page, STORE).getByTestId('node-keys').waitFor({ timeout: STEP_MS });
  reads.length = 0;
  await page.waitForTimeout(6_100);
  // Each poll reads each group once, for all the graph's nodes: three or four polls in 6 s.
  const polls = reads.filter((group) => group === 'stream-processor-node-metrics').length;
  expect(polls).toBeGreaterThanOrEqual(3);
  expect(polls).toBeLessThanOrEqual(4);
  expect(reads.filter((group) => group === 'stream-state-metrics').length).toBe(polls);
  expect(reads.filter((group) => group === 'stream-record-cache-metrics').length).toBe(polls);
  expect(reads.length).toBe(3 * polls);

  await page.goto(`${node.url}/ui/#/`);
  await page.waitForTimeout(500);
  reads.length = 0;
  await page.waitForTimeout(4_500);
  expect(reads).toEqual([]);
  await page.context().close();
});
