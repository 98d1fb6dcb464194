import type { KeyValueStore, ValueAndTimestamp } from '../../state/store';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import type { Change } from './change';
import { dropRecord, isNull } from './drop';
import { TableForwarder } from './table-forwarder';
import type { OldValues } from './old-values';

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;
type TimestampedStore<K, V> = KeyValueStore<K, ValueAndTimestamp<V>>;

/** Base of the aggregations: the store (behind its caching layer when caching is on) holds each key's aggregate. */
abstract class AggregateProcessor<K, VIn, A> implements Processor<K, VIn, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;
  private store!: TimestampedStore<K, A>;
  private forwarder!: TableForwarder;

  constructor(
    private readonly storeName: string,
    protected readonly oldValues: OldValues,
  ) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.store = context.getStateStore<TimestampedStore<K, A>>(this.storeName);
    this.forwarder = TableForwarder.timestamped(context, this.store, this.oldValues);
  }

  abstract process(record: StreamRecord<K, VIn>): void;

  protected read(key: K): ValueAndTimestamp<A> | undefined {
    return this.store.get(key);
  }

  /** Stores the new aggregate (null deletes) and forwards the table update, now or when the cache writes it. */
  protected emit(record: StreamRecord<K, unknown>, newAgg: A | null, oldAgg: A | null, timestamp: number): void {
    this.store.put(record.key, newAgg === null ? null : { value: newAgg, timestamp });
    const change: Change<A> = { newValue: newAgg, oldValue: this.oldValues.send ? oldAgg : null };
    this.forwarder.maybeForward({ key: record.key, value: change, timestamp, headers: record.headers });
  }
}

/** KGroupedStream `aggregate` (and `count`): records with a null key or value are dropped, as in Kafka Streams. */
export function streamAggregateProcessor<K, V, A>(
  storeName: string,
  initializer: () => A,
  aggregator: (key: K, value: V, aggregate: A) => A,
  oldValues: OldValues,
): Supplier {
  return () =>
    new (class extends AggregateProcessor<K, V, A> {
      process(record: StreamRecord<K, V>): void {
        if (isNull(record.key) || isNull(record.value)) {
          dropRecord(this.context, 'null key or value in an aggregation');
          return;
        }
        const old = this.read(record.key);
        const newAgg = aggregator(record.key, record.value, old ? old.value : initializer());
        const timestamp = old ? Math.max(record.timestamp, old.timestamp) : record.timestamp;
        this.emit(record, newAgg, old ? old.value : null, timestamp);
      }
    })(storeName, oldValues) as Processor;
}

export function streamReduceProcessor<K, V>(storeName: string, reducer: (aggregate: V, value: V) => V, oldValues: OldValues): Supplier {
  return () =>
    new (class extends AggregateProcessor<K, V, V> {
      process(record: StreamRecord<K, V>): void {
        if (isNull(record.key) || isNull(record.value)) {
          dropRecord(this.context, 'null key or value in a reduction');
          return;
        }
        const old = this.read(record.key);
        const newAgg = old ? reducer(old.value, record.value) : record.value;
        const timestamp = old ? Math.max(record.timestamp, old.timestamp) : record.timestamp;
        this.emit(record, newAgg, old ? old.value : null, timestamp);
      }
    })(storeName, oldValues) as Processor;
}

/** KGroupedTable `aggregate` (and `count`): subtract the old value, then add the new one. */
export function tableAggregateProcessor<K, V, A>(
  storeName: string,
  initializer: () => A,
  adder: (key: K, value: V, aggregate: A) => A,
  subtractor: (key: K, value: V, aggregate: A) => A,
  oldValues: OldValues,
): Supplier {
  return () =>
    new (class extends AggregateProcessor<K, Change<V>, A> {
      process(record: StreamRecord<K, Change<V>>): void {
        if (isNull(record.key)) {
          dropRecord(this.context, 'null key in a table aggregation');
          return;
        }
        const old = this.read(record.key);
        const oldAgg = old ? old.value : null;
        let timestamp = record.timestamp;
        let agg: A | null = oldAgg;
        if (record.value.oldValue !== null && oldAgg !== null) {
          agg = subtractor(record.key, record.value.oldValue, oldAgg);
          timestamp = Math.max(record.timestamp, old!.timestamp);
        }
        if (record.value.newValue !== null) {
          agg = adder(record.key, record.value.newValue, agg === null ? initializer() : agg);
          if (old) timestamp = Math.max(record.timestamp, old.timestamp);
        }
        this.emit(record, agg, oldAgg, timestamp);
      }
    })(storeName, oldValues) as Processor;
}

export function tableReduceProcessor<K, V>(
  storeName: string,
  adder: (aggregate: V, value: V) => V,
  subtractor: (aggregate: V, value: V) => V,
  oldValues: OldValues,
): Supplier {
  return () =>
    new (class extends AggregateProcessor<K, Change<V>, V> {
      process(record: StreamRecord<K, Change<V>>): void {
        if (isNull(record.key)) {
          dropRecord(this.context, 'null key in a table reduction');
          return;
        }
        const old = this.read(record.key);
        const oldAgg = old ? old.value : null;
        let timestamp = record.timestamp;
        let agg: V | null = oldAgg;
        if (record.value.oldValue !== null && oldAgg !== null) {
          agg = subtractor(oldAgg, record.value.oldValue);
          timestamp = Math.max(record.timestamp, old!.timestamp);
        }
        if (record.value.newValue !== null) {
          agg = agg === null ? record.value.newValue : adder(agg, record.value.newValue);
          if (old) timestamp = Math.max(record.timestamp, old.timestamp);
        }
        this.emit(record, agg, oldAgg, timestamp);
      }
    })(storeName, oldValues) as Processor;
}
