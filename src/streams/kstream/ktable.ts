import type { Serde } from '../serdes/serde';
import type { KeyValue } from '../state/store';
import { KGroupedTable } from './kgrouped-table';
import { KStream } from './kstream';
import type { Grouped, Materialized, Named } from './options';
import type { DslContext } from './internals/dsl-context';
import { keyValueStoreBuilder, processorName, storeName } from './internals/dsl-context';
import type { OldValues } from './internals/table-processors';
import {
  tableFilterProcessor,
  tableMapValuesProcessor,
  tableRepartitionMapProcessor,
  tableToStreamProcessor,
} from './internals/table-processors';

/** A changelog stream seen as a table: the latest value per key (Kafka Streams' `KTable`). */
export class KTable<K, V> {
  /** @internal */
  constructor(
    readonly ctx: DslContext,
    readonly nodeName: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    /** The store that holds this table, when it is materialized. */
    readonly queryableStoreName: string | undefined,
    private readonly oldValues: OldValues,
    /** Switches of the tables upstream, turned on together with this one. */
    private readonly upstreamOldValues: readonly OldValues[],
    readonly repartitionRequired: boolean,
  ) {}

  /** @internal Makes updates carry old values, here and upstream (needed by table groupings and joins). */
  enableSendingOldValues(): void {
    this.oldValues.send = true;
    for (const upstream of this.upstreamOldValues) upstream.send = true;
  }

  private derive<V2>(
    prefix: string,
    named: Named | undefined,
    materialized: Materialized<K, V2> | undefined,
    supplier: (store: string | undefined, oldValues: OldValues) => Parameters<DslContext['topology']['addProcessor']>[1],
    valueSerde: Serde<V2> | undefined,
  ): KTable<K, V2> {
    const name = processorName(this.ctx, named?.name, prefix);
    const store = materialized ? storeName(this.ctx, materialized as Materialized<unknown, unknown>, prefix) : undefined;
    const oldValues = { send: false };
    this.ctx.topology.addProcessor(name, supplier(store?.name, this.oldValues), this.nodeName);
    const keySerde = materialized?.keySerde ?? this.keySerde;
    const resultSerde = materialized?.valueSerde ?? valueSerde;
    if (store) {
      this.ctx.topology.addStateStore(
        keyValueStoreBuilder(store.name, materialized as Materialized<unknown, unknown>, keySerde, resultSerde),
        name,
      );
    }
    // A derived table's old values are computed from this table's, so both switches move together.
    return new KTable<K, V2>(this.ctx, name, keySerde, resultSerde, store?.name, oldValues, [
      this.oldValues,
      ...this.upstreamOldValues,
    ], this.repartitionRequired);
  }

  filter(predicate: (key: K, value: V) => boolean, named?: Named, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.derive<V>('KTABLE-FILTER-', named, materialized, (store, old) =>
      tableFilterProcessor(predicate, false, old, store), this.valueSerde);
  }

  filterNot(predicate: (key: K, value: V) => boolean, named?: Named, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.derive<V>('KTABLE-FILTER-', named, materialized, (store, old) =>
      tableFilterProcessor(predicate, true, old, store), this.valueSerde);
  }

  mapValues<V2>(mapper: (value: V, key: K) => V2, named?: Named, materialized?: Materialized<K, V2>): KTable<K, V2> {
    return this.derive<V2>('KTABLE-MAPVALUES-', named, materialized, (store, old) =>
      tableMapValuesProcessor(mapper, old, store), undefined);
  }

  /** The table's updates as a stream (deletes are records with a null value). */
  toStream(named?: Named): KStream<K, V> {
    const name = processorName(this.ctx, named?.name, 'KTABLE-TOSTREAM-');
    this.ctx.topology.addProcessor(name, tableToStreamProcessor(), this.nodeName);
    return new KStream<K, V>(this.ctx, name, this.keySerde, this.valueSerde, this.repartitionRequired);
  }

  /** Re-groups the table by a new key and value; the result aggregates with an adder and a subtractor. */
  groupBy<K2, V2>(selector: (key: K, value: V) => KeyValue<K2, V2>, grouped: Grouped<K2, V2> = {}): KGroupedTable<K2, V2> {
    const name = processorName(this.ctx, undefined, 'KTABLE-SELECT-');
    this.enableSendingOldValues();
    this.ctx.topology.addProcessor(name, tableRepartitionMapProcessor(selector), this.nodeName);
    return new KGroupedTable<K2, V2>(this.ctx, name, grouped.keySerde, grouped.valueSerde, grouped.name);
  }
}
