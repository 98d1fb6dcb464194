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

/**
 * A record as a sink or a store's changelog hands it to the collector: a key or value may still be a string, to be
 * written as its UTF-8 bytes (a serde's `serializeToUtf8`).
 */
export interface CollectedRecord extends Omit<ProducedRecord, 'key' | 'value'> {
  key: Buffer | string | null;
  value: Buffer | string | null;
}

/**
 * The record with its key and value as bytes, as a production exception handler or a test's output shows it: a
 * copy, with headers of its own (changelog records share one frozen, empty headers object).
 */
export function producedRecord(record: CollectedRecord): ProducedRecord {
  return { ...record, key: utf8Bytes(record.key), value: utf8Bytes(record.value), headers: { ...record.headers } };
}

function utf8Bytes(data: Buffer | string | null): Buffer | null {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** Where sinks and changelogging send records: the producer in the runtime, in-memory topics in the test driver. */
export interface RecordCollector {
  send(record: CollectedRecord): void;
  /** Partition count of a topic, for custom partitioners; undefined when unknown. */
  partitionCount(topic: string): number | undefined;
}
