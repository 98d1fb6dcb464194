/**
 * A re-keyed stream joined with a table of more partitions: as in Kafka Streams, the repartition topic takes the
 * table topic's partition count (the two must be co-partitioned) instead of the stream's, and every record meets
 * its table row.
 */
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor } from '../support/streams';
import { instancesUnderTest } from '../runtime/support/stop-anyway';

const CUSTOMERS = 12;
const ORDERS = 36;

describe('a re-keyed stream joined with a table of more partitions', () => {
  const { clients, instances } = instancesUnderTest();

  it(
    'repartitions to the table topic\'s partition count and joins every record',
    async () => {
      const applicationId = uniqueName('rekey-join');
      const [orders, customers, output] = [uniqueName('orders'), uniqueName('customers'), uniqueName('orders-joined')];
      const admin = await clients.admin();
      await createTopics(admin, [
        { name: orders, partitions: 2 },
        { name: customers, partitions: 3 },
        { name: output, partitions: 1 },
      ]);
      const producer = await clients.producer();
      await producer.send({ topic: customers, messages: Array.from({ length: CUSTOMERS }, (_, i) => ({ key: `c${i}`, value: `name-${i}` })) });

      const builder = new StreamsBuilder();
      const table = builder.table<string, string>(customers, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { storeName: 'customers' });
      builder
        .stream<string, string>(orders, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .selectKey((_order, value) => value.split(':')[0]!)
        .join(table, (order, customer) => `${order}@${customer}`)
        .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
      const instance = new StreamsInstance(builder.build(), { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 200 }, { logger: testLogger });
      instances.push(instance);
      await instance.start();
      const tableRows = () =>
        [...instance.queryableStores('customers').values()].reduce((n, store) => n + [...(store as unknown as KeyValueStore<string, ValueAndTimestamp<string>>).all()].length, 0);
      // The table first, so that an inner join finds every customer.
      await waitFor(() => tableRows() === CUSTOMERS, 'the customers table to be loaded', 60_000);
      await producer.send({ topic: orders, messages: Array.from({ length: ORDERS }, (_, i) => ({ key: `o${i}`, value: `c${i % CUSTOMERS}:item-${i}` })) });

      const repartition = (await admin.listTopics()).find((t) => t.startsWith(`${applicationId}-`) && t.endsWith('-repartition'));
      expect(repartition).toBeDefined();
      expect((await admin.fetchTopicOffsets(repartition!)).length).toBe(3);

      const joined = new Map<string, string[]>();
      const consumer = await clients.consumer({ groupId: uniqueName('rekey-join-check') });
      await consumer.subscribe({ topics: [output], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const key = message.key!.toString();
          joined.set(key, [...(joined.get(key) ?? []), message.value!.toString()]);
        },
      });
      await waitFor(() => [...joined.values()].flat().length >= ORDERS, 'every order to be joined', 60_000);
      await consumer.stop();
      for (let c = 0; c < CUSTOMERS; c++) {
        const expected = Array.from({ length: ORDERS / CUSTOMERS }, (_, k) => `c${c}:item-${c + k * CUSTOMERS}@name-${c}`);
        expect((joined.get(`c${c}`) ?? []).sort()).toEqual(expected.sort());
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
