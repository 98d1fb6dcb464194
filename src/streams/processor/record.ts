/** Record headers: header name to value, as Kafka carries them. */
export type Headers = Record<string, Buffer | string | undefined>;

/** A record as it flows through a topology (Kafka Streams' `api.Record`). */
export interface StreamRecord<K, V> {
  key: K;
  value: V;
  /** Event time in epoch ms. */
  timestamp: number;
  headers: Headers;
}

/** Where the record being processed came from; absent inside a wall-clock punctuation. */
export interface RecordMetadata {
  topic: string;
  partition: number;
  offset: number;
}
