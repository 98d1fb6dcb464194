import type { Serde } from '../serdes/serde';
import type { KeyValue, ValueAndTimestamp } from '../state/store';
import { KGroupedTable } from './kgrouped-table';
import { KStream } from './kstream';
import type { ForeignKeyJoined, Grouped, Materialized, Named } from './options';
import type { DslContext } from './internals/dsl-context';
import type { TableInternals, TableNode } from './internals/dsl-nodes';
import { keyValueStoreBuilder, processorName } from './internals/dsl-context';
import type { OldValues } from './internals/old-values';
import {
  tableFilterProcessor,
  tableMapValuesProcessor,
  tableRepartitionMapProcessor,
  tableToStreamProcessor,
} from './internals/table-processors';
import type { Joiner } from './internals/join-processors';
import { foreignKeyJoin, tableTableJoin } from './internals/join-builders';
import { suppressionBufferBuilder, suppressProcessor } from './internals/suppress-processor';
import { keyValueStoreGetter, mappedGetter, type ValueGetterSupplier } from './internals/value-getters';
import type { Suppressed } from './suppressed';

/** A changelog stream seen as a table: the latest value per key (Kafka Streams' `KTable`). */
export class KTable<K, V> {
  readonly ctx: DslContext;
  readonly nodeName: string;
  readonly keySerde: Serde<K> | undefined;
  readonly valueSerde: Serde<V> | undefined;
  /** The store that holds this table, when it is materialized. */
  readonly queryableStoreName: string | undefined;
  private readonly oldValues: OldValues;
  /** Switches of the tables upstream, turned on together with this one. */
  private readonly upstreamOldValues: readonly OldValues[];
  private readonly internals: TableInternals<K, V>;

  /** @internal */
  constructor(node: TableNode<K, V>) {
    this.ctx = node.ctx;
    this.nodeName = node.nodeName;
    this.keySerde = node.keySerde;
    this.valueSerde = node.valueSerde;
    this.queryableStoreName = node.queryableStoreName;
    this.oldValues = node.oldValues;
    this.upstreamOldValues = node.upstreamOldValues;
    this.internals = node.internals ?? {};
  }

  /** @internal Makes updates carry old values, here and upstream (needed by table groupings, joins and suppress). */
  enableSendingOldValues(): void {
    for (const switched of this.oldValuesSwitches()) {
      switched.send = true;
      switched.materialize?.();
    }
  }

  /** @internal This table's old-values switch and those upstream of it. */
  oldValuesSwitches(): OldValues[] {
    return [this.oldValues, ...this.upstreamOldValues];
  }

  /** @internal How joins read this table: its store, or its parent's values through this table's operation. */
  valueGetterSupplier(): ValueGetterSupplier<K, V> | undefined {
    if (this.internals.valueGetter) return this.internals.valueGetter();
    return this.queryableStoreName === undefined ? undefined : keyValueStoreGetter(this.queryableStoreName);
  }

  private derive<V2>(
    prefix: string,
    named: Named | undefined,
    materialized: Materialized<K, V2> | undefined,
    supplier: (store: string | undefined, oldValues: OldValues) => Parameters<DslContext['topology']['addProcessor']>[1],
    valueSerde: Serde<V2> | undefined,
    view: (key: K, current: ValueAndTimestamp<V>) => ValueAndTimestamp<V2> | undefined,
  ): KTable<K, V2> {
    // Kafka Streams draws a store name before the processor's for any Materialized, but materializes only a named store.
    if (materialized && !materialized.storeName) this.ctx.names.store(prefix);
    const name = processorName(this.ctx, named?.name, prefix);
    const store = materialized?.storeName ? materialized.storeName : undefined;
    const oldValues = { send: false };
    this.ctx.topology.addProcessor(name, supplier(store, this.oldValues), this.nodeName);
    const keySerde = materialized?.keySerde ?? this.keySerde;
    const resultSerde = materialized?.valueSerde ?? valueSerde;
    if (store) {
      this.ctx.topology.addStateStore(keyValueStoreBuilder(store, materialized as Materialized<unknown, unknown>, keySerde, resultSerde), name);
    }
    // Not materialized, the derived table's values are computed from this table's when a join reads them.
    const valueGetter = (): ValueGetterSupplier<K, V2> | undefined => {
      const parentGetter = this.valueGetterSupplier();
      return parentGetter && mappedGetter(parentGetter, view);
    };
    // A derived table's old values are computed from this table's, so both switches move together.
    return new KTable<K, V2>({
      ctx: this.ctx,
      nodeName: name,
      keySerde,
      valueSerde: resultSerde,
      queryableStoreName: store,
      oldValues,
      upstreamOldValues: this.oldValuesSwitches(),
      internals: {
        ...(store ? {} : { valueGetter }),
        ...(this.internals.windowGraceMs === undefined ? {} : { windowGraceMs: this.internals.windowGraceMs }),
      },
    });
  }

  filter(predicate: (key: K, value: V) => boolean, named?: Named, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.derive<V>('KTABLE-FILTER-', named, materialized, (store, old) =>
      tableFilterProcessor(predicate, false, old, store), this.valueSerde, (key, current) =>
      predicate(key, current.value) ? current : undefined);
  }

  filterNot(predicate: (key: K, value: V) => boolean, named?: Named, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.derive<V>('KTABLE-FILTER-', named, materialized, (store, old) =>
      tableFilterProcessor(predicate, true, old, store), this.valueSerde, (key, current) =>
      predicate(key, current.value) ? undefined : current);
  }

  mapValues<V2>(mapper: (value: V, key: K) => V2, named?: Named, materialized?: Materialized<K, V2>): KTable<K, V2> {
    return this.derive<V2>('KTABLE-MAPVALUES-', named, materialized, (store, old) =>
      tableMapValuesProcessor(mapper, old, store), undefined, (key, current) =>
      ({ value: mapper(current.value, key), timestamp: current.timestamp }));
  }

  /**
   * Foreign-key inner join (KIP-213): each value of this table joins the other table's value of the key that
   * `foreignKeyExtractor` extracts from it; a result while both exist. A null foreign key gives no result.
   */
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V, key: K) => KO | null | undefined,
    joiner: (value: V, otherValue: VO) => VR,
    options?: ForeignKeyJoined<K, VR>,
  ): KTable<K, VR>;
  /** Inner join with another table of the same key: a result while both have a value (Kafka Streams' semantics). */
  join<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO, key: K) => VR, named?: Named, materialized?: Materialized<K, VR>): KTable<K, VR>;
  join<KO, VO, VR>(
    other: KTable<K, VO> | KTable<KO, VO>,
    joinerOrExtractor: (...args: never[]) => unknown,
    third?: Named | ((...args: never[]) => VR),
    fourth?: Materialized<K, VR> | ForeignKeyJoined<K, VR>,
  ): KTable<K, VR> {
    return this.keyOrForeignKeyJoin<KO, VO, VR>('inner', other, joinerOrExtractor, third, fourth);
  }

  /**
   * Foreign-key left join (KIP-213): a result while this table has a value, joined with null while its foreign key
   * is null or has no value in the other table.
   */
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V, key: K) => KO | null | undefined,
    joiner: (value: V, otherValue: VO | null) => VR,
    options?: ForeignKeyJoined<K, VR>,
  ): KTable<K, VR>;
  /** Left join: a result while this table has a value, joined with null while the other has none. */
  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V, otherValue: VO | null, key: K) => VR,
    named?: Named,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  leftJoin<KO, VO, VR>(
    other: KTable<K, VO> | KTable<KO, VO>,
    joinerOrExtractor: (...args: never[]) => unknown,
    third?: Named | ((...args: never[]) => VR),
    fourth?: Materialized<K, VR> | ForeignKeyJoined<K, VR>,
  ): KTable<K, VR> {
    return this.keyOrForeignKeyJoin<KO, VO, VR>('left', other, joinerOrExtractor, third, fourth);
  }

  /** The join of the same key, or (with a foreign-key extractor before the joiner) the foreign-key join. */
  private keyOrForeignKeyJoin<KO, VO, VR>(
    kind: 'inner' | 'left',
    other: KTable<K, VO> | KTable<KO, VO>,
    joinerOrExtractor: (...args: never[]) => unknown,
    third: Named | ((...args: never[]) => VR) | undefined,
    fourth: Materialized<K, VR> | ForeignKeyJoined<K, VR> | undefined,
  ): KTable<K, VR> {
    if (typeof third === 'function') {
      const extractor = joinerOrExtractor as unknown as (value: V, key: K) => KO;
      const joiner = third as (value: V | null, otherValue: VO | null) => VR;
      return new KTable(foreignKeyJoin(this, other as KTable<KO, VO>, extractor, joiner, kind === 'left', (fourth ?? {}) as ForeignKeyJoined<K, VR>));
    }
    const joiner = joinerOrExtractor as unknown as Joiner<K, V, VO, VR>;
    return new KTable(tableTableJoin(this, other as KTable<K, VO>, joiner, kind, third, fourth as Materialized<K, VR> | undefined));
  }

  /** Outer join: a result while either table has a value. */
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V | null, otherValue: VO | null, key: K) => VR,
    named?: Named,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR> {
    return new KTable(tableTableJoin(this, other, joiner, 'outer', named, materialized));
  }

  /**
   * Holds updates back (Kafka Streams' `suppress`): until their window closes (emit-final, on windowed tables) or
   * for a time limit. Driven by stream time, as seen in the updates that reach it.
   */
  suppress(suppressed: Suppressed): KTable<K, V> {
    // A suppression's own name takes no index (Kafka Streams' KTableImpl.suppress).
    const name = suppressed.name ?? this.ctx.names.processor('KTABLE-SUPPRESS-');
    const store = suppressed.name ? `${suppressed.name}-store` : this.ctx.names.store('KTABLE-SUPPRESS-');
    // As in Kafka Streams, the buffer sees old values, so a source table upstream is materialized.
    this.enableSendingOldValues();
    this.ctx.topology.addProcessor(name, suppressProcessor<K, V>(suppressed, store, this.internals.windowGraceMs), this.nodeName);
    this.ctx.topology.addStateStore(
      suppressionBufferBuilder(store, this.keySerde as Serde<unknown> | undefined, this.valueSerde as Serde<unknown> | undefined),
      name,
    );
    return new KTable<K, V>({
      ctx: this.ctx,
      nodeName: name,
      keySerde: this.keySerde,
      valueSerde: this.valueSerde,
      queryableStoreName: undefined,
      oldValues: { send: false },
      upstreamOldValues: this.oldValuesSwitches(),
    });
  }

  /** The table's updates as a stream (deletes are records with a null value). */
  toStream(named?: Named): KStream<K, V> {
    const name = processorName(this.ctx, named?.name, 'KTABLE-TOSTREAM-');
    this.ctx.topology.addProcessor(name, tableToStreamProcessor(), this.nodeName);
    return new KStream<K, V>(this.ctx, name, this.keySerde, this.valueSerde, false);
  }

  /** Re-groups the table by a new key and value; the result aggregates with an adder and a subtractor. */
  groupBy<K2, V2>(selector: (key: K, value: V) => KeyValue<K2, V2>, grouped: Grouped<K2, V2> = {}): KGroupedTable<K2, V2> {
    // Kafka Streams names the selection after the grouping.
    const name = processorName(this.ctx, grouped.name, 'KTABLE-SELECT-');
    this.enableSendingOldValues();
    this.ctx.topology.addProcessor(name, tableRepartitionMapProcessor(selector), this.nodeName);
    return new KGroupedTable<K2, V2>(this.ctx, name, grouped.keySerde, grouped.valueSerde, grouped.name);
  }
}
