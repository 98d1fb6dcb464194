import { TopologyException } from '../../../errors';
import type { ProcessorSupplier } from '../../processor/processor';
import { deriveFromDefault } from '../../serdes/default-serde';
import type { Serde } from '../../serdes/serde';
import type { StateStore, Windowed } from '../../state/store';
import type { StoreBuilder } from '../../state/stores';
import type { Materialized, Named } from '../options';
import { type DslContext, processorName, storeName } from './dsl-context';
import type { GroupedStreamNode, TableNode } from './dsl-nodes';
import type { OldValues } from './old-values';
import type { ValueGetterSupplier } from './value-getters';
import type { WindowedAggregator } from './window-processors';

/** What differs between time, sliding and session windowed aggregations. */
export interface WindowedAggregationSpec {
  /** The smallest retention that keeps every window the aggregation may still update, and how it is made up. */
  readonly minRetentionMs: number;
  readonly minRetentionDescription: string;
  /** How long after a window's end it may still change: what `suppress(untilWindowCloses)` waits. */
  readonly closesAfterMs: number;
  storeBuilder(store: string, keySerde: Serde<unknown> | undefined, retentionMs: number): StoreBuilder<StateStore>;
  /** The aggregating processor of one input: `aggregator` folds its records into the store's windows. */
  processor(store: string, oldValues: OldValues, aggregator: WindowedAggregator<unknown, unknown, unknown>): ProcessorSupplier<unknown, unknown, unknown, unknown>;
  /** The serde of the output keys, in Kafka Streams' windowed layout. */
  windowedKeySerde(inner: Serde<unknown>): Serde<Windowed<unknown>>;
  getter(store: string): ValueGetterSupplier<Windowed<unknown>, unknown>;
}

/**
 * Adds a windowed aggregation: store name first, then the processor name, then (if needed) the repartition topic,
 * as `KGroupedStream`'s aggregations do. The window or session store keeps windows for the materialization's
 * retention, by default the smallest one that works; a smaller one is refused, as Kafka Streams refuses it.
 */
export function buildWindowedAggregation<K, V, A>(
  grouped: GroupedStreamNode<K>,
  prefix: string,
  materialized: Materialized<K, A>,
  named: Named | undefined,
  spec: WindowedAggregationSpec,
  aggregator: WindowedAggregator<K, V, A>,
): TableNode<Windowed<K>, A> {
  const ctx = grouped.stream.ctx;
  const store = storeName(ctx, materialized as Materialized<unknown, unknown>, prefix);
  const name = processorName(ctx, named?.name, prefix);
  const retentionMs = windowRetention(store.name, materialized, spec);
  const parent = grouped.repartitionIfRequired(store);
  const oldValues = { send: false };
  const keySerde = (materialized.keySerde ?? grouped.keySerde) as Serde<unknown> | undefined;
  ctx.topology.addProcessor(name, spec.processor(store.name, oldValues, aggregator as WindowedAggregator<unknown, unknown, unknown>), parent);
  ctx.topology.addStateStore(spec.storeBuilder(store.name, keySerde, retentionMs), name);
  return windowedTable(ctx, name, store.name, keySerde, materialized, spec, oldValues);
}

/** The retention of a windowed aggregation's store: the materialization's, at least the spec's minimum. */
export function windowRetention(store: string, materialized: Materialized<unknown, unknown>, spec: WindowedAggregationSpec): number {
  const retentionMs = materialized.retentionMs ?? spec.minRetentionMs;
  if (retentionMs < spec.minRetentionMs) {
    throw new TopologyException(
      `the retention of window store ${store} (${retentionMs} ms) must be no smaller than ${spec.minRetentionDescription} (${spec.minRetentionMs} ms)`,
    );
  }
  return retentionMs;
}

/** The node of a windowed aggregation's table, whose updates come from node `name` and whose values are in `store`. */
export function windowedTable<K, A>(
  ctx: DslContext,
  name: string,
  store: string,
  keySerde: Serde<unknown> | undefined,
  materialized: Materialized<K, A>,
  spec: WindowedAggregationSpec,
  oldValues: OldValues,
): TableNode<Windowed<K>, A> {
  const windowedKeySerde = keySerde
    ? spec.windowedKeySerde(keySerde)
    : deriveFromDefault('windowed(default)', (inner) => spec.windowedKeySerde(inner));
  return {
    ctx,
    nodeName: name,
    keySerde: windowedKeySerde as Serde<Windowed<K>>,
    valueSerde: materialized.valueSerde,
    queryableStoreName: store,
    oldValues,
    upstreamOldValues: [],
    internals: { valueGetter: () => spec.getter(store) as ValueGetterSupplier<Windowed<K>, A>, windowGraceMs: spec.closesAfterMs },
  };
}
