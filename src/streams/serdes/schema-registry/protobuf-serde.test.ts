import * as protobuf from 'protobufjs';
import { SchemaRegistrySerdes } from '.';
import { readMessageIndexes, writeMessageIndexes } from './protobuf-serde';
import { readEventually, RegistryDouble } from './testing/registry-double';

const SHOP = `syntax = "proto3";
package shop;

import "google/protobuf/timestamp.proto";

message Customer {
  string name = 1;
}

message Order {
  string id = 1;
  int64 quantity = 2;
  Status status = 3;
  bytes tag = 4;
  google.protobuf.Timestamp placed = 5;
  message Line {
    string sku = 1;
    double price = 2;
  }
  repeated Line lines = 6;
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`;

describe('the Schema Registry Protobuf serde', () => {
  const registry = new RegistryDouble();
  let config: Record<string, unknown>;
  beforeAll(async () => {
    config = { 'schema.registry.url': await registry.start() };
  });
  afterAll(() => registry.stop());

  it("writes Confluent's message indexes as KafkaProtobufSerializer does: [0] as one zero byte, else zigzag varints, count first", () => {
    expect(writeMessageIndexes([0])).toEqual(Buffer.from([0]));
    expect(writeMessageIndexes([1])).toEqual(Buffer.from([2, 2]));
    expect(writeMessageIndexes([1, 0])).toEqual(Buffer.from([4, 2, 0]));
    expect(readMessageIndexes(Buffer.from([4, 2, 0, 0x0a]))).toEqual({ indexes: [1, 0], rest: Buffer.from([0x0a]) });
    expect(readMessageIndexes(Buffer.from([0, 0x0a])).indexes).toEqual([0]);
  });

  it('writes a message under the PROTOBUF schema type, framed and indexed, that protobufjs decodes, and reads it back as a plain object', async () => {
    const serde = SchemaRegistrySerdes.protobuf({ schema: SHOP, messageType: 'shop.Order' });
    await serde.prepare!('orders', config);
    const order = { id: 'o1', quantity: 3, status: 'PAID', tag: Buffer.from([1, 2]), placed: { seconds: 1700000000, nanos: 5 }, lines: [{ sku: 'a', price: 2.5 }] };
    const bytes = serde.serializeTopic!('orders', undefined, order);
    expect(bytes[0]).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(registry.latestId('orders-value'));
    // Order is the file's second message: indexes [1].
    expect([...bytes.subarray(5, 7)]).toEqual([2, 2]);
    const { root } = protobuf.parse(SHOP);
    root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
    const type = root.lookupType('shop.Order');
    expect(type.toObject(type.decode(bytes.subarray(7)), { longs: Number, enums: String })).toMatchObject({ id: 'o1', quantity: 3, status: 'PAID' });
    expect(serde.deserializeTopic!('orders', undefined, bytes)).toEqual({ ...order, placed: { seconds: 1700000000, nanos: 5 } });
  });

  it('reads a nested message, as another writer wrote it, after looking its schema up', async () => {
    const id = registry.register('lines-value', SHOP, 'PROTOBUF');
    const line = protobuf.parse(SHOP).root.lookupType('shop.Order.Line');
    const payload = Buffer.from(line.encode(line.fromObject({ sku: 'b', price: 1 })).finish());
    const header = Buffer.alloc(5);
    header.writeInt32BE(id, 1);
    const reader = SchemaRegistrySerdes.protobuf();
    await reader.prepare!('lines', { ...config, 'use.latest.version': true });
    const bytes = Buffer.concat([header, Buffer.from([4, 2, 0]), payload]);
    expect(await readEventually(() => reader.deserializeTopic!('lines', undefined, bytes))).toEqual({ sku: 'b', price: 1 });
  });

  it("answers Protobuf's JSON mapping for queries (64-bit integers as strings, bytes as base64, default values printed) and takes it back", () => {
    const serde = SchemaRegistrySerdes.protobuf({ schema: SHOP, messageType: 'shop.Order' });
    const json = serde.toJson({ id: 'o2', quantity: 7, status: 'NEW', tag: Buffer.from('hi'), lines: [] });
    expect(json).toEqual({ id: 'o2', quantity: '7', status: 'NEW', tag: 'aGk=', placed: null, lines: [] });
    expect(serde.fromJson(json)).toMatchObject({ id: 'o2', quantity: 7, status: 'NEW', lines: [] });
  });

  it('names the record strategy subject by the full message name, and refuses a message the schema lacks', async () => {
    const serde = SchemaRegistrySerdes.protobuf({ schema: SHOP, messageType: 'shop.Customer' });
    await serde.prepare!('customers', { ...config, 'value.subject.name.strategy': 'RecordNameStrategy' });
    expect(registry.subjectNames()).toContain('shop.Customer');
    expect(() => SchemaRegistrySerdes.protobuf({ schema: SHOP, messageType: 'shop.Nope' })).toThrow(/has no message shop.Nope/);
  });

  it('refuses a schema id that holds another schema type, through the handler', async () => {
    const avroId = registry.register('mixed-value', JSON.stringify({ type: 'record', name: 'R', fields: [] }));
    const serde = SchemaRegistrySerdes.protobuf({ schema: SHOP, messageType: 'shop.Order' });
    await serde.prepare!('mixed-proto', config);
    const header = Buffer.alloc(6);
    header.writeInt32BE(avroId, 1);
    await expect(readEventually(() => serde.deserializeTopic!('mixed-proto', undefined, header))).rejects.toThrow(
      new RegExp(`cannot read schema id ${avroId} from the Schema Registry: it is a AVRO schema, not PROTOBUF`),
    );
  });
});
