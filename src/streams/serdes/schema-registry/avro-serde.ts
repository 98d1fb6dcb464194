import * as avro from 'avsc';
import type { SchemaRegistryClient } from '@confluentinc/schemaregistry';
import { SerdeNotReady } from '../../../errors';
import type { Serde, SerdeHeaders } from '../serde';
import { serdeError } from '../serde-errors';
import { registryClient, registrySettings, subjectName, type RegistrySettings } from './registry-client';

/** Confluent's wire format: magic byte 0, the schema id as a 4-byte big-endian integer, then the payload. */
const MAGIC = 0;
const HEADER_BYTES = 5;

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

interface Writer {
  id: number;
  type: avro.Type;
  header: Buffer;
}

/**
 * An Avro serde on a Schema Registry, with the bytes Confluent's KafkaAvroSerializer writes. Generic records are
 * plain objects (longs as numbers, bytes as Buffers); give `T` for typed ones. What it needs from the registry is
 * looked up before records pass (`prepare`): the writer's schema id per topic; a record written with a schema id it
 * has not seen makes it look that schema up (SerdeNotReady), and the record is read again once it is there.
 */
export class SchemaRegistryAvroSerde<T> implements Serde<T> {
  readonly name = 'schema-registry-avro';
  private readonly isKey: boolean;
  private readonly schema: avro.Type | undefined;
  private settings: RegistrySettings | undefined;
  private client: SchemaRegistryClient | undefined;
  private readonly writers = new Map<string, Writer>();
  /** Per writer schema id: how to read it (resolved to `schema` when there is one). */
  private readonly readers = new Map<number, { read: (bytes: Buffer) => T; type: avro.Type }>();
  private readonly lookups = new Map<number, Promise<void>>();
  /** A look-up that failed, reported once by the next record that needs it (a later one looks it up again). */
  private readonly failures = new Map<number, Error>();

  constructor(options: AvroSerdeOptions = {}) {
    this.isKey = options.isKey ?? false;
    this.schema = options.schema === undefined ? undefined : avro.Type.forSchema(options.schema);
  }

  async prepare(topic: string, config: Readonly<Record<string, unknown>>): Promise<void> {
    const client = this.configure(config);
    if (this.writers.has(topic)) return;
    const settings = this.settings!;
    const strategy = this.isKey ? settings.keySubjectNameStrategy : settings.valueSubjectNameStrategy;
    const subject = subjectName(strategy, topic, this.isKey, this.schema?.name);
    let id: number;
    let type: avro.Type;
    if (settings.useLatestVersion || this.schema === undefined) {
      const latest = await client.getLatestSchemaMetadata(subject);
      id = latest.id!;
      type = avro.Type.forSchema(JSON.parse(latest.schema) as avro.Schema);
    } else {
      const info = { schemaType: 'AVRO', schema: JSON.stringify(this.schema.schema()) };
      id = settings.autoRegister ? await client.register(subject, info) : await client.getId(subject, info);
      type = this.schema;
    }
    const header = Buffer.alloc(HEADER_BYTES);
    header[0] = MAGIC;
    header.writeInt32BE(id, 1);
    this.writers.set(topic, { id, type, header });
    // What it writes it reads back (a store's values) without a look-up.
    if (!this.readers.has(id)) this.addReader(id, type);
  }

  private addReader(id: number, writer: avro.Type): void {
    const reader = this.schema;
    if (reader === undefined || reader === writer) {
      this.readers.set(id, { type: writer, read: (bytes) => writer.fromBuffer(bytes) as T });
      return;
    }
    const resolver = reader.createResolver(writer);
    this.readers.set(id, { type: reader, read: (bytes) => reader.fromBuffer(bytes, resolver) as T });
  }

  serialize(): Buffer {
    throw serdeError(this.name, 'a registry serde writes for a topic: it is called with one (serializeTopic)');
  }

  deserialize(bytes: Buffer): T {
    return this.deserializeTopic('', undefined, bytes);
  }

  serializeTopic(topic: string, _headers: SerdeHeaders | undefined, value: T): Buffer {
    const writer = this.writers.get(topic);
    if (writer === undefined) throw serdeError(this.name, `no schema prepared for topic '${topic}' (a sink whose topic is chosen per record is not supported yet)`);
    let payload: Buffer;
    try {
      payload = writer.type.toBuffer(value);
    } catch (error) {
      throw serdeError(this.name, `the value does not match schema id ${writer.id} for topic '${topic}': ${(error as Error).message}`);
    }
    return Buffer.concat([writer.header, payload], HEADER_BYTES + payload.length);
  }

  deserializeTopic(_topic: string, _headers: SerdeHeaders | undefined, bytes: Buffer): T {
    if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC) throw serdeError(this.name, `unknown magic byte: not in the Schema Registry's wire format (${bytes.length} bytes)`);
    const id = bytes.readInt32BE(1);
    const reader = this.readers.get(id) ?? this.reader(id);
    try {
      return reader.read(bytes.subarray(HEADER_BYTES));
    } catch (error) {
      throw serdeError(this.name, `the payload does not match schema id ${id}: ${(error as Error).message}`);
    }
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

  private jsonType(): avro.Type {
    const type = this.schema ?? this.writers.values().next().value?.type ?? this.readers.values().next().value?.type;
    if (type === undefined) throw serdeError(this.name, 'no schema known yet to read JSON with');
    return type;
  }

  private configure(config: Readonly<Record<string, unknown>>): SchemaRegistryClient {
    if (this.client) return this.client;
    this.settings = registrySettings(config);
    this.client = registryClient(this.settings);
    return this.client;
  }

  /** The reader of a schema id not seen yet: a failure reported once, else a look-up under way (SerdeNotReady). */
  private reader(id: number): never {
    const failure = this.failures.get(id);
    if (failure !== undefined) {
      this.failures.delete(id);
      throw serdeError(this.name, `cannot read schema id ${id} from the Schema Registry: ${failure.message}`);
    }
    const client = this.client;
    if (client === undefined) throw serdeError(this.name, `schema id ${id}: the serde was not prepared (no registry configured)`);
    let lookup = this.lookups.get(id);
    if (lookup === undefined) {
      lookup = client
        .getBySubjectAndId('', id)
        .then((info) => this.addReader(id, avro.Type.forSchema(JSON.parse(info.schema) as avro.Schema)))
        .catch((error: unknown) => {
          this.failures.set(id, error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => this.lookups.delete(id));
      this.lookups.set(id, lookup);
    }
    throw new SerdeNotReady(`looking up schema id ${id} in the Schema Registry`, lookup);
  }
}

/** Schema Registry serdes, configured from the node's `schema.registry.url` and the serializers' other settings. */
export const SchemaRegistrySerdes = {
  avro<T = Record<string, unknown>>(options: AvroSerdeOptions = {}): Serde<T> {
    return new SchemaRegistryAvroSerde<T>(options);
  },
};
