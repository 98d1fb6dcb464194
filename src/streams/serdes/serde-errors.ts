import { SerializationException } from '../../errors';

/** Builds the SerializationException a serde throws, naming the serde so the message points at the configuration. */
export function serdeError(serdeName: string, detail: string): InstanceType<typeof SerializationException> {
  return new SerializationException(`Serde '${serdeName}': ${detail}`);
}

/** Checks the size of bytes handed to a fixed-size deserializer (Kafka's "Size of data received ... is not N"). */
export function expectSize(serdeName: string, bytes: Buffer, size: number): void {
  if (bytes.length !== size) {
    throw serdeError(serdeName, `expected ${size} bytes, received ${bytes.length}`);
  }
}

/** Short description of a rejected JSON value for error messages. */
export function describeJson(json: unknown): string {
  if (json === null) return 'null';
  if (Array.isArray(json)) return 'an array';
  if (typeof json === 'string') return `the string ${JSON.stringify(json.length > 40 ? json.slice(0, 40) + '…' : json)}`;
  if (typeof json === 'number' || typeof json === 'boolean') return `${typeof json} ${String(json)}`;
  if (typeof json === 'object') return 'an object';
  return `a value of type ${typeof json}`;
}
