/**
 * A serde turns values into the bytes Kafka carries and back. Null values (tombstones) never reach a serde:
 * the runtime passes them through as null, as Kafka Streams' serdes do.
 */
export interface Serde<T> {
  /** Name used by `default.key.serde` / `default.value.serde`, e.g. `string`, `long`, `json`. */
  readonly name: string;
  serialize(value: T): Buffer;
  deserialize(bytes: Buffer): T;
  /**
   * Optional: the value in `bytes` from `offset` on, as `deserialize(bytes.subarray(offset))` gives it. Stores
   * with a prefix before the value (a timestamp) read through it when it is there: making the view took longer
   * than decoding a short string.
   */
  deserializeFrom?(bytes: Buffer, offset: number): T;
  /**
   * Optional: the value as a string whose UTF-8 encoding is exactly what `serialize` gives (string and JSON serdes).
   * A sink hands that string to the producer, which encodes it straight into the produce request: no Buffer per
   * record, and a produced record waiting to be sent holds a string the topology made anyway.
   */
  serializeToUtf8?(value: T): string;
  /**
   * Reads a value from JSON as the query API receives it (a key in a store query): a string for string keys,
   * a number for numeric keys, anything for JSON. Throws a SerializationException for a value it cannot take.
   */
  fromJson(json: unknown): T;
  /** The value as JSON for the query API (bytes become base64). */
  toJson(value: T): unknown;
}

/**
 * `serde` with shortcuts that must agree with its `serialize` and `deserialize`, defined not enumerable: a copy that
 * spreads it with a serializer or deserializer of its own (`{ ...Serdes.String(), serialize }`) then has no shortcut
 * that would bypass them.
 */
export function withShortcuts<T>(serde: Serde<T>, shortcuts: Pick<Serde<T>, 'deserializeFrom' | 'serializeToUtf8'>): Serde<T> {
  for (const [name, value] of Object.entries(shortcuts)) Object.defineProperty(serde, name, { value, enumerable: false, writable: false, configurable: false });
  return serde;
}
