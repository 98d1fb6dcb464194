import type { ProcessorSupplier } from '../../processor/processor';
import type { Serde } from '../../serdes/serde';
import type { Materialized, Named } from '../options';
import type { DslContext, ResolvedName } from './dsl-context';
import type { TableNode } from './dsl-nodes';
import { keyValueStoreBuilder, processorName, storeName } from './dsl-context';
import type { OldValues } from './old-values';

/**
 * Every grouped aggregation (streams and tables alike): the store name first, then the processor name and the node
 * it reads from (a repartition topic when needed) in the order in which Kafka Streams draws their generated names
 * (streams: processor, then repartition; tables: repartition, then processor); then the aggregating processor, its
 * timestamped key-value store, and the node of the resulting table.
 */
export function addAggregation<K, A>(
  ctx: DslContext,
  prefix: string,
  materialized: Materialized<K, A>,
  named: Named | undefined,
  keySerde: Serde<K> | undefined,
  parentFor: (store: ResolvedName) => string,
  supplier: (store: string, oldValues: OldValues) => ProcessorSupplier<unknown, unknown, unknown, unknown>,
  order: 'processor-first' | 'parent-first' = 'processor-first',
): TableNode<K, A> {
  const store = storeName(ctx, materialized as Materialized<unknown, unknown>, prefix);
  let parent = order === 'parent-first' ? parentFor(store) : undefined;
  const name = processorName(ctx, named?.name, prefix);
  parent ??= parentFor(store);
  const oldValues = { send: false };
  const resolvedKeySerde = materialized.keySerde ?? keySerde;
  ctx.topology.addProcessor(name, supplier(store.name, oldValues), parent);
  ctx.topology.addStateStore(
    keyValueStoreBuilder(store.name, materialized as Materialized<unknown, unknown>, resolvedKeySerde, materialized.valueSerde),
    name,
  );
  return { ctx, nodeName: name, keySerde: resolvedKeySerde, valueSerde: materialized.valueSerde, queryableStoreName: store.name, oldValues, upstreamOldValues: [] };
}
