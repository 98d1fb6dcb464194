import type { ProcessorSupplier } from '../processor/processor';
import type { Serde } from '../serdes/serde';
import { Serdes } from '../serdes/serdes';
import { deriveFromDefault } from '../serdes/default-serde';
import { KTable } from './ktable';
import type { Materialized, Named } from './options';
import { processorName, type DslContext, type ResolvedName } from './internals/dsl-context';
import { addAggregation } from './internals/aggregation-node';
import { tableAggregateProcessor, tableReduceProcessor } from './internals/aggregate-processors';
import { changeSerde } from './internals/change';
import type { OldValues } from './internals/old-values';

/** A table re-grouped by a new key (Kafka Streams' `KGroupedTable`); it always repartitions. */
export class KGroupedTable<K, V> {
  /** @internal */
  constructor(
    private readonly ctx: DslContext,
    private readonly selectNode: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly groupName: string | undefined,
  ) {}

  count(materialized?: Materialized<K, number>, named?: Named): KTable<K, number> {
    const valueSerde = materialized?.valueSerde ?? (Serdes.Long() as Serde<number>);
    return this.build<number>('KTABLE-AGGREGATE-', { ...materialized, valueSerde }, named, (store, old) =>
      tableAggregateProcessor<K, V, number>(store, () => 0, (_k, _v, agg) => agg + 1, (_k, _v, agg) => agg - 1, old),
    );
  }

  reduce(
    adder: (aggregate: V, value: V) => V,
    subtractor: (aggregate: V, value: V) => V,
    materialized?: Materialized<K, V>,
    named?: Named,
  ): KTable<K, V> {
    const valueSerde = materialized?.valueSerde ?? this.valueSerde;
    return this.build<V>('KTABLE-REDUCE-', { ...materialized, ...(valueSerde ? { valueSerde } : {}) }, named, (store, old) =>
      tableReduceProcessor<K, V>(store, adder, subtractor, old),
    );
  }

  aggregate<A>(
    initializer: () => A,
    adder: (key: K, value: V, aggregate: A) => A,
    subtractor: (key: K, value: V, aggregate: A) => A,
    materialized?: Materialized<K, A>,
    named?: Named,
  ): KTable<K, A> {
    return this.build<A>('KTABLE-AGGREGATE-', materialized ?? {}, named, (store, old) =>
      tableAggregateProcessor<K, V, A>(store, initializer, adder, subtractor, old),
    );
  }

  /**
   * Kafka Streams' KGroupedTable aggregation: the selected records go through `<grouping or store>-repartition`
   * (no null-key filter: the selection drops null keys), its sink and source named after the aggregation's Named
   * or generated before the aggregating processor.
   */
  private build<A>(
    prefix: string,
    materialized: Materialized<K, A>,
    named: Named | undefined,
    supplier: (store: string, oldValues: OldValues) => ProcessorSupplier<unknown, unknown, unknown, unknown>,
  ): KTable<K, A> {
    const parentFor = (store: ResolvedName): string => {
      const sink = processorName(this.ctx, named && `${named.name}-sink`, 'KSTREAM-SINK-');
      const source = processorName(this.ctx, named && `${named.name}-source`, 'KSTREAM-SOURCE-');
      const topic = `${this.groupName ?? store.name}-repartition`;
      const repartitionValueSerde = this.valueSerde ? changeSerde(this.valueSerde) : deriveFromDefault('change(default)', (inner) => changeSerde(inner));
      const serdes = { ...(this.keySerde ? { keySerde: this.keySerde as Serde<unknown> } : {}), valueSerde: repartitionValueSerde as Serde<unknown> };
      this.ctx.topology.addInternalTopic({ name: topic }).addSink(sink, topic, serdes, this.selectNode).addSource(source, topic, serdes);
      return source;
    };
    return new KTable(addAggregation(this.ctx, prefix, materialized, named, this.keySerde, parentFor, supplier, 'parent-first'));
  }
}
