/**
 * Interactive queries of a store whose keys and values are Avro on a Schema Registry: the answer is JSON as Avro's
 * JSON encoding defines it, and `get` takes the key as JSON, encoded as the store encodes its keys.
 */
import type { Schema } from 'avsc';
import { StreamsBuilder } from '../streams/kstream/streams-builder';
import { SchemaRegistrySerdes } from '../streams/serdes/schema-registry';
import { RegistryDouble } from '../streams/serdes/schema-registry/testing/registry-double';
import type { StateStore } from '../streams/state/store';
import { TopologyTestDriver } from '../streams/test-driver/topology-test-driver';
import { bindQuery } from './bind';
import { parseQueryRequest } from './parse';
import { readRecords } from './read-store';
import { schemaOfStore } from './schema';

const CUSTOMER_KEY: Schema = { type: 'record', name: 'CustomerKey', namespace: 'shop', fields: [{ name: 'region', type: 'string' }, { name: 'id', type: 'long' }] };
const CUSTOMER: Schema = {
  type: 'record',
  name: 'Customer',
  namespace: 'shop',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'email', type: ['null', 'string'], default: null },
    { name: 'tier', type: { type: 'enum', name: 'Tier', symbols: ['BASIC', 'GOLD'] } },
  ],
};

describe('a query of an Avro store', () => {
  const registry = new RegistryDouble();
  let driver: TopologyTestDriver;
  let store: StateStore;
  beforeAll(async () => {
    const url = await registry.start();
    const keySerde = SchemaRegistrySerdes.avro({ schema: CUSTOMER_KEY, isKey: true });
    const valueSerde = SchemaRegistrySerdes.avro({ schema: CUSTOMER });
    const b = new StreamsBuilder();
    b.table('customers', { keySerde, valueSerde }, { storeName: 'customers-store', keySerde, valueSerde });
    driver = new TopologyTestDriver(b.build(), { 'application.id': 'crm', 'schema.registry.url': url });
    await driver.prepareSerdes();
    const input = driver.createInputTopic('customers', keySerde, valueSerde);
    input.pipeInput({ region: 'eu', id: 7 }, { name: 'Ann', email: 'ann@example.com', tier: 'GOLD' });
    input.pipeInput({ region: 'us', id: 8 }, { name: 'Bob', email: null, tier: 'BASIC' });
    store = driver.getStateStore('customers-store');
  });
  afterAll(async () => {
    await driver.close();
    await registry.stop();
  });

  function query(body: unknown): unknown[] {
    const read = readRecords([[0, store]], bindQuery(parseQueryRequest(body), schemaOfStore(store)!, store.name));
    const records: unknown[] = [];
    for (let next = read.records.next(); !next.done; next = read.records.next()) records.push(next.value);
    return records;
  }

  it('gets a value by a JSON key and answers it in Avro JSON encoding (a union branch named)', () => {
    expect(query({ type: 'key_value', query: { get: { key: { region: 'eu', id: 7 } } } })).toEqual([
      expect.objectContaining({ key: { region: 'eu', id: 7 }, value: { name: 'Ann', email: { string: 'ann@example.com' }, tier: 'GOLD' } }),
    ]);
  });

  it('scans every record as JSON, a null union as null', () => {
    expect(query({ type: 'key_value', query: { all: {} } })).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: { region: 'us', id: 8 }, value: { name: 'Bob', email: null, tier: 'BASIC' } })]),
    );
  });

  it("keeps keys and values under the changelog's subjects, as Kafka Streams names them", () => {
    expect(registry.subjectNames()).toEqual(expect.arrayContaining(['crm-customers-store-changelog-key', 'crm-customers-store-changelog-value']));
  });

  it('refuses a key that is not a CustomerKey', () => {
    expect(() => query({ type: 'key_value', query: { get: { key: { region: 'eu' } } } })).toThrow(/parameter 'key' is not a key of this store/);
  });
});
