import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import { deriveFromDefault } from '../../serdes/default-serde';
import { readInt64BE, writeInt64BE } from '../../serdes/int64';
import type { Serde } from '../../serdes/serde';
import { serdeError } from '../../serdes/serde-errors';
import type { KeyValueStore, StateStore, WindowStore } from '../../state/store';
import { Stores, type StoreBuilder } from '../../state/stores';
import type { JoinWindows } from '../windows';
import { dropRecord, isNull } from './drop';
import type { Joiner } from './join-processors';

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;

/**
 * Kafka Streams 3.x stream-stream joins (`KStreamKStreamJoin`): each side's records go into a window store of that
 * side; a record joins the other side's stored records within the join window. For left and outer joins a record
 * without a match is not emitted at once: it waits in a shared "outer" store until its join window has closed
 * (window + grace behind stream time), and is emitted joined with null only if no match came by then.
 */

/** `KStreamJoinWindow`: forwards the record, then keeps it in its side's window store. */
export function joinWindowProcessor<K, V>(storeName: string): Supplier {
  return () =>
    new (class implements Processor<K, V, unknown, unknown> {
      private context!: ProcessorContext<unknown, unknown>;
      private store!: WindowStore<K, V>;

      init(context: ProcessorContext<unknown, unknown>): void {
        this.context = context;
        this.store = context.getStateStore<WindowStore<K, V>>(storeName);
      }

      process(record: StreamRecord<K, V>): void {
        this.context.forward(record);
        if (!isNull(record.key)) this.store.put(record.key, record.value, record.timestamp);
      }
    })() as Processor;
}

/** A non-joined record waiting in the outer store; keys sort by time, then side (right first), then key bytes. */
interface OuterKey<K> {
  timestamp: number;
  leftSide: boolean;
  key: K;
}

type LeftOrRight<V1, V2> = { leftSide: true; value: V1 } | { leftSide: false; value: V2 };

/** `TimestampedKeyAndJoinSideSerde`: `[8-byte BE timestamp][1 for left, 0 for right][key bytes]`. */
function outerKeySerde<K>(inner: Serde<K>): Serde<OuterKey<K>> {
  const name = `timestamped-key-and-join-side(${inner.name})`;
  return {
    name,
    serialize(outer) {
      const header = Buffer.allocUnsafe(9);
      writeInt64BE(header, outer.timestamp, 0);
      header[8] = outer.leftSide ? 1 : 0;
      return Buffer.concat([header, inner.serialize(outer.key)]);
    },
    deserialize: (bytes) => ({ timestamp: readInt64BE(bytes, 0), leftSide: bytes[8] === 1, key: inner.deserialize(bytes.subarray(9)) }),
    fromJson() {
      throw serdeError(name, 'outer join keys are not read from JSON');
    },
    toJson: (outer) => ({ timestamp: outer.timestamp, left_side: outer.leftSide, key: inner.toJson(outer.key) }),
  };
}

/** The records of one outer key (a list, as Kafka Streams' `ListValueStore`): `([1-byte side][4-byte BE length][bytes])*`. */
function leftOrRightListSerde<V1, V2>(left: Serde<V1>, right: Serde<V2>): Serde<LeftOrRight<V1, V2>[]> {
  const name = `left-or-right-list(${left.name},${right.name})`;
  return {
    name,
    serialize(values) {
      const parts: Buffer[] = [];
      for (const item of values) {
        const bytes = item.leftSide ? left.serialize(item.value) : right.serialize(item.value);
        const header = Buffer.allocUnsafe(5);
        header[0] = item.leftSide ? 1 : 0;
        header.writeInt32BE(bytes.length, 1);
        parts.push(header, bytes);
      }
      return Buffer.concat(parts);
    },
    deserialize(bytes) {
      const values: LeftOrRight<V1, V2>[] = [];
      for (let offset = 0; offset < bytes.length; ) {
        const length = bytes.readInt32BE(offset + 1);
        const item = bytes.subarray(offset + 5, offset + 5 + length);
        values.push(bytes[offset] === 1 ? { leftSide: true, value: left.deserialize(item) } : { leftSide: false, value: right.deserialize(item) });
        offset += 5 + length;
      }
      return values;
    },
    fromJson() {
      throw serdeError(name, 'outer join records are not read from JSON');
    },
    toJson: (values) => values.map((item) => (item.leftSide ? { left: left.toJson(item.value) } : { right: right.toJson(item.value) })),
  };
}

/** The outer store of left and outer joins (Kafka Streams' `KSTREAM-OUTERSHARED-...-store`). */
export function outerJoinStoreBuilder(
  name: string,
  persistent: boolean,
  keySerde: Serde<unknown> | undefined,
  leftSerde: Serde<unknown> | undefined,
  rightSerde: Serde<unknown> | undefined,
): StoreBuilder<StateStore> {
  const supplier = persistent ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name);
  const keys = keySerde ? outerKeySerde(keySerde) : deriveFromDefault('timestamped-key-and-join-side(default)', (inner) => outerKeySerde(inner));
  const values =
    leftSerde && rightSerde
      ? leftOrRightListSerde(leftSerde, rightSerde)
      : deriveFromDefault('left-or-right-list(default)', (inner) => leftOrRightListSerde(leftSerde ?? inner, rightSerde ?? inner));
  return Stores.keyValueStoreBuilder(supplier, keys, values) as unknown as StoreBuilder<StateStore>;
}

/** Stream time as both sides of one join see it in one task, and the state of the throttled outer emission. */
interface TimeTracker {
  streamTime: number;
  minTime: number;
  nextTimeToEmit: number;
}

/** The time trackers of one join, one per task, shared by its two sides. */
export class SharedTimeTrackers {
  private readonly byTask = new Map<string, TimeTracker>();

  get(taskId: string): TimeTracker {
    let tracker = this.byTask.get(taskId);
    if (tracker === undefined) {
      tracker = { streamTime: -1, minTime: Number.MAX_SAFE_INTEGER, nextTimeToEmit: 0 };
      this.byTask.set(taskId, tracker);
    }
    return tracker;
  }

  remove(taskId: string): void {
    this.byTask.delete(taskId);
  }
}

/** Kafka Streams' internal config that throttles the emission of non-joined records (wall-clock ms). */
export const OUTER_JOIN_EMIT_INTERVAL_CONFIG = '__emit.interval.ms.kstreams.outer.join.spurious.results.fix__';

export interface StreamStreamJoinSide<K, VThis, VOther, VR> {
  /** The window store of the other side's records. */
  readonly otherStore: string;
  /** The outer store of left and outer joins; both sides use it, to forget matched records and emit closed ones. */
  readonly outerStore: string | undefined;
  /** Whether this side's records without a match are emitted (joined with null). */
  readonly outer: boolean;
  readonly isLeft: boolean;
  /** This side's record at `t` joins other records in `[t - before, t + after]`. */
  readonly before: number;
  readonly after: number;
  readonly windows: JoinWindows;
  /** Joins this side's value with the other side's (null when there is no match). */
  readonly joiner: Joiner<K, VThis, VOther, VR>;
  readonly trackers: SharedTimeTrackers;
}

/** One side of a stream-stream join. */
export function streamStreamJoinProcessor<K, VThis, VOther, VR>(side: StreamStreamJoinSide<K, VThis, VOther, VR>): Supplier {
  const outer = side.outer;
  return () =>
    new (class implements Processor<K, VThis, unknown, unknown> {
      private context!: ProcessorContext<unknown, unknown>;
      private otherWindows!: WindowStore<K, VOther>;
      private outerStore: KeyValueStore<OuterKey<K>, LeftOrRight<VThis, VOther>[]> | undefined;
      private tracker!: TimeTracker;
      private emitIntervalMs = 1000;

      init(context: ProcessorContext<unknown, unknown>): void {
        this.context = context;
        this.otherWindows = context.getStateStore<WindowStore<K, VOther>>(side.otherStore);
        this.tracker = side.trackers.get(context.taskId);
        if (side.outerStore !== undefined) {
          this.outerStore = context.getStateStore(side.outerStore);
          this.emitIntervalMs = Number(context.appConfig[OUTER_JOIN_EMIT_INTERVAL_CONFIG] ?? 1000);
        }
      }

      process(record: StreamRecord<K, VThis>): void {
        const timestamp = record.timestamp;
        this.tracker.streamTime = Math.max(this.tracker.streamTime, timestamp);
        if (outer && isNull(record.key) && !isNull(record.value)) {
          this.context.forward({ ...record, value: side.joiner(record.value, null, record.key) });
          return;
        }
        if (isNull(record.key) || isNull(record.value)) {
          dropRecord(this.context, 'null key or value in a stream-stream join');
          return;
        }
        if (timestamp === this.tracker.streamTime) this.emitNonJoined(record);
        const timeFrom = Math.max(0, timestamp - side.before);
        const timeTo = Math.max(0, timestamp + side.after);
        const matches = [...this.otherWindows.fetchRange(record.key, timeFrom, timeTo)];
        for (const match of matches) {
          this.forgetWaiting({ timestamp: match.key, leftSide: !side.isLeft, key: record.key });
          this.context.forward({ ...record, value: side.joiner(record.value, match.value, record.key), timestamp: Math.max(timestamp, match.key) });
        }
        if (!outer || matches.length > 0) return;
        // A record whose window has passed already cannot be matched any more: it goes out now.
        if (this.outerStore === undefined || timeTo < this.tracker.streamTime) {
          this.context.forward({ ...record, value: side.joiner(record.value, null, record.key) });
          return;
        }
        this.tracker.minTime = Math.min(this.tracker.minTime, timestamp);
        const outerKey: OuterKey<K> = { timestamp, leftSide: side.isLeft, key: record.key };
        const waiting = this.outerStore.get(outerKey) ?? [];
        this.outerStore.put(outerKey, [...waiting, { leftSide: side.isLeft, value: record.value } as LeftOrRight<VThis, VOther>]);
      }

      /** A matched record is joined now: it must not come out as non-joined later. */
      private forgetWaiting(outerKey: OuterKey<K>): void {
        if (this.outerStore?.get(outerKey) !== undefined) this.outerStore.delete(outerKey);
      }

      /** Emits the waiting records whose join window has closed, oldest first, at most once per emit interval. */
      private emitNonJoined(record: StreamRecord<K, VThis>): void {
        const store = this.outerStore;
        const tracker = this.tracker;
        if (store === undefined || tracker.minTime + side.after + side.windows.graceMs >= tracker.streamTime) return;
        const now = this.context.currentSystemTimeMs();
        if (now < tracker.nextTimeToEmit) return;
        tracker.nextTimeToEmit = now + this.emitIntervalMs;
        tracker.minTime = Number.MAX_SAFE_INTEGER;
        const emitted: OuterKey<K>[] = [];
        let leftOpen = false;
        let rightOpen = false;
        for (const { key: outerKey, value: waiting } of store.all()) {
          tracker.minTime = outerKey.timestamp;
          if (leftOpen && rightOpen) break;
          // Left records wait for right ones up to `after` later; right records for left ones up to `before` later.
          const lookBack = outerKey.leftSide ? side.windows.afterMs : side.windows.beforeMs;
          if (tracker.minTime + lookBack + side.windows.graceMs >= tracker.streamTime) {
            if (outerKey.leftSide) leftOpen = true;
            else rightOpen = true;
            continue;
          }
          for (const item of waiting) {
            const thisValue = item.leftSide === side.isLeft ? (item.value as VThis) : null;
            const otherValue = item.leftSide === side.isLeft ? null : (item.value as VOther);
            this.context.forward({
              key: outerKey.key,
              value: side.joiner(thisValue, otherValue, outerKey.key),
              timestamp: outerKey.timestamp,
              headers: record.headers,
            });
          }
          emitted.push(outerKey);
        }
        for (const outerKey of emitted) store.delete(outerKey);
      }

      close(): void {
        side.trackers.remove(this.context.taskId);
      }
    })() as Processor;
}
