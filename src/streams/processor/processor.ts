import type { FixedKeyRecord, RecordMetadata, StreamRecord } from './record';

/** When a punctuation fires: as stream time advances, or as the wall clock does. */
export type PunctuationType = 'STREAM_TIME' | 'WALL_CLOCK_TIME';

export type Punctuator = (timestamp: number) => void;

export interface Cancellable {
  cancel(): void;
}

/** What every processor can do while processing, beside forwarding: Kafka Streams' `api.ProcessingContext`. */
export interface ProcessingContext {
  readonly applicationId: string;
  /** `<subtopology>_<partition>`. */
  readonly taskId: string;
  /** A store connected to this processor. Throws a clear error for a store it is not connected to. */
  getStateStore<S>(name: string): S;
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable;
  /** Topic, partition and offset of the input record; undefined inside a wall-clock punctuation. */
  recordMetadata(): RecordMetadata | undefined;
  /** Largest timestamp seen by the task so far (-1 before the first record). */
  currentStreamTimeMs(): number;
  currentSystemTimeMs(): number;
  /** Asks for a commit as soon as possible. */
  commit(): void;
  /** Configuration of the running application (Kafka Streams names). */
  readonly appConfig: Readonly<Record<string, unknown>>;
  /**
   * Sends a record to the subscribers of one of the topology's event types (declared with `Topology.addEventType`),
   * on the node that processes it. Not Kafka Streams: Azkarra's event streams.
   */
  publishEvent(eventType: string, record: StreamRecord<unknown, unknown>): void;
}

/** What a processor can do while processing: Kafka Streams' `api.ProcessorContext`. */
export interface ProcessorContext<KOut = unknown, VOut = unknown> extends ProcessingContext {
  /** Sends a record to every child node, or to the named child only. */
  forward<K extends KOut, V extends VOut>(record: StreamRecord<K, V>, childName?: string): void;
}

/**
 * What a fixed-key processor can do (Kafka Streams' `api.FixedKeyProcessorContext`): it forwards only records made
 * from the records it was given (`record.withValue(...)`), so their keys are the keys it received.
 */
export interface FixedKeyProcessorContext<K = unknown, VOut = unknown> extends ProcessingContext {
  /** Sends a record to every child node, or to the named child only. */
  forward<V extends VOut>(record: FixedKeyRecord<K, V>, childName?: string): void;
}

/** A node of the processor graph (Kafka Streams' `api.Processor`). */
export interface Processor<KIn = unknown, VIn = unknown, KOut = unknown, VOut = unknown> {
  init?(context: ProcessorContext<KOut, VOut>): void;
  process(record: StreamRecord<KIn, VIn>): void;
  close?(): void;
}

/** Builds one processor instance per task. */
export type ProcessorSupplier<KIn = unknown, VIn = unknown, KOut = unknown, VOut = unknown> = () => Processor<
  KIn,
  VIn,
  KOut,
  VOut
>;

/**
 * A processor that may change values, timestamps and headers but never keys (Kafka Streams' `api.FixedKeyProcessor`,
 * KIP-820), for `KStream.processValues`: since keys stay, the stream needs no repartition after it.
 */
export interface FixedKeyProcessor<KIn = unknown, VIn = unknown, VOut = unknown> {
  init?(context: FixedKeyProcessorContext<KIn, VOut>): void;
  process(record: FixedKeyRecord<KIn, VIn>): void;
  close?(): void;
}

/** Builds one fixed-key processor instance per task. */
export type FixedKeyProcessorSupplier<KIn = unknown, VIn = unknown, VOut = unknown> = () => FixedKeyProcessor<KIn, VIn, VOut>;

/** Picks a sink's topic per record. */
export type TopicNameExtractor<K, V> = (key: K, value: V, recordMetadata: RecordMetadata | undefined) => string;

/** Picks a sink's partition per record; undefined falls back to the default (murmur2 of the key bytes). */
export type StreamPartitioner<K, V> = (topic: string, key: K, value: V, numPartitions: number) => number | undefined;

/** Reads the event time of a consumed record. */
export type TimestampExtractor = (record: {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: unknown;
  value: unknown;
}, partitionTime: number) => number;
