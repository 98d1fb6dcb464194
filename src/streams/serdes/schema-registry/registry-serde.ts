import { SerdeNotReady } from '../../../errors';
import type { Serde, SerdeHeaders } from '../serde';
import { serdeError } from '../serde-errors';
import {
  ensureClientInstalled,
  refusal,
  type RegistryClient,
  registryClient,
  registryFailure,
  registrySettings,
  type RegistrySettings,
  subjectName,
  urlWithoutCredentials,
} from './registry-client';

/** Confluent's wire format: magic byte 0, the schema id as a 4-byte big-endian integer, then the payload. */
const MAGIC = 0;
export const HEADER_BYTES = 5;

/** Waits between look-ups of a schema while the registry is unreachable: Kafka's retry backoff, doubling to a cap. */
const OUTAGE_BACKOFF_MS = 100;
const OUTAGE_BACKOFF_MAX_MS = 5_000;
/**
 * Calls a call the registry refuses (401, 403, a certificate not trusted) gets, the backoff between them, before the
 * task fails: the credentials are the node's, fixed while it runs, but a registry whose own credential store is
 * being rotated or reloaded may refuse for a moment.
 */
const REFUSED_ATTEMPTS = 3;

export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** The schema a serde was given to write with: its text as registered, and its record name (subject strategies). */
export interface GivenSchema {
  schema: string;
  recordName: string | undefined;
}

interface Writer<T> {
  id: number;
  header: Buffer;
  encode: (value: T) => Buffer;
}

/** Calls that failed in a row for the registry's sake, the last one's error, and whether it was a refusal. */
interface Outage {
  attempts: number;
  error: Error;
  refused: boolean;
}

/** A failed registry call: for good (the error to report), or for now (tried again once the backoff has passed). */
type Failure = { error: Error } | { outage: Outage; backoff: Promise<void> };

/**
 * What the registry serdes share: Confluent's wire format, the subject of a topic, the writer's schema id resolved per
 * topic before records pass (`prepare`), and each schema id a record names looked up once. A look-up that fails for
 * the record's sake (no such id) is reported by the next read of it, which the deserialization handler decides on;
 * one that fails for the registry's (unreachable, timing out) is tried again with a backoff, the record held
 * (SerdeNotReady) until it can be read: an outage never skips a record. `prepare` waits out an outage the same way.
 * Refused credentials (or a certificate not trusted) are a configuration error (ConfigException), which fails the
 * task after a few tries.
 */
export abstract class RegistrySerde<T> implements Serde<T> {
  abstract readonly name: string;
  protected abstract readonly schemaType: SchemaType;
  protected settings: RegistrySettings | undefined;
  private client: RegistryClient | undefined;
  private readonly writers = new Map<string, Writer<T>>();
  private readonly readers = new Map<number, (payload: Buffer) => T>();
  private readonly lookups = new Map<number, Promise<void>>();
  /** Look-ups of schema ids that failed for good: what the next read of each reports. */
  private readonly failures = new Map<number, Error>();
  /** Outages by what is looked up: `schema id 42`, `subject 'orders-value'`. */
  private readonly outages = new Map<string, Outage>();

  constructor(protected readonly isKey: boolean) {
    // A serde made without the client installed fails as the topology is built, not at its first record.
    ensureClientInstalled();
  }

  /** The schema the serde was given, if any. */
  protected abstract givenSchema(): GivenSchema | undefined;
  /** Writes a value's payload (what follows the 5-byte header) with `schema`, the given one or the subject's latest. */
  protected abstract encoder(schema: string): (value: T) => Buffer;
  /** Reads a payload written with `schema` (throws when the registry's schema is not one this serde reads). */
  protected abstract decoder(schema: string): (payload: Buffer) => T;
  abstract fromJson(json: unknown): T;
  abstract toJson(value: T): unknown;

  /**
   * Resolves the schema id the serde writes `topic` with (registering the schema, or looking it up). While the
   * registry is unreachable it throws SerdeNotReady, whose promise settles when it is worth calling again.
   */
  async prepare(topic: string, config: Readonly<Record<string, unknown>>): Promise<void> {
    const client = this.configure(config);
    if (this.writers.has(topic)) return;
    const settings = this.settings!;
    const given = this.givenSchema();
    const strategy = this.isKey ? settings.keySubjectNameStrategy : settings.valueSubjectNameStrategy;
    const subject = subjectName(strategy, topic, this.isKey, given?.recordName);
    const what = `subject '${subject}'`;
    let writer: { id: number; schema: string; schemaType: string };
    try {
      writer = await this.writerSchema(client, subject, given);
    } catch (error) {
      const failure = this.failure(what, error);
      if ('error' in failure) throw failure.error;
      throw new SerdeNotReady(this.outageDetail(what, failure.outage), failure.backoff, { lookingUp: { subject }, cause: failure.outage.error });
    }
    this.outages.delete(what);
    if (writer.schemaType !== this.schemaType) throw serdeError(this.name, `subject '${subject}' holds a ${writer.schemaType} schema, not ${this.schemaType}`);
    const header = Buffer.alloc(HEADER_BYTES);
    header[0] = MAGIC;
    header.writeInt32BE(writer.id, 1);
    this.writers.set(topic, { id: writer.id, header, encode: this.encoder(writer.schema) });
    // What it writes it reads back (a store's values) without a look-up.
    if (!this.readers.has(writer.id)) this.readers.set(writer.id, this.decoder(writer.schema));
  }

  /** The schema a subject is written with: the given one (registered, or looked up), or the subject's latest. */
  private async writerSchema(client: RegistryClient, subject: string, given: GivenSchema | undefined): Promise<{ id: number; schema: string; schemaType: string }> {
    const settings = this.settings!;
    if (settings.useLatestVersion || given === undefined) {
      const latest = await client.getLatestSchemaMetadata(subject);
      return { id: latest.id!, schema: latest.schema, schemaType: latest.schemaType ?? 'AVRO' };
    }
    const info = { schemaType: this.schemaType, schema: given.schema };
    const id = settings.autoRegister ? await client.register(subject, info) : await client.getId(subject, info);
    return { id, schema: given.schema, schemaType: this.schemaType };
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
      payload = writer.encode(value);
    } catch (error) {
      throw serdeError(this.name, `the value does not match schema id ${writer.id} for topic '${topic}': ${(error as Error).message}`);
    }
    return Buffer.concat([writer.header, payload], HEADER_BYTES + payload.length);
  }

  deserializeTopic(_topic: string, _headers: SerdeHeaders | undefined, bytes: Buffer): T {
    if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC) throw serdeError(this.name, `unknown magic byte: not in the Schema Registry's wire format (${bytes.length} bytes)`);
    const id = bytes.readInt32BE(1);
    const read = this.readers.get(id) ?? this.lookUp(id);
    try {
      return read(bytes.subarray(HEADER_BYTES));
    } catch (error) {
      throw serdeError(this.name, `the payload does not match schema id ${id}: ${(error as Error).message}`);
    }
  }

  private configure(config: Readonly<Record<string, unknown>>): RegistryClient {
    if (this.client) return this.client;
    this.settings = registrySettings(config);
    this.client = registryClient(this.settings);
    return this.client;
  }

  /** The reader of a schema id not seen yet: a failure reported once, else a look-up under way (SerdeNotReady). */
  private lookUp(id: number): never {
    const failure = this.failures.get(id);
    if (failure !== undefined) {
      this.failures.delete(id);
      throw failure;
    }
    const client = this.client;
    if (client === undefined) throw serdeError(this.name, `schema id ${id}: the serde was not prepared (no registry configured)`);
    let lookup = this.lookups.get(id);
    if (lookup === undefined) {
      lookup = this.fetchReader(client, id).finally(() => this.lookups.delete(id));
      this.lookups.set(id, lookup);
    }
    const what = `schema id ${id}`;
    const outage = this.outages.get(what);
    if (outage === undefined) throw new SerdeNotReady(`looking up ${what} in the Schema Registry`, lookup, { lookingUp: { schemaId: id } });
    throw new SerdeNotReady(this.outageDetail(what, outage), lookup, { lookingUp: { schemaId: id }, cause: outage.error });
  }

  /** Looks a schema id up once; settles (never rejects) when it is known, failed for good, or the backoff has passed. */
  private async fetchReader(client: RegistryClient, id: number): Promise<void> {
    const what = `schema id ${id}`;
    let info;
    try {
      info = await client.getBySubjectAndId('', id);
    } catch (error) {
      const failure = this.failure(what, error, (cause) => this.unreadable(id, cause));
      if ('error' in failure) this.failures.set(id, failure.error);
      else await failure.backoff;
      return;
    }
    this.outages.delete(what);
    try {
      if ((info.schemaType ?? 'AVRO') !== this.schemaType) throw new Error(`it is a ${info.schemaType ?? 'AVRO'} schema, not ${this.schemaType}`);
      this.readers.set(id, this.decoder(info.schema));
    } catch (error) {
      this.failures.set(id, this.unreadable(id, error as Error));
    }
  }

  /**
   * What a failed call for `what` comes to: the record's failure (as `recordError` reports it), or refused credentials
   * past REFUSED_ATTEMPTS, for good; anything else an outage, called again after a backoff (100 ms doubling to 5 s).
   */
  private failure(what: string, error: unknown, recordError: (cause: Error) => Error = (cause) => cause): Failure {
    const cause = error instanceof Error ? error : new Error(String(error));
    const kind = registryFailure(error);
    const attempts = (this.outages.get(what)?.attempts ?? 0) + 1;
    if (kind === 'record' || (kind === 'refused' && attempts >= REFUSED_ATTEMPTS)) {
      this.outages.delete(what);
      return { error: kind === 'refused' ? refusal(this.settings!.url, what, error) : recordError(cause) };
    }
    const outage = { attempts, error: cause, refused: kind === 'refused' };
    this.outages.set(what, outage);
    const backoff = Math.min(OUTAGE_BACKOFF_MS * 2 ** (attempts - 1), OUTAGE_BACKOFF_MAX_MS);
    return { outage, backoff: new Promise((resolve) => setTimeout(resolve, backoff)) };
  }

  private outageDetail(what: string, outage: Outage): string {
    const registry = `the Schema Registry at ${urlWithoutCredentials(this.settings!.url)}`;
    const failed = outage.refused ? `${registry} refused the request for ${what}` : `${registry} does not answer for ${what}`;
    return `${failed}; trying again (attempt ${outage.attempts + 1})`;
  }

  private unreadable(id: number, cause: Error): Error {
    return serdeError(this.name, `cannot read schema id ${id} from the Schema Registry: ${cause.message}`);
  }
}
