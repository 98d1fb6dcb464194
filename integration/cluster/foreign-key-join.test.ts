/**
 * A foreign-key table join (KIP-213) over two `sluice start` processes and one real broker: 3,000 orders on a
 * 4-partition topic name one of 200 products on a 3-partition topic, so that subscriptions cross partitions and
 * nodes both ways. Then orders move to other products, some are deleted, products change and some are deleted,
 * while the nodes run. The last output record of each order must be the join of the final tables.
 *
 * The nodes run without record caches. With caching, Kafka Streams 3.9.1's FK join (and so Sluice's) can keep a
 * result whose foreign value is gone: an order that moves to another product and back within one commit reaches the
 * join as an update that keeps its product, which asks for an answer only if the product exists, while the answer to
 * the product's deletion was dropped as stale (sent for the order's earlier value).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTopics, type KafkaConsumer } from '../../src/streams/kafka';
import { foreignKeyJoinTopics } from './fixtures/cluster-topology';
import { KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from './support/sluice-cluster';

const ORDERS = 3_000;
const PRODUCTS = 200;

const orderKey = (i: number) => `order-${i}`;
const productKey = (p: number) => `product-${p}`;

/** What the test writes, kept as the tables should end up. */
class Tables {
  readonly orders = new Map<string, string>();
  readonly products = new Map<string, string>();

  /** The join of the final tables: each order whose product exists, `<order>|<product>`. */
  expected(): Map<string, string> {
    const joined = new Map<string, string>();
    for (const [key, order] of this.orders) {
      const product = this.products.get(order.split('/')[0]!);
      if (product !== undefined) joined.set(key, `${order}|${product}`);
    }
    return joined;
  }
}

describe('a foreign-key join across two Sluice processes', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('fk-join');
  const topics = foreignKeyJoinTopics(uniqueName('fk-orders'));
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-fk-'));
  const nodes: SluiceNode[] = [];
  const tables = new Tables();
  /** The last value of each key in the output topic (null: a tombstone). */
  const latest = new Map<string, string | null>();
  let outputRecords = 0;
  let build: SluiceBuild | undefined;
  let consumer: KafkaConsumer | undefined;

  const send = async (topic: string, records: [string, string | null][], table: Map<string, string>) => {
    const producer = await clients.producer();
    for (let i = 0; i < records.length; i += 500) {
      await producer.send({ topic, messages: records.slice(i, i + 500).map(([key, value]) => ({ key, value })) });
    }
    for (const [key, value] of records) {
      if (value === null) table.delete(key);
      else table.set(key, value);
    }
  };

  beforeAll(async () => {
    process.stderr.write(`foreign-key join test: node logs under ${workDir}\n`);
    build = await buildSluice();
    const admin = await clients.admin();
    const retained = { 'retention.ms': '-1' };
    await createTopics(admin, [
      { name: topics.orders, partitions: 4, configs: retained },
      { name: topics.products, partitions: 3, configs: retained },
      { name: topics.output, partitions: 4, configs: retained },
    ]);
    consumer = await clients.consumer({ groupId: uniqueName('fk-join-reader') });
    await consumer.subscribe({ topics: [topics.output], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        outputRecords++;
        latest.set(message.key!.toString(), message.value === null ? null : message.value.toString());
      },
    });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await consumer?.stop();
    await clients.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  /** The output's view of the join: the keys whose last record is not a tombstone. */
  const joined = () => new Map([...latest].filter((entry): entry is [string, string] => entry[1] !== null));
  const sameAs = (expected: Map<string, string>) => (actual: Map<string, string>) =>
    actual.size === expected.size && [...expected].every(([key, value]) => actual.get(key) === value);
  const difference = (expected: Map<string, string>) => (actual: Map<string, string>) => {
    const wrong = [...expected].filter(([key, value]) => actual.get(key) !== value).slice(0, 5);
    const extra = [...actual].filter(([key]) => !expected.has(key)).slice(0, 5);
    return `${actual.size} joined of ${expected.size} expected (${outputRecords} output records); wrong or missing: ${JSON.stringify(wrong.map(([k, v]) => [k, v, actual.get(k)]))}; extra: ${JSON.stringify(extra.map(([k, v]) => [k, v, tables.orders.get(k)]))}`;
  };
  const settle = async (what: string) => {
    const expected = tables.expected();
    await eventually(what, async () => joined(), sameAs(expected), 180_000, difference(expected)).catch((error: unknown) => {
      for (const node of nodes) process.stderr.write(`--- ${node.name} (${node.server}) ---\n${node.tail()}\n`);
      throw error;
    });
  };

  it('joins every order with its product', async () => {
    await send(topics.products, Array.from({ length: PRODUCTS }, (_, p) => [productKey(p), `product ${p} v1`]), tables.products);
    // A tenth of the orders name a product that does not exist yet: no result until it does.
    await send(topics.orders, Array.from({ length: ORDERS }, (_, i) => [orderKey(i), `${productKey(i % (PRODUCTS + 20))}/${i % 7}`]), tables.orders);
    const bootstrap = bootstrapServers().join(',');
    nodes.push(
      ...(await Promise.all(
        ['node-a', 'node-b'].map((name) =>
          SluiceNode.start({
            build: build!,
            name,
            bootstrapServers: bootstrap,
            applicationId,
            inputTopic: topics.orders,
            topology: { alias: 'fk-join' },
            workDir,
            streams: { 'statestore.cache.max.bytes': 0 },
          }),
        ),
      )),
    );
    await settle('the join of the first orders and products');
    // Both nodes hold tasks: subscriptions and answers go from one to the other.
    const instances = async () =>
      ((await nodes[0]!.get(`/api/v1/applications/${applicationId}`)).body as { instances: { metadata: { assignments: { partitions: number[] }[] } }[] }).instances;
    await eventually('both nodes to hold tasks', instances, (all) => all.length === 2 && all.every((i) => i.metadata.assignments.some((a) => a.partitions.length > 0)));
  }, 300_000);

  it('follows foreign key changes, deleted orders, and changed, new and deleted products', async () => {
    const moved: [string, string | null][] = [];
    for (let i = 0; i < ORDERS; i += 3) moved.push([orderKey(i), `${productKey((i * 7) % (PRODUCTS + 20))}/${i % 5}`]);
    for (let i = 1; i < ORDERS; i += 30) moved.push([orderKey(i), null]);
    const products: [string, string | null][] = [];
    for (let p = 0; p < PRODUCTS; p += 4) products.push([productKey(p), `product ${p} v2`]);
    for (let p = 2; p < PRODUCTS; p += 10) products.push([productKey(p), null]);
    for (let p = PRODUCTS; p < PRODUCTS + 10; p++) products.push([productKey(p), `product ${p} new`]);
    // Orders and products change at once: answers cross the updates of both tables.
    await Promise.all([send(topics.orders, moved, tables.orders), send(topics.products, products, tables.products)]);
    // Some orders move back to where they were: stale answers for the previous value must not win.
    const back: [string, string | null][] = [];
    for (let i = 0; i < ORDERS; i += 9) back.push([orderKey(i), `${productKey(i % (PRODUCTS + 20))}/back`]);
    await send(topics.orders, back, tables.orders);
    await settle('the join of the changed orders and products');
  }, 300_000);
});
