import * as avro from 'avsc';
import { serdeError } from '../serde-errors';
import { type GivenSchema, RegistrySerde } from './registry-serde';

export interface AvroSerdeOptions {
  /**
   * The schema records are written with, and read into (older and newer writers' records are resolved to it, as
   * Avro's schema evolution allows). Without it, records are read as their writer wrote them, and written with the
   * subject's latest schema (`use.latest.version`).
   */
  schema?: avro.Schema;
  /** A key serde: subjects `<topic>-key` (Kafka's `configure(configs, isKey)`). */
  isKey?: boolean;
}

/**
 * An Avro serde on a Schema Registry, with the bytes Confluent's KafkaAvroSerializer writes. Generic records are
 * plain objects (longs as numbers, bytes as Buffers); give `T` for typed ones. As JSON (queries), values follow Avro's
 * JSON encoding (a union's branch named, bytes as code points).
 */
export class SchemaRegistryAvroSerde<T> extends RegistrySerde<T> {
  readonly name = 'schema-registry-avro';
  protected readonly schemaType = 'AVRO';
  private readonly schema: avro.Type | undefined;
  /** The last schema it wrote or read with, when it was given none: what JSON is read and written with. */
  private seen: avro.Type | undefined;

  constructor(options: AvroSerdeOptions = {}) {
    super(options.isKey ?? false);
    this.schema = options.schema === undefined ? undefined : avro.Type.forSchema(options.schema);
  }

  protected givenSchema(): GivenSchema | undefined {
    return this.schema === undefined ? undefined : { schema: JSON.stringify(this.schema.schema()), recordName: this.schema.name };
  }

  protected encoder(schema: string): (value: T) => Buffer {
    const type = this.parse(schema);
    return (value) => type.toBuffer(value);
  }

  protected decoder(schema: string): (payload: Buffer) => T {
    const writer = this.parse(schema);
    const reader = this.schema;
    if (reader === undefined || writer.equals(reader)) return (payload) => writer.fromBuffer(payload) as T;
    const resolver = reader.createResolver(writer);
    return (payload) => reader.fromBuffer(payload, resolver) as T;
  }

  fromJson(json: unknown): T {
    const type = this.jsonType();
    try {
      return type.fromString(JSON.stringify(json)) as T;
    } catch (error) {
      throw serdeError(this.name, `not a value of ${type.name ?? type.typeName}: ${(error as Error).message}`);
    }
  }

  toJson(value: T): unknown {
    return JSON.parse(this.jsonType().toString(value)) as unknown;
  }

  private parse(schema: string): avro.Type {
    const type = this.schema !== undefined && schema === JSON.stringify(this.schema.schema()) ? this.schema : avro.Type.forSchema(JSON.parse(schema) as avro.Schema);
    if (this.schema === undefined) this.seen = type;
    return type;
  }

  private jsonType(): avro.Type {
    const type = this.schema ?? this.seen;
    if (type === undefined) throw serdeError(this.name, 'no schema known yet to read JSON with');
    return type;
  }
}
