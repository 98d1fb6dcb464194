import type { Serde } from '../../serdes/serde';
import type { Materialized } from '../options';
import type { DslContext } from './dsl-context';
import type { TableNode } from './dsl-nodes';
import { isVersionedMaterialization, keyValueStoreBuilder } from './dsl-context';
import type { OldValues } from './old-values';
import { tableSourceProcessor } from './table-processors';
import { keyValueStoreGetter, versionedStoreGetter } from './value-getters';

/**
 * A source table (`StreamsBuilder.table()`, `KStream.toTable()`), as Kafka Streams' `KTableSource`: materialized in
 * its store when the user named the store, otherwise only once an operation downstream reads the table (a join) or
 * needs its old values (groupBy, suppress, left and outer table joins). The store's name is drawn either way. A
 * versioned store (given by its supplier) is always materialized, and joins read it as of a time.
 */
export function addTableSource<K, V>(
  ctx: DslContext,
  name: string,
  parent: string,
  storeName: string,
  materialized: Materialized<K, V> | undefined,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
): TableNode<K, V> {
  const versioned = isVersionedMaterialization(materialized as Materialized<unknown, unknown> | undefined);
  const store = { name: storeName, materialized: false, versioned };
  const materialize = (): void => {
    if (store.materialized) return;
    store.materialized = true;
    ctx.topology.addStateStore(keyValueStoreBuilder(storeName, materialized as Materialized<unknown, unknown>, keySerde, valueSerde, true), name);
  };
  const oldValues: OldValues = { send: false, materialize };
  ctx.topology.addProcessor(name, tableSourceProcessor(store, oldValues), parent);
  const queryable = Boolean(materialized?.storeName);
  if (queryable) materialize();
  return {
    ctx,
    nodeName: name,
    keySerde,
    valueSerde,
    queryableStoreName: queryable ? storeName : undefined,
    oldValues,
    upstreamOldValues: [],
    internals: {
      valueGetter: () => {
        materialize();
        return versioned ? versionedStoreGetter(storeName) : keyValueStoreGetter(storeName);
      },
    },
  };
}
