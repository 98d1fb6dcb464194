import type { ProcessorSupplier } from '../../processor/processor';
import type { Serde } from '../../serdes/serde';
import { KTable } from '../ktable';
import type { Materialized } from '../options';
import type { DslContext, ResolvedName } from './dsl-context';
import { keyValueStoreBuilder } from './dsl-context';
import type { OldValues } from './table-processors';

/**
 * The last step of every grouped aggregation (streams and tables alike): the aggregating processor after
 * `parent`, its timestamped key-value store, and the resulting table.
 */
export function addAggregation<K, A>(
  ctx: DslContext,
  name: string,
  parent: string,
  store: ResolvedName,
  materialized: Materialized<K, A>,
  keySerde: Serde<K> | undefined,
  supplier: (store: string, oldValues: OldValues) => ProcessorSupplier<unknown, unknown, unknown, unknown>,
): KTable<K, A> {
  const oldValues = { send: false };
  const resolvedKeySerde = materialized.keySerde ?? keySerde;
  ctx.topology.addProcessor(name, supplier(store.name, oldValues), parent);
  ctx.topology.addStateStore(
    keyValueStoreBuilder(store.name, materialized as Materialized<unknown, unknown>, resolvedKeySerde, materialized.valueSerde),
    name,
  );
  return new KTable<K, A>(ctx, name, resolvedKeySerde, materialized.valueSerde, store.name, oldValues, [], false);
}
