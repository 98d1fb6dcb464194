import * as protobuf from 'protobufjs';
import { serdeError } from '../serde-errors';
import { type GivenSchema, RegistrySerde } from './registry-serde';

export interface ProtobufSerdeOptions {
  /** The `.proto` file, as registered: records are written with it and read as plain objects of its messages. */
  schema?: string;
  /** The message records are written as, by its full name (`shop.Order`); the first message of the file if not given. */
  messageType?: string;
  /** A key serde: subjects `<topic>-key`. */
  isKey?: boolean;
}

/** Plain objects: camelCase field names (protobufjs', as Protobuf's JSON mapping), enums by name, every field present. */
const OBJECT_OPTIONS: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true };
/** Protobuf's JSON mapping: 64-bit integers as strings, bytes as base64; with its option to print default values too. */
const JSON_OPTIONS: protobuf.IConversionOptions = { longs: String, enums: String, bytes: String, json: true, defaults: true };

interface ParsedFile {
  /** The file's top-level messages, in order: what the first message index counts. */
  messages: protobuf.Type[];
}

function parseFile(schema: string): ParsedFile {
  const parsed = protobuf.parse(schema);
  for (const file of parsed.imports ?? []) {
    // Google's well-known types, which protobufjs carries; other imports are schema references (not supported yet).
    const common = protobuf.common.get(file);
    if (common === null) throw new Error(`the schema imports ${file}, and schema references are not supported yet`);
    parsed.root.addJSON(common.nested!);
  }
  parsed.root.resolveAll();
  const top = parsed.package === undefined ? parsed.root : parsed.root.lookup(parsed.package);
  return { messages: nestedTypes(top as protobuf.Namespace) };
}

function nestedTypes(namespace: protobuf.Namespace): protobuf.Type[] {
  return namespace.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type);
}

/** Confluent's message indexes: the path from the file's messages down to the message the record is. */
function indexesOf(file: ParsedFile, type: protobuf.Type): number[] {
  const path: number[] = [];
  let current: protobuf.Type = type;
  while (current.parent instanceof protobuf.Type) {
    path.unshift(nestedTypes(current.parent).indexOf(current));
    current = current.parent;
  }
  path.unshift(file.messages.indexOf(current));
  return path;
}

function typeAt(file: ParsedFile, indexes: readonly number[]): protobuf.Type {
  let candidates = file.messages;
  let type: protobuf.Type | undefined;
  for (const index of indexes) {
    type = candidates[index];
    if (type === undefined) throw new Error(`no message at index path [${indexes.join(', ')}]`);
    candidates = nestedTypes(type);
  }
  return type!;
}

/** The indexes as Confluent writes them: zigzag varints, count first; [0], the commonest, as the single byte 0. */
export function writeMessageIndexes(indexes: readonly number[]): Buffer {
  const writer = protobuf.Writer.create();
  if (indexes.length === 1 && indexes[0] === 0) return Buffer.from([0]);
  writer.sint32(indexes.length);
  for (const index of indexes) writer.sint32(index);
  return Buffer.from(writer.finish());
}

export function readMessageIndexes(payload: Buffer): { indexes: number[]; rest: Buffer } {
  const reader = protobuf.Reader.create(payload);
  const count = reader.sint32();
  const indexes = count === 0 ? [0] : Array.from({ length: count }, () => reader.sint32());
  return { indexes, rest: payload.subarray(reader.pos) };
}

/**
 * A Protobuf serde on a Schema Registry, with the bytes Confluent's KafkaProtobufSerializer writes (the header, the
 * message indexes, the message). Generic records are plain objects (camelCase fields, 64-bit integers as numbers, enums
 * by name); as JSON (queries), values follow Protobuf's JSON mapping.
 */
export class SchemaRegistryProtobufSerde<T> extends RegistrySerde<T> {
  readonly name = 'schema-registry-protobuf';
  protected readonly schemaType = 'PROTOBUF';
  private readonly schema: string | undefined;
  private readonly messageType: string | undefined;
  /** The message type it wrote or read last: what JSON is read and written as. */
  private jsonMessage: protobuf.Type | undefined;

  constructor(options: ProtobufSerdeOptions = {}) {
    super(options.isKey ?? false);
    this.schema = options.schema;
    this.messageType = options.messageType;
    if (this.schema !== undefined) this.jsonMessage = this.writerType(parseFile(this.schema));
  }

  protected givenSchema(): GivenSchema | undefined {
    return this.schema === undefined ? undefined : { schema: this.schema, recordName: this.jsonMessage!.fullName.replace(/^\./, '') };
  }

  protected encoder(schema: string): (value: T) => Buffer {
    const file = parseFile(schema);
    const type = this.writerType(file);
    const indexes = writeMessageIndexes(indexesOf(file, type));
    return (value) => Buffer.concat([indexes, type.encode(type.fromObject(value as Record<string, unknown>)).finish()]);
  }

  protected decoder(schema: string): (payload: Buffer) => T {
    const file = parseFile(schema);
    return (payload) => {
      const { indexes, rest } = readMessageIndexes(payload);
      const type = typeAt(file, indexes);
      this.jsonMessage ??= type;
      return type.toObject(type.decode(rest), OBJECT_OPTIONS) as T;
    };
  }

  fromJson(json: unknown): T {
    const type = this.jsonType();
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw serdeError(this.name, `not a ${type.name} as JSON: an object is expected`);
    try {
      return type.toObject(type.fromObject(json as Record<string, unknown>), OBJECT_OPTIONS) as T;
    } catch (error) {
      throw serdeError(this.name, `not a ${type.name} as JSON: ${(error as Error).message}`);
    }
  }

  toJson(value: T): unknown {
    const type = this.jsonType();
    return type.toObject(type.fromObject(value as Record<string, unknown>), JSON_OPTIONS);
  }

  /** The message records are written as: `messageType`, or the file's first message. */
  private writerType(file: ParsedFile): protobuf.Type {
    if (this.messageType === undefined) {
      const first = file.messages[0];
      if (first === undefined) throw serdeError(this.name, 'the schema has no message');
      return first;
    }
    const wanted = this.messageType.replace(/^\./, '');
    const all = (types: protobuf.Type[]): protobuf.Type[] => types.flatMap((t) => [t, ...all(nestedTypes(t))]);
    const found = all(file.messages).find((t) => t.fullName.replace(/^\./, '') === wanted);
    if (found === undefined) throw serdeError(this.name, `the schema has no message ${wanted}`);
    return found;
  }

  private jsonType(): protobuf.Type {
    if (this.jsonMessage === undefined) throw serdeError(this.name, 'no schema known yet to read JSON with');
    return this.jsonMessage;
  }
}
