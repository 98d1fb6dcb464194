import type { Serde } from '../../serdes/serde';
import { Stores } from '../../state/stores';
import type { StoreBuilder } from '../../state/stores';
import type { StateStore } from '../../state/store';
import type { Topology } from '../../topology/topology';
import type { Materialized } from '../options';
import { nullKeyFilterProcessor } from './stream-processors';
import type { NameGenerator } from './names';

/** What every DSL object shares: the topology being built and the name counter. */
export interface DslContext {
  readonly topology: Topology;
  readonly names: NameGenerator;
}

/** A name given by the user or generated; generated names do not name repartition nodes. */
export interface ResolvedName {
  name: string;
  generated: boolean;
}

export function processorName(ctx: DslContext, userName: string | undefined, prefix: string): string {
  return userName ?? ctx.names.processor(prefix);
}

/** The store name of a materialization: the user's, or one generated with Kafka Streams' prefix. */
export function storeName(ctx: DslContext, materialized: Materialized<unknown, unknown> | undefined, prefix: string): ResolvedName {
  return materialized?.storeName
    ? { name: materialized.storeName, generated: false }
    : { name: ctx.names.store(prefix), generated: true };
}

/** The timestamped key-value store that backs a table or an aggregation. */
export function keyValueStoreBuilder(
  name: string,
  materialized: Materialized<unknown, unknown> | undefined,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
): StoreBuilder<StateStore> {
  const supplier =
    materialized?.storeType === 'in-memory'
      ? Stores.inMemoryKeyValueStore(name)
      : Stores.persistentTimestampedKeyValueStore(name);
  let builder = Stores.timestampedKeyValueStoreBuilder(
    supplier,
    materialized?.keySerde ?? keySerde,
    materialized?.valueSerde ?? valueSerde,
  );
  if (materialized?.loggingEnabled === false) builder = builder.withLoggingDisabled();
  else if (materialized?.logConfig) builder = builder.withLoggingEnabled(materialized.logConfig);
  return builder as unknown as StoreBuilder<StateStore>;
}

/**
 * Inserts a repartition topic after `parent`: a null-key filter, a sink to `<base>-repartition` and a source
 * reading it back. Returns the source's name. Node names follow Kafka Streams: derived from the base name when
 * the user chose it, generated otherwise.
 */
export function addRepartition(
  ctx: DslContext,
  parent: string,
  base: ResolvedName,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  numberOfPartitions?: number,
): string {
  const topic = `${base.name}-repartition`;
  let sink: string;
  let filter: string;
  let source: string;
  if (base.generated) {
    sink = ctx.names.processor('KSTREAM-SINK-');
    filter = ctx.names.processor('KSTREAM-FILTER-');
    source = ctx.names.processor('KSTREAM-SOURCE-');
  } else {
    sink = `${topic}-sink`;
    filter = `${topic}-filter`;
    source = `${topic}-source`;
  }
  const serdes = { ...(keySerde ? { keySerde } : {}), ...(valueSerde ? { valueSerde } : {}) };
  ctx.topology
    .addInternalTopic({ name: topic, ...(numberOfPartitions ? { numberOfPartitions } : {}) })
    .addProcessor(filter, nullKeyFilterProcessor(), parent)
    .addSink(sink, topic, serdes, filter)
    .addSource(source, topic, serdes);
  return source;
}
