/**
 * Issue 31: Avro through a Sluice topology on the real broker and a real registry (SCHEMA_REGISTRY_URL; skipped
 * without one): values written in Confluent's wire format, a repartition and a changelog registered under the subjects
 * Kafka Streams' naming gives, and a record of an unknown schema id handled by the deserialization handler, which is
 * told the topic, partition, offset and schema id.
 */
import type { Schema } from 'avsc';
import pino from 'pino';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { DeserializationExceptionHandler, ErrorHandlerContext } from '../../src';
import { SchemaRegistrySerdes } from '../../src';
import { createTopics, type KafkaConsumer } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';
import { instancesUnderTest } from '../runtime/support/stop-anyway';
import { describeWithRegistry } from '../support/schema-registry';

const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });

interface Order {
  id: string;
  customer: string;
  amount: number;
}
interface Total {
  customer: string;
  total: number;
}
const ORDER: Schema = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }, { name: 'customer', type: 'string' }, { name: 'amount', type: 'double' }] };
const TOTAL: Schema = { type: 'record', name: 'Total', namespace: 'shop', fields: [{ name: 'customer', type: 'string' }, { name: 'total', type: 'double' }] };

async function consumeBytes(consumer: KafkaConsumer, topic: string, until: (records: { key: string; value: Buffer }[]) => boolean): Promise<{ key: string; value: Buffer }[]> {
  const records: { key: string; value: Buffer }[] = [];
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void records.push({ key: message.key!.toString(), value: message.value! }) });
  try {
    await waitFor(() => until(records), `the records expected on ${topic} (got ${records.length})`, 60_000);
  } finally {
    await consumer.stop();
  }
  return records;
}

describeWithRegistry('Avro on the Schema Registry through a topology', (registryUrl) => {
  const { clients, instances } = instancesUnderTest();

  it(
    'aggregates Avro orders into Avro totals, registers the subjects Kafka Streams names, and hands a record of an unknown schema id to the handler',
    async () => {
      const url = registryUrl();
      const input = uniqueName('avro-orders');
      const output = uniqueName('avro-totals');
      const app = uniqueName('avro-app');
      const admin = await clients.admin();
      await createTopics(admin, [input, output].map((name) => ({ name, partitions: 1 })));
      const config = { 'schema.registry.url': url };

      // The producer side: the same serde, as another application would write the orders.
      const writer = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
      await writer.prepare!(input, config);
      const orders: Order[] = [
        { id: 'o1', customer: 'ann', amount: 10 },
        { id: 'o2', customer: 'bob', amount: 5 },
        { id: 'o3', customer: 'ann', amount: 2.5 },
      ];
      const unknownId = Buffer.from([0, 0x7f, 0xff, 0xff, 0xff, 0x02, 0x61]);
      const producer = await clients.producer();
      await producer.send({
        topic: input,
        messages: [
          ...orders.slice(0, 2).map((o) => ({ key: o.id, value: writer.serializeTopic!(input, undefined, o) })),
          { key: 'bad', value: unknownId },
          { key: orders[2]!.id, value: writer.serializeTopic!(input, undefined, orders[2]!) },
        ],
      });

      const builder = new StreamsBuilder();
      const orderSerde = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
      const totalSerde = SchemaRegistrySerdes.avro<Total>({ schema: TOTAL });
      builder
        .stream<string, Order>(input, { keySerde: Serdes.String(), valueSerde: orderSerde })
        .groupBy((_k, order) => order.customer, { name: 'by-customer', keySerde: Serdes.String(), valueSerde: orderSerde })
        .aggregate<Total>(() => ({ customer: '', total: 0 }), (customer, order, total) => ({ customer, total: total.total + order.amount }), {
          storeName: 'totals',
          keySerde: Serdes.String(),
          valueSerde: totalSerde,
        })
        .toStream()
        .to(output, { keySerde: Serdes.String(), valueSerde: totalSerde });

      const failures: { context: ErrorHandlerContext; message: string }[] = [];
      const deserialization: DeserializationExceptionHandler = (context, error) => {
        failures.push({ context, message: error.message });
        return 'CONTINUE';
      };
      const instance = new StreamsInstance(
        builder.build(),
        { 'application.id': app, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 200, ...config },
        { logger: quietLogger, exceptionHandlers: { deserialization } },
      );
      instances.push(instance);
      await instance.start();

      const reader = SchemaRegistrySerdes.avro<Total>({ schema: TOTAL });
      await reader.prepare!(output, config);
      const records = await consumeBytes(await clients.consumer({ groupId: uniqueName('avro-check') }), output, (rs) =>
        rs.some((r) => r.key === 'ann' && (r.value[0] === 0 ? reader.deserializeTopic!(output, undefined, r.value).total === 12.5 : false)),
      );
      const latest = new Map(records.map((r) => [r.key, reader.deserializeTopic!(output, undefined, r.value)]));
      expect(Object.fromEntries(latest)).toEqual({ ann: { customer: 'ann', total: 12.5 }, bob: { customer: 'bob', total: 5 } });
      // Confluent's wire format: magic byte 0, then the id the registry gave the output's subject.
      const outputId = ((await (await fetch(`${url}/subjects/${output}-value/versions/latest`)).json()) as { id: number }).id;
      expect(records[0]!.value.readInt32BE(1)).toBe(outputId);

      const subjects = (await (await fetch(`${url}/subjects`)).json()) as string[];
      expect(subjects).toEqual(
        expect.arrayContaining([`${input}-value`, `${app}-by-customer-repartition-value`, `${app}-totals-changelog-value`, `${output}-value`]),
      );

      expect(failures).toHaveLength(1);
      expect(failures[0]!.context).toMatchObject({ topic: input, partition: 0, offset: 2 });
      expect(failures[0]!.message).toMatch(/schema id 2147483647/);
      await waitFor(() => instance.state === 'RUNNING', 'the instance still running', 5_000);
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
