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
   * Optional: the value in `bytes` from `offset` to `end` (default: the end of `bytes`), as
   * `deserialize(bytes.subarray(offset, end))` gives it. Stores with a prefix before the value (a timestamp), and
   * tasks reading a fetched record's key and value where they lie in the fetched bytes, read through it when it is
   * there: making the view took longer than decoding a short string, and was a third of the garbage of a word count.
   */
  deserializeFrom?(bytes: Buffer, offset: number, end?: number): T;
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
  /**
   * Optional: Kafka's `Serializer.serialize(topic, headers, data)`, for a serde whose bytes depend on the topic or the
   * headers (a schema registry's subject). Where the topic is known (sources, sinks, repartition topics, a store's
   * changelog, a query of a store) the runtime calls it instead of `serialize`. It runs per record, synchronously:
   * what it has to look up, `prepare` looks up first.
   */
  serializeTopic?(topic: string, headers: SerdeHeaders | undefined, value: T): Buffer;
  /**
   * Optional: Kafka's `Deserializer.deserialize(topic, headers, data)`. A deserializer that meets something it has to
   * look up (a schema id it has not seen) throws SerdeNotReady: the task processes that record again once it is ready
   * (with a `cause` when the service it asks failed: the thread logs the outage).
   */
  deserializeTopic?(topic: string, headers: SerdeHeaders | undefined, bytes: Buffer): T;
  /**
   * Optional: resolves, once and asynchronously, what the serde needs for `topic` (a schema and its id), configured
   * from the application's configuration (Kafka's `configure`). A task awaits it for its topics and its stores'
   * changelogs before it processes a record. Rejecting with SerdeNotReady has it called again once that settles,
   * the task waiting meanwhile; any other error fails the task.
   */
  prepare?(topic: string, config: Readonly<Record<string, unknown>>): Promise<void>;
}

/** A record's headers as a serde sees them (the processor API's `Headers`). */
export type SerdeHeaders = Readonly<Record<string, Buffer | string | undefined>>;

/** Whether a serde reads or writes differently per topic, and so must be called with it. */
export function isTopicAware(serde: Serde<unknown>): boolean {
  return serde.serializeTopic !== undefined || serde.deserializeTopic !== undefined;
}

/**
 * `serde` as it reads and writes `topic`, with no headers (Kafka Streams' stores serialize with their changelog's name
 * and no headers): the serde itself when it is blind to topics, so that plain serdes cost nothing more.
 */
export function forTopic<T>(serde: Serde<T>, topic: string): Serde<T> {
  if (!isTopicAware(serde as Serde<unknown>)) return serde;
  const bound: Serde<T> = {
    name: serde.name,
    serialize: serde.serializeTopic ? (value) => serde.serializeTopic!(topic, undefined, value) : (value) => serde.serialize(value),
    deserialize: serde.deserializeTopic ? (bytes) => serde.deserializeTopic!(topic, undefined, bytes) : (bytes) => serde.deserialize(bytes),
    fromJson: (json) => serde.fromJson(json),
    toJson: (value) => serde.toJson(value),
  };
  if (serde.prepare) bound.prepare = (_topic, config) => serde.prepare!(topic, config);
  return bound;
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
