import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { type GivenSchema, RegistrySerde } from './registry-serde';

export interface JsonSchemaSerdeOptions {
  /** The JSON Schema records are written with (its `title` names the record for the record strategies). */
  schema?: Record<string, unknown>;
  /** A key serde: subjects `<topic>-key`. */
  isKey?: boolean;
}

/** A validator for the schema's draft ($schema): 2020-12 and 2019-09 by their own classes, draft-07 and older by Ajv's. */
function validator(schema: Record<string, unknown>): ValidateFunction {
  const draft = String(schema.$schema ?? '');
  const options = { strict: false, validateSchema: false, logger: false } as const;
  const ajv = draft.includes('2020-12') ? new Ajv2020(options) : draft.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
  return ajv.compile(schema);
}

/**
 * A JSON Schema serde on a Schema Registry, with the bytes Confluent's KafkaJsonSchemaSerializer writes (the header,
 * then the value as UTF-8 JSON). Values are plain JSON values; with `json.fail.invalid.schema: true` (Confluent's
 * setting) a value that does not validate against the schema is refused when written and when read.
 */
export class SchemaRegistryJsonSchemaSerde<T> extends RegistrySerde<T> {
  readonly name = 'schema-registry-json';
  protected readonly schemaType = 'JSON';
  private readonly schema: Record<string, unknown> | undefined;

  constructor(options: JsonSchemaSerdeOptions = {}) {
    super(options.isKey ?? false);
    this.schema = options.schema;
  }

  protected givenSchema(): GivenSchema | undefined {
    if (this.schema === undefined) return undefined;
    const title = this.schema.title;
    return { schema: JSON.stringify(this.schema), recordName: typeof title === 'string' ? title : undefined };
  }

  protected encoder(schema: string): (value: T) => Buffer {
    const check = this.check(schema);
    return (value) => {
      check(value);
      return Buffer.from(JSON.stringify(value), 'utf8');
    };
  }

  protected decoder(schema: string): (payload: Buffer) => T {
    const check = this.check(schema);
    return (payload) => {
      const value = JSON.parse(payload.toString('utf8')) as T;
      check(value);
      return value;
    };
  }

  fromJson(json: unknown): T {
    return json as T;
  }

  toJson(value: T): unknown {
    return value;
  }

  private check(schema: string): (value: unknown) => void {
    if (!this.settings?.jsonValidate) return () => undefined;
    const validate = validator(JSON.parse(schema) as Record<string, unknown>);
    return (value) => {
      if (!validate(value)) throw new Error(`invalid against its schema: ${validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ')}`);
    };
  }
}
