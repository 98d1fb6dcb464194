import type { Headers } from '../processor/record';

/** A record on its way to Kafka: serialized, topic resolved. */
export interface ProducedRecord {
  topic: string;
  /** Undefined: the collector picks it (murmur2 of the key bytes, as Java's default partitioner). */
  partition?: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: Headers;
}

/** Where sinks and changelogging send records: the producer in the runtime, in-memory topics in the test driver. */
export interface RecordCollector {
  send(record: ProducedRecord): void;
  /** Partition count of a topic, for custom partitioners; undefined when unknown. */
  partitionCount(topic: string): number | undefined;
}
