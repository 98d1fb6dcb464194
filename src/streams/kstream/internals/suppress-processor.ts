import { StreamsException, TopologyException } from '../../../errors';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { Headers, StreamRecord } from '../../processor/record';
import { deriveFromDefault } from '../../serdes/default-serde';
import { readInt64BE, writeInt64BE } from '../../serdes/int64';
import type { Serde } from '../../serdes/serde';
import { serdeError } from '../../serdes/serde-errors';
import type { KeyValueStore, StateStore, Windowed } from '../../state/store';
import { Stores, type StoreBuilder } from '../../state/stores';
import type { Suppressed } from '../suppressed';
import { type Change, changeSerde } from './change';
import { MinHeap } from './min-heap';

/** A held-back update: when it is due (`bufferTime` + the wait), its record's timestamp and the update itself. */
interface Buffered<V> {
  bufferTime: number;
  timestamp: number;
  change: Change<V>;
}

const HEADER_BYTES = 16;

/** The buffer store's values: `[8-byte BE buffer time][8-byte BE timestamp][the update, as changeSerde writes it]`. */
function bufferedSerde<V>(inner: Serde<V>): Serde<Buffered<V>> {
  const changes = changeSerde(inner);
  const name = `suppress-buffer(${inner.name})`;
  return {
    name,
    serialize(buffered) {
      const header = Buffer.allocUnsafe(HEADER_BYTES);
      writeInt64BE(header, buffered.bufferTime, 0);
      writeInt64BE(header, buffered.timestamp, 8);
      return Buffer.concat([header, changes.serialize(buffered.change)]);
    },
    deserialize(bytes) {
      return {
        bufferTime: readInt64BE(bytes, 0),
        timestamp: readInt64BE(bytes, 8),
        change: changes.deserialize(bytes.subarray(HEADER_BYTES)),
      };
    },
    fromJson() {
      throw serdeError(name, 'buffered updates are not read from JSON');
    },
    toJson: (buffered) => ({ buffer_time: buffered.bufferTime, timestamp: buffered.timestamp, value: changes.toJson(buffered.change) }),
  };
}

/** The suppression buffer: an in-memory store restored from its changelog, so held-back updates survive a restart. */
export function suppressionBufferBuilder(
  name: string,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
): StoreBuilder<StateStore> {
  const values = valueSerde
    ? bufferedSerde(valueSerde)
    : deriveFromDefault('suppress-buffer(default)', (inner) => bufferedSerde(inner));
  return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keySerde, values) as unknown as StoreBuilder<StateStore>;
}

interface Entry<K, V> {
  key: K;
  keyId: string;
  buffered: Buffered<V>;
  headers: Headers;
  /** Tells a live heap node from one left by a later update of the same key. */
  seq: number;
}

interface HeapNode {
  time: number;
  keyId: string;
  seq: number;
}

/**
 * `KTable.suppress` (Kafka Streams' `KTableSuppressProcessor`): each update replaces the key's buffered one; a key is
 * emitted once the stream time observed here (the largest timestamp of the updates received) reaches its buffer time
 * plus the wait: window end + grace for `untilWindowCloses`, for `untilTimeLimit` the time of the update that first
 * buffered the key + limit. Due keys go
 * out oldest first, ties in key byte order. Emit-final drops tombstones, as Kafka Streams does.
 */
export function suppressProcessor<K, V>(
  suppressed: Suppressed,
  storeName: string,
  windowGraceMs: number | undefined,
): ProcessorSupplier<unknown, unknown, unknown, unknown> {
  const untilWindowCloses = suppressed.until === 'window-close';
  if (untilWindowCloses && windowGraceMs === undefined) {
    throw new TopologyException('suppress(untilWindowCloses) needs the table of a windowed aggregation');
  }
  const bufferTime = untilWindowCloses
    ? (record: StreamRecord<K, Change<V>>) => (record.key as Windowed<unknown>).window.end
    : (record: StreamRecord<K, Change<V>>) => record.timestamp;
  const waitMs = untilWindowCloses ? windowGraceMs! : suppressed.timeLimitMs;
  return () =>
    new (class implements Processor<K, Change<V>, unknown, unknown> {
      private context!: ProcessorContext<unknown, unknown>;
      private store!: KeyValueStore<K, Buffered<V>>;
      private readonly entries = new Map<string, Entry<K, V>>();
      private readonly heap = new MinHeap<HeapNode>((a, b) => a.time < b.time || (a.time === b.time && a.keyId < b.keyId));
      private seq = 0;
      private observedStreamTime = -1;

      init(context: ProcessorContext<unknown, unknown>): void {
        this.context = context;
        this.store = context.getStateStore<KeyValueStore<K, Buffered<V>>>(storeName);
        // After a restart the buffer comes back from its changelog (headers are not kept).
        for (const { key, value } of this.store.all()) this.track(key, this.keyId(key), value, {});
      }

      process(record: StreamRecord<K, Change<V>>): void {
        this.observedStreamTime = Math.max(this.observedStreamTime, record.timestamp);
        const keyId = this.keyId(record.key);
        // A key updated while buffered keeps its place and its buffer time (Kafka Streams' non-resetting buffer).
        const time = this.entries.get(keyId)?.buffered.bufferTime ?? bufferTime(record);
        const buffered: Buffered<V> = { bufferTime: time, timestamp: record.timestamp, change: record.value };
        this.store.put(record.key, buffered);
        this.track(record.key, keyId, buffered, record.headers);
        this.enforceConstraints();
      }

      private keyId(key: K): string {
        return this.store.keySerde.serialize(key).toString('latin1');
      }

      private track(key: K, keyId: string, buffered: Buffered<V>, headers: Headers): void {
        const seq = ++this.seq;
        this.entries.set(keyId, { key, keyId, buffered, headers, seq });
        this.heap.push({ time: buffered.bufferTime, keyId, seq });
      }

      private enforceConstraints(): void {
        const expiryTime = this.observedStreamTime - waitMs;
        for (let next = this.oldest(); next !== undefined && next.buffered.bufferTime <= expiryTime; next = this.oldest()) {
          this.emit(next);
        }
        if (this.entries.size <= suppressed.buffer.maxRecords) return;
        if (suppressed.buffer.whenFull === 'shut-down') {
          throw new StreamsException(
            `the suppression buffer of ${storeName} exceeded its capacity of ${suppressed.buffer.maxRecords} records`,
          );
        }
        while (this.entries.size > suppressed.buffer.maxRecords) this.emit(this.oldest()!);
      }

      /** The live entry with the smallest buffer time; stale heap nodes are dropped on the way. */
      private oldest(): Entry<K, V> | undefined {
        for (let node = this.heap.peek(); node !== undefined; node = this.heap.peek()) {
          const entry = this.entries.get(node.keyId);
          if (entry !== undefined && entry.seq === node.seq) return entry;
          this.heap.pop();
        }
        return undefined;
      }

      private emit(entry: Entry<K, V>): void {
        this.heap.pop();
        this.entries.delete(entry.keyId);
        this.store.delete(entry.key);
        const change = entry.buffered.change;
        // A final result that is a deletion says nothing downstream needs (Kafka Streams' safeToDropTombstones).
        if (change.newValue === null && untilWindowCloses) return;
        this.context.forward({ key: entry.key, value: change, timestamp: entry.buffered.timestamp, headers: entry.headers });
      }
    })() as Processor;
}
