import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { Headers, StreamRecord } from '../../processor/record';
import type { KeyValueStore, ValueAndTimestamp } from '../../state/store';
import { type Change, isLatest } from './change';
import { dropRecord, isNull } from './drop';
import type { OldValues } from './old-values';
import type { JoinBufferKey } from './stream-table-join-buffer';
import type { ValueGetter, ValueGetterSupplier } from './value-getters';

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;

/** A joiner as the processors call it: a missing side is null (only for the joins that allow it). */
export type Joiner<K, V1, V2, VR> = (value: V1 | null, otherValue: V2 | null, key: K) => VR;

/** The same joiner seen from the other side of the join. */
export function reverseJoiner<K, V1, V2, VR>(joiner: Joiner<K, V1, V2, VR>): Joiner<K, V2, V1, VR> {
  return (value, otherValue, key) => joiner(otherValue, value, key);
}

/** A processor that reads another table through its value getter (keyed by `KG`: the records' keys unless mapped). */
abstract class GetterProcessor<K, VIn, V2, KG = K> implements Processor<K, VIn, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;
  protected getter!: ValueGetter<KG, V2>;

  constructor(private readonly other: ValueGetterSupplier<KG, V2>) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.getter = this.other.get(context);
  }

  abstract process(record: StreamRecord<K, VIn>): void;
}

/** A stream-table join's grace period (KIP-923): the store that buffers stream records, and for how long. */
export interface JoinGrace {
  storeName: string;
  graceMs: number;
}

/**
 * KStream-KTable and KStream-GlobalKTable joins (Kafka Streams' `KStreamKTableJoinProcessor`): each stream record is
 * joined with the table's current value of its key, or (global tables) of the key `keyMapper` computes from it; only
 * stream records trigger output. Records with a null value or join key are dropped, except that a left join passes
 * a null-key record through, joined with null unless its join key finds a value. A versioned table is read as of
 * the stream record's time. With a grace period, each record waits in the buffer store until the buffer's stream time
 * (the largest timestamp it was given) is `graceMs` past it, so that out-of-order table updates up to then count;
 * waiting records are joined in timestamp order, and a record already older than that is joined at once.
 */
export function streamTableJoinProcessor<K, V, KT, VT, VR>(
  table: ValueGetterSupplier<KT, VT>,
  joiner: Joiner<K, V, VT, VR>,
  leftJoin: boolean,
  keyMapper: (key: K, value: V) => KT = (key) => key as unknown as KT,
  grace?: JoinGrace,
): Supplier {
  return () =>
    new (class extends GetterProcessor<K, V, VT, KT> {
      private buffer: KeyValueStore<JoinBufferKey<K>, V> | undefined;
      private readonly bufferedHeaders = new Map<string, Headers>();
      private bufferTime = -1;
      private seq = 0;

      override init(context: ProcessorContext<unknown, unknown>): void {
        super.init(context);
        if (grace === undefined) return;
        this.buffer = context.getStateStore<KeyValueStore<JoinBufferKey<K>, V>>(grace.storeName);
        // After a restart the buffer's stream time is that of the records still waiting in it.
        for (const { key } of this.buffer.all()) this.bufferTime = Math.max(this.bufferTime, key.time);
      }

      process(record: StreamRecord<K, V>): void {
        const joinKey = keyMapper(record.key, record.value);
        const passNullKey = leftJoin && isNull(record.key) && !isNull(record.value);
        if (!passNullKey && (isNull(joinKey) || isNull(record.value))) {
          dropRecord(this.context, 'null join key or value in a stream-table join');
          return;
        }
        // A null-key record cannot be buffered (Kafka Streams fails on it): it is joined at once.
        if (this.buffer === undefined || isNull(record.key) || record.timestamp < this.bufferTime - grace!.graceMs) {
          this.join(record, joinKey);
          return;
        }
        this.bufferTime = Math.max(this.bufferTime, record.timestamp);
        this.seq = (this.seq + 1) >>> 0;
        const bufferKey: JoinBufferKey<K> = { time: record.timestamp, key: record.key, seq: this.seq };
        this.buffer.put(bufferKey, record.value);
        this.bufferedHeaders.set(this.buffer.keySerde.serialize(bufferKey).toString('latin1'), record.headers);
        this.evict(this.buffer, this.bufferTime - grace!.graceMs);
      }

      private evict(buffer: KeyValueStore<JoinBufferKey<K>, V>, upTo: number): void {
        if (upTo < 0) return;
        // Read first, then deleted and joined: a join may not write into the store an iterator is reading.
        const due = [...buffer.range({ time: 0 }, { time: upTo + 1 })];
        for (const { key, value } of due) {
          buffer.delete(key);
          const id = buffer.keySerde.serialize(key).toString('latin1');
          const headers = this.bufferedHeaders.get(id) ?? {};
          this.bufferedHeaders.delete(id);
          const recordKey = key.key as K;
          this.join({ key: recordKey, value, timestamp: key.time, headers }, keyMapper(recordKey, value));
        }
      }

      private join(record: StreamRecord<K, V>, joinKey: KT): void {
        // A versioned table answers as of the stream record's time (Kafka Streams 3.5+).
        const asOf = table.versioned ? record.timestamp : undefined;
        const tableValue = isNull(joinKey) ? null : (this.getter(joinKey, asOf)?.value ?? null);
        if (tableValue === null && !leftJoin) return;
        this.context.forward({ ...record, value: joiner(record.value, tableValue, record.key) });
      }
    })(table) as Processor;
}

/** From one side's point of view: `right` is the other side of a left join (it needs a value on this side). */
export type TableJoinKind = 'inner' | 'left' | 'right' | 'outer';

interface JoinedUpdate<VR> {
  change: Change<VR>;
  timestamp: number;
}

/**
 * The result of one table's update joined with the other table's current value (Kafka Streams'
 * `KTableKTable{Inner,Left,Right,Outer}Join` processors), or undefined when nothing is sent.
 */
function joinUpdate<K, V1, V2, VR>(
  kind: TableJoinKind,
  key: K,
  update: Change<V1>,
  timestamp: number,
  other: ValueAndTimestamp<V2> | undefined,
  joiner: Joiner<K, V1, V2, VR>,
  sendOldValues: boolean,
): JoinedUpdate<VR> | undefined {
  const otherValue = other?.value ?? null;
  const resultTimestamp = other === undefined ? timestamp : Math.max(timestamp, other.timestamp);
  const join = (value: V1 | null, present: boolean): VR | null => (present ? joiner(value, otherValue, key) : null);
  const hasNew = update.newValue !== null;
  const hasOld = update.oldValue !== null;
  if (kind === 'inner' || kind === 'right') {
    if (otherValue === null) return undefined;
    // The other side of a left join exists as long as this side does: it joins even a null update.
    const always = kind === 'right';
    return {
      change: { newValue: join(update.newValue, always || hasNew), oldValue: join(update.oldValue, sendOldValues && (always || hasOld)) },
      timestamp: resultTimestamp,
    };
  }
  if (otherValue === null && !hasNew && !hasOld) return undefined;
  const otherPresent = kind === 'outer' && otherValue !== null;
  return {
    change: {
      newValue: join(update.newValue, hasNew || otherPresent),
      oldValue: join(update.oldValue, sendOldValues && (hasOld || otherPresent)),
    },
    timestamp: resultTimestamp,
  };
}

/** One side of a KTable-KTable join: this table's updates joined with the other table's current values. */
export function tableTableJoinProcessor<K, V1, V2, VR>(
  kind: TableJoinKind,
  other: ValueGetterSupplier<K, V2>,
  joiner: Joiner<K, V1, V2, VR>,
  oldValues: OldValues,
): Supplier {
  return () =>
    new (class extends GetterProcessor<K, Change<V1>, V2> {
      process(record: StreamRecord<K, Change<V1>>): void {
        if (isNull(record.key)) {
          dropRecord(this.context, 'null key in a table-table join');
          return;
        }
        // An out-of-order update of a versioned table changes its history, not the join's current result.
        if (!isLatest(record.value)) return;
        const joined = joinUpdate(kind, record.key, record.value, record.timestamp, this.getter(record.key), joiner, oldValues.send);
        if (joined) this.context.forward({ key: record.key, value: joined.change, timestamp: joined.timestamp, headers: record.headers });
      }
    })(other) as Processor;
}

/** The values of a KTable-KTable join's result computed from both tables, when the result is not materialized. */
export function tableTableJoinGetter<K, V1, V2, VR>(
  kind: Exclude<TableJoinKind, 'right'>,
  left: ValueGetterSupplier<K, V1>,
  right: ValueGetterSupplier<K, V2>,
  joiner: Joiner<K, V1, V2, VR>,
): ValueGetterSupplier<K, VR> {
  return {
    storeNames: [...new Set([...left.storeNames, ...right.storeNames])],
    get(context) {
      const getLeft = left.get(context);
      const getRight = right.get(context);
      return (key) => {
        const l = getLeft(key);
        if (l === undefined && kind !== 'outer') return undefined;
        const r = getRight(key);
        if ((r === undefined && kind === 'inner') || (l === undefined && r === undefined)) return undefined;
        return { value: joiner(l?.value ?? null, r?.value ?? null, key), timestamp: Math.max(l?.timestamp ?? -1, r?.timestamp ?? -1) };
      };
    },
  };
}
