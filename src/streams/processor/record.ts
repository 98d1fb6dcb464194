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

/**
 * A record whose key cannot change (Kafka Streams' `api.FixedKeyRecord`): what a fixed-key processor receives, and
 * the only kind of record it can forward. New ones come from it through `withValue`, `withTimestamp` and
 * `withHeaders`, which keep the key.
 */
export class FixedKeyRecord<K, V> implements StreamRecord<K, V> {
  private constructor(
    readonly key: K,
    readonly value: V,
    readonly timestamp: number,
    readonly headers: Headers,
  ) {}

  /** @internal The runtime's: a record handed to a fixed-key processor. */
  static of<K, V>(record: StreamRecord<K, V>): FixedKeyRecord<K, V> {
    return new FixedKeyRecord(record.key, record.value, record.timestamp, record.headers);
  }

  withValue<V2>(value: V2): FixedKeyRecord<K, V2> {
    return new FixedKeyRecord(this.key, value, this.timestamp, this.headers);
  }

  withTimestamp(timestamp: number): FixedKeyRecord<K, V> {
    return new FixedKeyRecord(this.key, this.value, timestamp, this.headers);
  }

  withHeaders(headers: Headers): FixedKeyRecord<K, V> {
    return new FixedKeyRecord(this.key, this.value, this.timestamp, headers);
  }
}
