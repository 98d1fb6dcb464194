/**
 * The example topologies as Sluice runs them: their definitions (name, version, aliases), and what the demo
 * needs to show them working (topics to create, sample input, a store worth querying). A configuration can load
 * them with `topologies: [{ module: './examples' }]` (compiled: `dist/examples`).
 */

import type { TopologyDefinition } from '../src/host/topology-definition';
import type { TopicSpec } from '../src/streams/kafka';
import { CUSTOMERS_STORE, LARGE_ORDER_AMOUNT, ORDER_TOPICS, orderEnrichmentTopology } from './order-enrichment';
import { PAGE_VIEW_TOPICS, pageViewsTopology, USERS_STORE } from './page-views';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT, WORD_COUNT_STORE, wordCountTopology } from './word-count';

export const wordCount: TopologyDefinition = {
  name: 'io.sluice.examples.WordCount',
  version: '1.0.0',
  description: `Kafka Streams' word count: counts the words of the lines on ${WORD_COUNT_INPUT}`,
  aliases: ['word-count', 'WordCount'],
  build: () => wordCountTopology(),
};

export const pageViews: TopologyDefinition = {
  name: 'io.sluice.examples.PageViews',
  version: '1.0.0',
  description: `Page views (${PAGE_VIEW_TOPICS.pageViews}) per page per minute, per user session, and joined with ${PAGE_VIEW_TOPICS.users} as of each view`,
  aliases: ['page-views', 'PageViews'],
  build: () => pageViewsTopology(),
};

export const orderEnrichment: TopologyDefinition = {
  name: 'io.sluice.examples.OrderEnrichment',
  version: '1.0.0',
  description: `Orders (${ORDER_TOPICS.orders}) joined with their customer from a GlobalKTable of ${ORDER_TOPICS.customers}, and priced with their item from a table of ${ORDER_TOPICS.products} (foreign-key join), and each customer's balance from the orders and ${ORDER_TOPICS.payments} (cogroup)`,
  aliases: ['order-enrichment', 'OrderEnrichment'],
  build: () => orderEnrichmentTopology(),
};

export const topologies: readonly TopologyDefinition[] = [wordCount, pageViews, orderEnrichment];

export interface SampleRecord {
  topic: string;
  key: string | null;
  value: string;
}

/** An example as the demo runs it. */
export interface DemoExample {
  readonly topology: TopologyDefinition;
  readonly applicationId: string;
  readonly topics: readonly TopicSpec[];
  /** The next record of the steady trickle of sample input. */
  sample(): SampleRecord;
  /** A query for the printed curl commands, one per example. */
  readonly query: { store: string; body: unknown };
}

const LINES = [
  'all streams lead to kafka',
  'hello kafka streams',
  'join kafka summit',
  'a stream is a table is a stream',
  'tables are streams at rest',
  'streams are tables in motion',
  'sluice runs kafka streams topologies in node',
  'the quick brown fox jumps over the lazy dog',
];

let nextLine = 0;

const PAGES = ['/home', '/docs', '/pricing', '/blog', '/about'];
const USERS = [
  { id: 'u1', name: 'Ada', regions: ['eu', 'us'] },
  { id: 'u2', name: 'Bob', regions: ['us', 'apac'] },
  { id: 'u3', name: 'Chen', regions: ['apac', 'eu'] },
  { id: 'u4', name: 'Dana', regions: ['eu', 'latam'] },
];
let nextView = 0;

/**
 * Mostly page views; every tenth record updates a user, whose region alternates, so that the versioned users table
 * fills and keeps a history, which each view is joined against as of its own time.
 */
function pageViewSample(): SampleRecord {
  const n = nextView++;
  if (n % 10 === 0) {
    // Each user in turn, its region alternating from one round of updates to the next.
    const update = n / 10;
    const user = USERS[update % USERS.length]!;
    const region = user.regions[Math.floor(update / USERS.length) % 2]!;
    return { topic: PAGE_VIEW_TOPICS.users, key: user.id, value: JSON.stringify({ name: user.name, region }) };
  }
  const user = USERS[(n * 7) % USERS.length]!;
  return { topic: PAGE_VIEW_TOPICS.pageViews, key: user.id, value: PAGES[(n * 3) % PAGES.length]! };
}

const CUSTOMERS = [
  { id: 'c1', name: 'Ada', tiers: ['gold', 'platinum'] },
  { id: 'c2', name: 'Bob', tiers: ['silver', 'gold'] },
  { id: 'c3', name: 'Chen', tiers: ['bronze', 'silver'] },
];
const ITEMS = ['tea', 'cake', 'scone', 'coffee'];
const PRICES = [3, 4, 2.5, 3.5];
let nextOrder = 0;

/**
 * Mostly orders; every eighth record updates a customer (its tier alternates), so the global table fills and changes,
 * every eighth (four later) the price of an item, which re-prices the orders of that item, and every eighth (two
 * later) a customer pays something (nothing, one time in five: the payment is dropped).
 */
function orderSample(): SampleRecord {
  const n = nextOrder++;
  const customer = CUSTOMERS[n % CUSTOMERS.length]!;
  if (n % 8 === 0) {
    return { topic: ORDER_TOPICS.customers, key: customer.id, value: JSON.stringify({ name: customer.name, tier: customer.tiers[(n / 8) % 2]! }) };
  }
  if (n % 8 === 2) {
    return { topic: ORDER_TOPICS.payments, key: customer.id, value: JSON.stringify({ amount: (n % 5) * 1.5 }) };
  }
  if (n % 8 === 4) {
    const update = (n - 4) / 8;
    const item = update % ITEMS.length;
    // Each round of updates raises every price a little, the next one lowers it back.
    const raise = Math.floor(update / ITEMS.length) % 2 === 1 ? 0.5 : 0;
    return { topic: ORDER_TOPICS.products, key: ITEMS[item]!, value: JSON.stringify({ price: PRICES[item]! + raise }) };
  }
  // One order in ten is large: the `large-orders` event type has something to show.
  const amount = n % 10 === 5 ? LARGE_ORDER_AMOUNT + (n % 7) * 250 : 1 + (n % 5);
  return { topic: ORDER_TOPICS.orders, key: `o${n}`, value: JSON.stringify({ customer: customer.id, item: ITEMS[n % ITEMS.length]!, amount }) };
}

export const DEMO_EXAMPLES: readonly DemoExample[] = [
  {
    topology: wordCount,
    applicationId: 'word-count',
    topics: [
      { name: WORD_COUNT_INPUT, partitions: 3 },
      { name: WORD_COUNT_OUTPUT, partitions: 3 },
    ],
    sample: () => ({ topic: WORD_COUNT_INPUT, key: null, value: LINES[nextLine++ % LINES.length]! }),
    query: { store: WORD_COUNT_STORE, body: { type: 'key_value', query: { get: { key: 'kafka' } } } },
  },
  {
    topology: pageViews,
    applicationId: 'page-views',
    // The views and the users must be co-partitioned: the same number of partitions.
    topics: Object.values(PAGE_VIEW_TOPICS).map((name) => ({ name, partitions: 3 })),
    sample: pageViewSample,
    query: { store: USERS_STORE, body: { type: 'versioned_key_value', query: { get: { key: 'u1' } } } },
  },
  {
    topology: orderEnrichment,
    applicationId: 'order-enrichment',
    // Neither a global table nor a foreign-key join needs co-partitioning: customers and products have fewer
    // partitions than orders. Nor does the cogroup: the orders are repartitioned into as many partitions as payments.
    topics: [
      { name: ORDER_TOPICS.orders, partitions: 3 },
      { name: ORDER_TOPICS.customers, partitions: 2 },
      { name: ORDER_TOPICS.enrichedOrders, partitions: 3 },
      { name: ORDER_TOPICS.products, partitions: 2 },
      { name: ORDER_TOPICS.pricedOrders, partitions: 3 },
      { name: ORDER_TOPICS.payments, partitions: 2 },
      { name: ORDER_TOPICS.balances, partitions: 2 },
    ],
    sample: orderSample,
    query: { store: CUSTOMERS_STORE, body: { type: 'key_value', query: { get: { key: 'c1' } } } },
  },
];
