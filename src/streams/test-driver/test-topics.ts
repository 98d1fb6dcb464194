import type { Headers } from '../processor/record';
import type { Serde } from '../serdes/serde';
import type { KeyValue } from '../state/store';

/** A record read from an output topic of the test driver. */
export interface TestRecord<K, V> {
  key: K | null;
  value: V | null;
  timestamp: number;
  headers: Headers;
}

export interface InputTopicOptions {
  /** Timestamp of the first record piped without one (default: the driver's initial wall-clock time). */
  startTimestamp?: number;
  /** Added to the timestamp after each record piped without one. */
  autoAdvanceMs?: number;
}

/** Pipes records into an input topic of the test driver (Kafka Streams' `TestInputTopic`). */
export class TestInputTopic<K, V> {
  private nextTimestamp: number;

  /** @internal */
  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly pipe: (topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: Headers) => void,
    startTimestamp: number,
    private readonly autoAdvanceMs: number,
  ) {
    this.nextTimestamp = startTimestamp;
  }

  pipeInput(key: K | null, value: V | null, timestamp?: number, headers: Headers = {}): void {
    const ts = timestamp ?? this.takeTimestamp();
    const keyBytes = key === null || key === undefined ? null : serializeTo(this.keySerde, this.name, headers, key);
    const valueBytes = value === null || value === undefined ? null : serializeTo(this.valueSerde, this.name, headers, value);
    this.pipe(this.name, keyBytes, valueBytes, ts, headers);
  }

  pipeValue(value: V | null, timestamp?: number): void {
    this.pipeInput(null, value, timestamp);
  }

  pipeKeyValueList(records: KeyValue<K | null, V | null>[], timestamp?: number): void {
    for (const r of records) this.pipeInput(r.key, r.value, timestamp);
  }

  pipeValueList(values: (V | null)[]): void {
    for (const v of values) this.pipeValue(v);
  }

  advanceTime(ms: number): void {
    this.nextTimestamp += ms;
  }

  private takeTimestamp(): number {
    const ts = this.nextTimestamp;
    this.nextTimestamp += this.autoAdvanceMs;
    return ts;
  }
}

/** Reads what the topology wrote to an output topic (Kafka Streams' `TestOutputTopic`). */
export class TestOutputTopic<K, V> {
  /** @internal */
  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly queue: { key: Buffer | null; value: Buffer | null; timestamp: number; headers: Headers }[],
  ) {}

  readRecord(): TestRecord<K, V> {
    const raw = this.queue.shift();
    if (!raw) throw new Error(`output topic ${this.name} is empty`);
    return {
      key: raw.key === null ? null : deserializeFrom(this.keySerde, this.name, raw.headers, raw.key),
      value: raw.value === null ? null : deserializeFrom(this.valueSerde, this.name, raw.headers, raw.value),
      timestamp: raw.timestamp,
      headers: raw.headers,
    };
  }

  readValue(): V | null {
    return this.readRecord().value;
  }

  readKeyValue(): KeyValue<K | null, V | null> {
    const r = this.readRecord();
    return { key: r.key, value: r.value };
  }

  readRecordsToList(): TestRecord<K, V>[] {
    const out: TestRecord<K, V>[] = [];
    while (this.queue.length > 0) out.push(this.readRecord());
    return out;
  }

  readKeyValuesToList(): KeyValue<K | null, V | null>[] {
    return this.readRecordsToList().map((r) => ({ key: r.key, value: r.value }));
  }

  readValuesToList(): (V | null)[] {
    return this.readRecordsToList().map((r) => r.value);
  }

  /** The latest value per key; a null value removes the key. */
  readKeyValuesToMap(): Map<K | null, V> {
    const map = new Map<K | null, V>();
    for (const r of this.readRecordsToList()) {
      if (r.value === null) map.delete(r.key);
      else map.set(r.key, r.value);
    }
    return map;
  }

  isEmpty(): boolean {
    return this.queue.length === 0;
  }

  getQueueSize(): number {
    return this.queue.length;
  }
}

/** As a producer serializes: with the topic and headers when the serde takes them. */
function serializeTo<T>(serde: Serde<T>, topic: string, headers: Headers, value: T): Buffer {
  return serde.serializeTopic ? serde.serializeTopic(topic, headers, value) : serde.serialize(value);
}

function deserializeFrom<T>(serde: Serde<T>, topic: string, headers: Headers, bytes: Buffer): T {
  return serde.deserializeTopic ? serde.deserializeTopic(topic, headers, bytes) : serde.deserialize(bytes);
}
