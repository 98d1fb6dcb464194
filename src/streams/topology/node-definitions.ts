import type { Serde } from '../serdes/serde';
import type {
  ProcessorSupplier,
  StreamPartitioner,
  TimestampExtractor,
  TopicNameExtractor,
} from '../processor/processor';

/** A source reads named topics or every topic matching a pattern. */
export interface SourceDefinition {
  readonly kind: 'source';
  readonly name: string;
  readonly topics: readonly string[];
  readonly pattern?: RegExp;
  readonly keySerde?: Serde<unknown>;
  readonly valueSerde?: Serde<unknown>;
  readonly timestampExtractor?: TimestampExtractor;
  readonly offsetReset?: 'earliest' | 'latest';
}

export interface ProcessorDefinition {
  readonly kind: 'processor';
  readonly name: string;
  readonly supplier: ProcessorSupplier<unknown, unknown, unknown, unknown>;
  readonly parents: readonly string[];
  readonly stores: string[];
}

export interface SinkDefinition {
  readonly kind: 'sink';
  readonly name: string;
  /** A fixed topic, or a function choosing the topic per record. */
  readonly topic: string | TopicNameExtractor<unknown, unknown>;
  readonly keySerde?: Serde<unknown>;
  readonly valueSerde?: Serde<unknown>;
  readonly partitioner?: StreamPartitioner<unknown, unknown>;
  readonly parents: readonly string[];
}

export type NodeDefinition = SourceDefinition | ProcessorDefinition | SinkDefinition;

/** Options of `Topology.addSource`. */
export interface SourceOptions<K = unknown, V = unknown> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  timestampExtractor?: TimestampExtractor;
  offsetReset?: 'earliest' | 'latest';
}

/** Options of `Topology.addSink`. */
export interface SinkOptions<K = unknown, V = unknown> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  partitioner?: StreamPartitioner<K, V>;
}

/** An internal topic that the runtime creates before processing (names here are without the application id). */
export interface RepartitionTopicDefinition {
  readonly name: string;
  /** Fixed count (`Repartitioned.withNumberOfPartitions`), else the max of the upstream sources. */
  readonly numberOfPartitions?: number;
}
