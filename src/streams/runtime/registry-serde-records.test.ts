/**
 * Records read through a Schema Registry serde in a task (the topology test driver on an in-process registry double):
 * an unreachable registry holds the record until it answers, never handing it to the deserialization handler; a
 * record of an unknown schema id or a payload its schema cannot read goes to the handler, named by topic, partition,
 * offset and schema id, under each handler setting; a registry refusing the credentials fails the task instead.
 */
import { type Schema, Type } from 'avsc';
import { ConfigException, SerdeNotReady, SerializationException } from '../../errors';
import { StreamsBuilder } from '../kstream/streams-builder';
import { Serdes } from '../serdes/serdes';
import { SchemaRegistrySerdes } from '../serdes/schema-registry';
import { RegistryDouble } from '../serdes/schema-registry/testing/registry-double';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import { DLQ_HEADERS } from './exception-handlers';

const ORDER: Schema = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] };
const ORDER_V2: Schema = { ...(ORDER as object), fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }, { name: 'note', type: 'string', default: '' }] } as Schema;

interface Order {
  id: string;
  amount: number;
}

function framed(id: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, payload]);
}

/** Pipes a record; while its serde looks something up, waits and pipes nothing more (the task holds the record). */
async function pipeEventually(pipe: () => void): Promise<number> {
  let waits = 0;
  try {
    pipe();
  } catch (error) {
    if (!(error instanceof SerdeNotReady)) throw error;
    waits++;
    await error.ready;
  }
  return waits;
}

describe('records through a registry serde in a task', () => {
  const registry = new RegistryDouble();
  let url: string;
  beforeAll(async () => {
    url = await registry.start();
  });
  afterAll(() => registry.stop());

  async function driverFor(app: string, extra: Record<string, unknown> = {}, topic = 'orders'): Promise<TopologyTestDriver> {
    const b = new StreamsBuilder();
    const orders = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
    b.stream<string, Order>(topic, { keySerde: Serdes.String(), valueSerde: orders }).mapValues((o) => o.amount).to('amounts', { valueSerde: Serdes.Double() });
    const driver = new TopologyTestDriver(b.build(), { 'application.id': app, 'schema.registry.url': url, ...extra });
    await driver.prepareSerdes();
    return driver;
  }

  it('holds a record while the registry is unreachable, and processes it and those after it in order once it answers', async () => {
    const driver = await driverFor('outage');
    try {
      // Another application writes with a newer schema, whose id this task has not seen.
      const writer = SchemaRegistrySerdes.avro<Order & { note: string }>({ schema: ORDER_V2 });
      await writer.prepare!('orders', { 'schema.registry.url': url });
      const input = driver.createInputTopic('orders', Serdes.String(), Serdes.Bytes());
      const output = driver.createOutputTopic('amounts', Serdes.String(), Serdes.Double());
      const pipe = (amount: number) => pipeEventually(() => input.pipeInput(`o${amount}`, writer.serializeTopic!('orders', undefined, { id: `o${amount}`, amount, note: '' })));
      registry.setDown(true);
      // The task says which record waits.
      let waiting: unknown;
      try {
        input.pipeInput('o0', writer.serializeTopic!('orders', undefined, { id: 'o0', amount: 0, note: '' }));
      } catch (error) {
        waiting = error;
      }
      expect(waiting).toMatchObject({ record: { topic: 'orders', partition: 0, offset: 0 }, lookingUp: { schemaId: writer.serializeTopic!('orders', undefined, { id: '', amount: 0, note: '' }).readInt32BE(1) } });
      await (waiting as SerdeNotReady).ready;
      // Each record waits behind the first, which the default handler (log and fail) never sees.
      expect(await pipe(1)).toBe(1);
      expect(await pipe(2)).toBe(1);
      expect(await pipe(3)).toBe(1);
      expect(output.isEmpty()).toBe(true);
      registry.setDown(false);
      expect(await pipe(4)).toBe(1);
      expect(await pipe(5)).toBe(0);
      expect(output.readValuesToList()).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      await driver.close();
    }
  });

  it('prepares its serdes once the registry answers, as a thread does', async () => {
    registry.setDown(true);
    setTimeout(() => registry.setDown(false), 400);
    const started = Date.now();
    // A topic of its own: the registry client remembers what it registered.
    const driver = await driverFor('prepare-outage', {}, 'orders-later');
    try {
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      await driver.close();
    }
  });

  it('fails on a record whose schema the registry refuses to look up with the credentials: never handed to the handler, so never skipped', async () => {
    const driver = await driverFor('refused', { 'default.deserialization.exception.handler': 'LogAndContinueExceptionHandler' });
    try {
      // A schema id the registry client has not looked up yet.
      const v3 = { ...(ORDER_V2 as object), fields: [...(ORDER_V2 as { fields: object[] }).fields, { name: 'rush', type: 'boolean', default: false }] } as Schema;
      const id = registry.register('orders-value', JSON.stringify(v3));
      const bytes = framed(id, Type.forSchema(v3).toBuffer({ id: 'r', amount: 1, note: '', rush: true }));
      const input = driver.createInputTopic('orders', Serdes.String(), Serdes.Bytes());
      registry.setUsers(['someone:else']);
      let failure: unknown;
      // Three look-ups, each awaited by one pipe; the next pipe meets the failure.
      for (let pipes = 0; failure === undefined; pipes++) {
        expect(pipes).toBeLessThan(4);
        failure = await pipeEventually(() => input.pipeInput('r', bytes)).then(
          () => undefined,
          (error: unknown) => error,
        );
      }
      expect(failure).toBeInstanceOf(ConfigException);
      expect((failure as Error).message).toBe(
        `Invalid configuration: the Schema Registry at ${url} refused the credentials (HTTP 401) for schema id ${id}: check basic.auth.user.info`,
      );
      expect(driver.droppedRecords).toBe(0);
      expect(driver.createOutputTopic('amounts', Serdes.String(), Serdes.Double()).isEmpty()).toBe(true);
    } finally {
      registry.setUsers(undefined);
      await driver.close();
    }
  });

  /** Pipes a record of an unknown schema id, then a good one: answers what the driver did with each. */
  async function unknownIdThenGood(driver: TopologyTestDriver): Promise<{ failure: unknown; amounts: (number | null)[] }> {
    const input = driver.createInputTopic('orders', Serdes.String(), Serdes.Bytes());
    const good = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
    await good.prepare!('orders', { 'schema.registry.url': url });
    expect(await pipeEventually(() => input.pipeInput('bad', framed(424242, Buffer.from([2, 0x61]))))).toBe(1);
    let failure: unknown;
    try {
      input.pipeInput('good', good.serializeTopic!('orders', undefined, { id: 'g', amount: 9 }));
    } catch (error) {
      failure = error;
    }
    return { failure, amounts: driver.createOutputTopic('amounts', Serdes.String(), Serdes.Double()).readValuesToList() };
  }

  it('hands a record of an unknown schema id to the handler: log and continue skips it and reads on', async () => {
    const driver = await driverFor('unknown-continue', { 'default.deserialization.exception.handler': 'LogAndContinueExceptionHandler' });
    try {
      expect(await unknownIdThenGood(driver)).toEqual({ failure: undefined, amounts: [9] });
    } finally {
      await driver.close();
    }
  });

  it('log and fail stops at it, with a message naming topic, partition, offset and schema id', async () => {
    const driver = await driverFor('unknown-fail', { 'default.deserialization.exception.handler': 'LogAndFailExceptionHandler' });
    try {
      const { failure, amounts } = await unknownIdThenGood(driver);
      expect(failure).toBeInstanceOf(SerializationException);
      expect((failure as Error).message).toMatch(/cannot deserialize the record at orders-0@0: .*cannot read schema id 424242 from the Schema Registry: Schema not found/);
      expect(amounts).toEqual([]);
    } finally {
      await driver.close();
    }
  });

  it('with a dead-letter queue, the record goes there with its bytes, the error and where it was read', async () => {
    const driver = await driverFor('unknown-dlq', {
      'default.deserialization.exception.handler': 'LogAndContinueExceptionHandler',
      'errors.dead.letter.queue.topic.name': 'orders-dlq',
    });
    try {
      expect(await unknownIdThenGood(driver)).toEqual({ failure: undefined, amounts: [9] });
      const [dead] = driver.createOutputTopic('orders-dlq', Serdes.String(), Serdes.Bytes()).readRecordsToList();
      expect(dead!.key).toBe('bad');
      expect(dead!.value).toEqual(framed(424242, Buffer.from([2, 0x61])));
      expect(String(dead!.headers[DLQ_HEADERS.message])).toMatch(/schema id 424242/);
      expect(dead!.headers).toMatchObject({ [DLQ_HEADERS.topic]: 'orders', [DLQ_HEADERS.partition]: '0', [DLQ_HEADERS.offset]: '0' });
    } finally {
      await driver.close();
    }
  });

  it('hands a payload its schema cannot read to the handler at once, naming the schema id', async () => {
    const driver = await driverFor('malformed', { 'default.deserialization.exception.handler': 'LogAndFailExceptionHandler' });
    try {
      // The id the task's own serde writes with, so known to it without a look-up.
      const own = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
      await own.prepare!('orders', { 'schema.registry.url': url });
      const id = own.serializeTopic!('orders', undefined, { id: 'x', amount: 1 }).readInt32BE(1);
      const input = driver.createInputTopic('orders', Serdes.String(), Serdes.Bytes());
      expect(() => input.pipeInput('torn', framed(id, Buffer.from([0x7f])))).toThrow(
        new RegExp(`cannot deserialize the record at orders-0@0: .*the payload does not match schema id ${id}`),
      );
    } finally {
      await driver.close();
    }
  });
});
