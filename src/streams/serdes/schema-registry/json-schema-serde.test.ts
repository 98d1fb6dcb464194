import { JsonDeserializer, JsonSerializer, SchemaRegistryClient, SerdeType, TopicNameStrategy } from '@confluentinc/schemaregistry';
import { SchemaRegistrySerdes } from '.';
import { RegistryDouble } from './testing/registry-double';

const PAYMENT = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Payment',
  type: 'object',
  properties: { id: { type: 'string' }, amount: { type: 'number', minimum: 0 } },
  required: ['id', 'amount'],
};

describe('the Schema Registry JSON Schema serde', () => {
  const registry = new RegistryDouble();
  let url: string;
  let config: Record<string, unknown>;
  beforeAll(async () => {
    url = await registry.start();
    config = { 'schema.registry.url': url };
  });
  afterAll(() => registry.stop());

  it("writes the header and UTF-8 JSON under the JSON schema type, which Confluent's deserializer reads, and reads what its serializer writes", async () => {
    const serde = SchemaRegistrySerdes.jsonSchema<{ id: string; amount: number }>({ schema: PAYMENT });
    await serde.prepare!('payments', config);
    const bytes = serde.serializeTopic!('payments', undefined, { id: 'p1', amount: 5 });
    expect(bytes.readInt32BE(1)).toBe(registry.latestId('payments-value'));
    expect(JSON.parse(bytes.subarray(5).toString('utf8'))).toEqual({ id: 'p1', amount: 5 });
    const client = new SchemaRegistryClient({ baseURLs: [url] });
    expect(await new JsonDeserializer(client, SerdeType.VALUE, { subjectNameStrategy: TopicNameStrategy }).deserialize('payments', bytes)).toEqual({ id: 'p1', amount: 5 });
    const theirs = new JsonSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true, subjectNameStrategy: TopicNameStrategy });
    expect(serde.deserializeTopic!('payments', undefined, await theirs.serialize('payments', { id: 'p2', amount: 1 }))).toEqual({ id: 'p2', amount: 1 });
  });

  it('validates against the schema, writing and reading, with json.fail.invalid.schema', async () => {
    const strict = SchemaRegistrySerdes.jsonSchema({ schema: PAYMENT });
    await strict.prepare!('strict-payments', { ...config, 'json.fail.invalid.schema': true });
    expect(() => strict.serializeTopic!('strict-payments', undefined, { id: 'p3', amount: -1 })).toThrow(/does not match schema id \d+ .*\/amount must be >= 0/);
    const lenient = SchemaRegistrySerdes.jsonSchema({ schema: PAYMENT });
    await lenient.prepare!('strict-payments', config);
    const bad = lenient.serializeTopic!('strict-payments', undefined, { id: 'p3', amount: -1 });
    expect(() => strict.deserializeTopic!('strict-payments', undefined, bad)).toThrow(/the payload does not match schema id \d+: invalid against its schema/);
  });

  it("names the record strategy subject by the schema's title", async () => {
    const serde = SchemaRegistrySerdes.jsonSchema({ schema: PAYMENT });
    await serde.prepare!('by-title', { ...config, 'value.subject.name.strategy': 'TopicRecordNameStrategy' });
    expect(registry.subjectNames()).toContain('by-title-Payment');
  });
});
