import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import type { ValueAndTimestamp } from '../../state/store';
import { type Change, isLatest } from './change';
import { dropRecord, isNull } from './drop';
import type { OldValues } from './table-processors';
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

/**
 * KStream-KTable and KStream-GlobalKTable joins (Kafka Streams' `KStreamKTableJoinProcessor`): each stream record is
 * joined with the table's current value of its key, or (global tables) of the key `keyMapper` computes from it; only
 * stream records trigger output. Records with a null value or join key are dropped, except that a left join passes
 * a null-key record through, joined with null unless its join key finds a value.
 */
export function streamTableJoinProcessor<K, V, KT, VT, VR>(
  table: ValueGetterSupplier<KT, VT>,
  joiner: Joiner<K, V, VT, VR>,
  leftJoin: boolean,
  keyMapper: (key: K, value: V) => KT = (key) => key as unknown as KT,
): Supplier {
  return () =>
    new (class extends GetterProcessor<K, V, VT, KT> {
      process(record: StreamRecord<K, V>): void {
        const joinKey = keyMapper(record.key, record.value);
        const passNullKey = leftJoin && isNull(record.key) && !isNull(record.value);
        if (!passNullKey && (isNull(joinKey) || isNull(record.value))) {
          dropRecord(this.context, 'null join key or value in a stream-table join');
          return;
        }
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
