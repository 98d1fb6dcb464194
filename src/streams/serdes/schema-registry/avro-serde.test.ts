import { AvroDeserializer, AvroSerializer, SchemaRegistryClient, SerdeType, TopicNameStrategy } from '@confluentinc/schemaregistry';
import type { Schema } from 'avsc';
import { SerializationException } from '../../../errors';
import { SchemaRegistrySerdes } from '.';
import { readEventually, RegistryDouble } from './testing/registry-double';

const ORDER: Schema = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'amount', type: 'double' },
    { name: 'note', type: ['null', 'string'], default: null },
  ],
};
const ORDER_V1: Schema = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] };

describe('the Schema Registry Avro serde', () => {
  const registry = new RegistryDouble({ users: ['app:secret'] });
  let config: Record<string, unknown>;
  let url: string;
  beforeAll(async () => {
    url = await registry.start();
    config = { 'schema.registry.url': url, 'basic.auth.user.info': 'app:secret' };
  });
  afterAll(() => registry.stop());

  it("writes Confluent's wire format under the topic's subject, with basic auth, and reads it back", async () => {
    const serde = SchemaRegistrySerdes.avro<{ id: string; amount: number; note: string | null }>({ schema: ORDER });
    await serde.prepare!('orders', config);
    const bytes = serde.serializeTopic!('orders', undefined, { id: 'o1', amount: 2.5, note: null });
    expect(bytes[0]).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(registry.latestId('orders-value'));
    expect(registry.requests).toContain('POST /subjects/orders-value/versions');
    expect(serde.deserializeTopic!('orders', undefined, bytes)).toEqual({ id: 'o1', amount: 2.5, note: null });
  });

  it("is read by Confluent's own deserializer, and reads what Confluent's serializer writes", async () => {
    const client = new SchemaRegistryClient({ baseURLs: [url], basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: 'app:secret' } });
    registry.register('confluent-value', JSON.stringify(ORDER));
    const theirs = new AvroSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true, subjectNameStrategy: TopicNameStrategy });
    const theirReader = new AvroDeserializer(client, SerdeType.VALUE, { subjectNameStrategy: TopicNameStrategy });
    const ours = SchemaRegistrySerdes.avro({ schema: ORDER });
    await ours.prepare!('confluent', config);
    const written = ours.serializeTopic!('confluent', undefined, { id: 'o2', amount: 7, note: 'gift' });
    expect(await theirReader.deserialize('confluent', written)).toEqual({ id: 'o2', amount: 7, note: 'gift' });
    const record = { id: 'o3', amount: 1.25, note: null };
    const fromThem = await theirs.serialize('confluent', record);
    expect(await readEventually(() => ours.deserializeTopic!('confluent', undefined, fromThem))).toEqual(record);
  });

  it('reads records of an older writer schema into its own (a field added with a default)', async () => {
    const old = SchemaRegistrySerdes.avro({ schema: ORDER_V1 });
    await old.prepare!('evolving', config);
    const bytes = old.serializeTopic!('evolving', undefined, { id: 'o4', amount: 3 });
    const current = SchemaRegistrySerdes.avro({ schema: ORDER });
    await current.prepare!('evolving', config);
    expect(current.serializeTopic!('evolving', undefined, { id: 'o5', amount: 1, note: null }).readInt32BE(1)).not.toBe(bytes.readInt32BE(1));
    expect(await readEventually(() => current.deserializeTopic!('evolving', undefined, bytes))).toEqual({ id: 'o4', amount: 3, note: null });
  });

  it('writes with the subject\'s latest schema under use.latest.version, and registers nothing then', async () => {
    const id = registry.register('latest-value', JSON.stringify(ORDER));
    const serde = SchemaRegistrySerdes.avro();
    registry.requests.length = 0;
    await serde.prepare!('latest', { ...config, 'use.latest.version': true });
    expect(registry.requests).toEqual(['GET /subjects/latest-value/versions/latest']);
    expect(serde.serializeTopic!('latest', undefined, { id: 'o5', amount: 1, note: null }).readInt32BE(1)).toBe(id);
  });

  it('only looks the id up with auto.register.schemas off, and fails when the subject lacks the schema', async () => {
    const serde = SchemaRegistrySerdes.avro({ schema: ORDER });
    await expect(serde.prepare!('unregistered', { ...config, 'auto.register.schemas': false })).rejects.toThrow(/not found/i);
    expect(registry.subjectNames()).not.toContain('unregistered-value');
  });

  it('names subjects by the record and topic-record strategies, for keys too', async () => {
    const key = SchemaRegistrySerdes.avro({ schema: ORDER, isKey: true });
    await key.prepare!('by-record', { ...config, 'key.subject.name.strategy': 'io.confluent.kafka.serializers.subject.RecordNameStrategy' });
    const value = SchemaRegistrySerdes.avro({ schema: ORDER });
    await value.prepare!('by-topic-record', { ...config, 'value.subject.name.strategy': 'TopicRecordNameStrategy' });
    const plainKey = SchemaRegistrySerdes.avro({ schema: ORDER, isKey: true });
    await plainKey.prepare!('keyed', config);
    expect(registry.subjectNames()).toEqual(expect.arrayContaining(['shop.Order', 'by-topic-record-shop.Order', 'keyed-key']));
  });

  it("answers Avro's JSON encoding for queries and takes it back", async () => {
    const serde = SchemaRegistrySerdes.avro({ schema: ORDER });
    expect(serde.toJson({ id: 'o6', amount: 4, note: 'x' })).toEqual({ id: 'o6', amount: 4, note: { string: 'x' } });
    expect(serde.fromJson({ id: 'o6', amount: 4, note: { string: 'x' } })).toEqual({ id: 'o6', amount: 4, note: 'x' });
    expect(() => serde.fromJson({ id: 6 })).toThrow(SerializationException);
  });

  it('refuses bytes that are not in the wire format, and a value that does not match the schema, naming the schema id', async () => {
    const serde = SchemaRegistrySerdes.avro({ schema: ORDER });
    await serde.prepare!('strict', config);
    expect(() => serde.deserializeTopic!('strict', undefined, Buffer.from('{"id":"x"}'))).toThrow(/unknown magic byte/);
    expect(() => serde.serializeTopic!('strict', undefined, { id: 1 } as never)).toThrow(/does not match schema id \d+ for topic 'strict'/);
    expect(() => serde.serializeTopic!('other', undefined, { id: 'x', amount: 1, note: null })).toThrow(/no schema prepared for topic 'other'/);
  });
});
