import type { KeyValue, KeyValueStore, ValueAndTimestamp, VersionedKeyValueStore } from '../../state/store';
import { PUT_RETURN_CODE_NOT_PUT, PUT_RETURN_CODE_VALID_TO_UNDEFINED } from '../../state/versioned-key-value-store';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import { type Change, isLatest } from './change';
import { dropRecord } from './drop';
import type { OldValues } from './old-values';
import { TableForwarder } from './table-forwarder';

/** The store of a source table, which holds the table only once materialized (by name, or for an operation that needs it). */
export interface SourceStore {
  readonly name: string;
  readonly materialized: boolean;
  /** The store is versioned (given by a versioned supplier), which a source table writes with its records' timestamps. */
  readonly versioned?: boolean;
}

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;
type TimestampedStore<K, V> = KeyValueStore<K, ValueAndTimestamp<V>>;

/** A processor that turns table updates into other records, with no store of its own. */
abstract class ForwardingProcessor<K, VIn> implements Processor<K, VIn, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
  }

  abstract process(record: StreamRecord<K, VIn>): void;
}

/** A processor whose result is a table, materialized in a store or not (Kafka Streams' KTable processors). */
abstract class TableProcessor<K, VIn> implements Processor<K, VIn, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;
  protected store: TimestampedStore<K, unknown> | undefined;
  private forwarder!: TableForwarder;

  constructor(
    private readonly storeName: string | undefined,
    private readonly oldValues: OldValues,
  ) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    if (this.storeName) this.store = context.getStateStore<TimestampedStore<K, unknown>>(this.storeName);
    this.forwarder = TableForwarder.timestamped(context, this.store, this.oldValues);
  }

  abstract process(record: StreamRecord<K, VIn>): void;

  /** Forwards a table update, now or (materialized behind a cache) when the store writes it. */
  protected forwardChange<V>(record: StreamRecord<K, unknown>, change: Change<V>): void {
    this.forwarder.maybeForward({ key: record.key, value: change, timestamp: record.timestamp, headers: record.headers });
  }

  /** Writes a materialized result; returns the previous value. */
  protected materialize(key: K, value: unknown, timestamp: number): unknown {
    if (!this.store) return null;
    const old = this.store.get(key);
    this.store.put(key, value === null || value === undefined ? null : { value, timestamp });
    return old ? old.value : null;
  }
}

/** An update that carries on the isLatest flag of the one it was computed from. */
function withLatest<V>(change: Change<V>, from: Change<unknown>): Change<V> {
  return isLatest(from) ? change : { ...change, isLatest: false };
}

/**
 * `builder.table()` and `toTable()`: every record upserts (or with null deletes) its key; not materialized, the
 * updates go downstream without old values. In a versioned store (Kafka Streams' `KTableSource` with a
 * `KeyValueStoreWrapper`), a record older than the history retention is neither stored nor forwarded, and one older
 * than its key's latest version goes downstream flagged as not the latest; the old value is the latest version.
 */
export function tableSourceProcessor<K, V>(store: SourceStore, oldValues: OldValues): Supplier {
  return () =>
    new (class extends TableProcessor<K, V> {
      private versioned: VersionedKeyValueStore<K, V> | undefined;

      override init(context: ProcessorContext<unknown, unknown>): void {
        if (!store.versioned) {
          super.init(context);
          return;
        }
        this.context = context;
        this.versioned = context.getStateStore<VersionedKeyValueStore<K, V>>(store.name);
      }

      process(record: StreamRecord<K, V>): void {
        if (record.key === null || record.key === undefined) {
          dropRecord(this.context, 'null key in a table update');
          return;
        }
        if (this.versioned !== undefined) {
          const old = this.versioned.get(record.key)?.value ?? null;
          const putResult = this.versioned.put(record.key, record.value ?? null, record.timestamp);
          if (putResult === PUT_RETURN_CODE_NOT_PUT) return;
          const change: Change<V> = { newValue: record.value ?? null, oldValue: oldValues.send ? old : null };
          this.context.forward({ ...record, value: putResult === PUT_RETURN_CODE_VALID_TO_UNDEFINED ? change : { ...change, isLatest: false } });
          return;
        }
        const old = this.materialize(record.key, record.value, record.timestamp) as V | null;
        this.forwardChange(record, { newValue: record.value ?? null, oldValue: oldValues.send ? old : null });
      }
    })(store.materialized ? store.name : undefined, oldValues) as Processor;
}

/** KTable `filter`/`filterNot`: updates that do not pass become deletions. */
export function tableFilterProcessor<K, V>(
  predicate: (key: K, value: V) => boolean,
  negate: boolean,
  oldValues: OldValues,
  storeName: string | undefined,
): Supplier {
  const apply = (key: K, value: V | null): V | null =>
    value !== null && predicate(key, value) !== negate ? value : null;
  return () =>
    new (class extends TableProcessor<K, Change<V>> {
      process(record: StreamRecord<K, Change<V>>): void {
        const newValue = apply(record.key, record.value.newValue);
        const oldValue = oldValues.send ? apply(record.key, record.value.oldValue) : null;
        if (oldValues.send && newValue === null && oldValue === null) return;
        this.materialize(record.key, newValue, record.timestamp);
        this.forwardChange(record, withLatest({ newValue, oldValue }, record.value));
      }
    })(storeName, oldValues) as Processor;
}

export function tableMapValuesProcessor<K, V, V2>(
  mapper: (value: V, key: K) => V2,
  oldValues: OldValues,
  storeName: string | undefined,
): Supplier {
  return () =>
    new (class extends TableProcessor<K, Change<V>> {
      process(record: StreamRecord<K, Change<V>>): void {
        const change = record.value;
        const newValue = change.newValue === null ? null : mapper(change.newValue, record.key);
        const oldValue = oldValues.send && change.oldValue !== null ? mapper(change.oldValue, record.key) : null;
        this.materialize(record.key, newValue, record.timestamp);
        this.forwardChange(record, withLatest({ newValue, oldValue }, change));
      }
    })(storeName, oldValues) as Processor;
}

export function tableToStreamProcessor<K, V>(): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, Change<V>> {
      process(record: StreamRecord<K, Change<V>>): void {
        this.context.forward({
          key: record.key,
          value: record.value.newValue,
          timestamp: record.timestamp,
          headers: record.headers,
        });
      }
    })() as Processor;
}

/**
 * KTable `groupBy`: re-keys each update. The old value is sent as a subtraction and the new one as an
 * addition (one record when both map to the same key), old first, as Kafka Streams does.
 */
export function tableRepartitionMapProcessor<K, V, K2, V2>(selector: (key: K, value: V) => KeyValue<K2, V2>): Supplier {
  const valid = (kv: KeyValue<K2, V2> | null): kv is KeyValue<K2, V2> =>
    kv !== null && kv.key !== null && kv.key !== undefined && kv.value !== null && kv.value !== undefined;
  return () =>
    new (class extends ForwardingProcessor<K, Change<V>> {
      process(record: StreamRecord<K, Change<V>>): void {
        const change = record.value;
        // An out-of-order update of a versioned table is not part of the table's current state that the aggregate follows.
        if (!isLatest(change)) return;
        const newPair = change.newValue === null ? null : selector(record.key, change.newValue);
        const oldPair = change.oldValue === null ? null : selector(record.key, change.oldValue);
        const send = (key: K2, value: Change<V2>): void =>
          this.context.forward({ key, value, timestamp: record.timestamp, headers: record.headers });
        if (valid(oldPair) && valid(newPair) && sameKey(oldPair.key, newPair.key)) {
          send(newPair.key, { newValue: newPair.value, oldValue: oldPair.value });
          return;
        }
        if (valid(oldPair)) send(oldPair.key, { newValue: null, oldValue: oldPair.value });
        if (valid(newPair)) send(newPair.key, { newValue: newPair.value, oldValue: null });
      }
    })() as Processor;
}

function sameKey(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}
