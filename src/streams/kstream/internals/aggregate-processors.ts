import type { KeyValueStore, ValueAndTimestamp } from '../../state/store';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import type { Change } from './change';
import { dropRecord, isNull } from './drop';
import { cacheKeyId, RecordCache } from './record-cache';
import { registerCacheReader } from './value-getters';
import type { OldValues } from './table-processors';

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;
type TimestampedStore<K, V> = KeyValueStore<K, ValueAndTimestamp<V>>;

interface CacheEntry<K, A> {
  key: K;
  newAgg: A | null;
  /** The aggregate in the store when the entry was first cached: the old value of the update sent at flush. */
  oldAgg: A | null;
  timestamp: number;
  headers: StreamRecord<K, unknown>['headers'];
}

/** Base of the aggregations: updates go through the record cache (see RecordCache) when it is on. */
abstract class AggregateProcessor<K, VIn, A> implements Processor<K, VIn, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;
  protected store!: TimestampedStore<K, A>;
  private cache: RecordCache<CacheEntry<K, A>> | undefined;

  constructor(
    private readonly storeName: string,
    protected readonly oldValues: OldValues,
  ) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.store = context.getStateStore<TimestampedStore<K, A>>(this.storeName);
    this.cache = RecordCache.create(context, (e) => this.write(e.key, e.newAgg, e.oldAgg, e.timestamp, e.headers));
    if (this.cache) registerCacheReader(this.store, (key: K) => this.cached(key));
  }

  abstract process(record: StreamRecord<K, VIn>): void;

  /** The current aggregate of a key: the cached one, else the stored one. */
  protected read(key: K): ValueAndTimestamp<A> | undefined {
    const cached = this.cached(key);
    return cached === undefined ? this.store.get(key) : (cached ?? undefined);
  }

  private cached(key: K): ValueAndTimestamp<A> | null | undefined {
    const entry = this.cache?.get(cacheKeyId(key, this.store.keySerde));
    if (entry === undefined) return undefined;
    return entry.newAgg === null ? null : { value: entry.newAgg, timestamp: entry.timestamp };
  }

  /** Stores the new aggregate (null deletes) and forwards the table update, now or at the next flush. */
  protected emit(record: StreamRecord<K, unknown>, newAgg: A | null, oldAgg: A | null, timestamp: number): void {
    if (!this.cache) {
      this.write(record.key, newAgg, oldAgg, timestamp, record.headers);
      return;
    }
    const keyId = cacheKeyId(record.key, this.store.keySerde);
    const first = this.cache.get(keyId)?.oldAgg;
    this.cache.put(keyId, '', { key: record.key, newAgg, oldAgg: first === undefined ? oldAgg : first, timestamp, headers: record.headers });
  }

  private write(key: K, newAgg: A | null, oldAgg: A | null, timestamp: number, headers: StreamRecord<K, unknown>['headers']): void {
    this.store.put(key, newAgg === null ? null : { value: newAgg, timestamp });
    const change: Change<A> = { newValue: newAgg, oldValue: this.oldValues.send ? oldAgg : null };
    this.context.forward({ key, value: change, timestamp, headers });
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
