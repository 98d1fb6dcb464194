/** The registry the integration run starts (global-setup): Karapace on the run's broker, reached over Confluent's REST API. */
import { registryUrl } from '../support/schema-registry';

describe("the test run's Schema Registry", () => {
  it("registers and serves Avro, Protobuf and JSON schemas under Confluent's API", async () => {
    const url = registryUrl();
    const subject = `registry-check-${Date.now()}`;
    const register = async (schemaType: string, schema: string) => {
      const response = await fetch(`${url}/subjects/${subject}-${schemaType}/versions`, {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify({ schemaType, schema }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: number }).id;
    };
    const avro = await register('AVRO', JSON.stringify({ type: 'record', name: 'Check', fields: [{ name: 'id', type: 'string' }] }));
    await register('PROTOBUF', 'syntax = "proto3";\nmessage Check { string id = 1; }\n');
    await register('JSON', JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } }));
    const served = (await (await fetch(`${url}/schemas/ids/${avro}`)).json()) as { schema: string };
    expect(JSON.parse(served.schema)).toMatchObject({ name: 'Check' });
  });
});
