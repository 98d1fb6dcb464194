import type { Serde } from '../serde';
import { type AvroSerdeOptions, SchemaRegistryAvroSerde } from './avro-serde';
import { type JsonSchemaSerdeOptions, SchemaRegistryJsonSchemaSerde } from './json-schema-serde';
import { type ProtobufSerdeOptions, SchemaRegistryProtobufSerde } from './protobuf-serde';

export type { AvroSerdeOptions, JsonSchemaSerdeOptions, ProtobufSerdeOptions };

/**
 * Schema Registry serdes (Confluent's wire format), configured from the node's `schema.registry.url` and the
 * serializers' other settings. They need the optional peer dependency @confluentinc/schemaregistry.
 */
export const SchemaRegistrySerdes = {
  avro<T = Record<string, unknown>>(options: AvroSerdeOptions = {}): Serde<T> {
    return new SchemaRegistryAvroSerde<T>(options);
  },
  protobuf<T = Record<string, unknown>>(options: ProtobufSerdeOptions = {}): Serde<T> {
    return new SchemaRegistryProtobufSerde<T>(options);
  },
  jsonSchema<T = unknown>(options: JsonSchemaSerdeOptions = {}): Serde<T> {
    return new SchemaRegistryJsonSchemaSerde<T>(options);
  },
};
