import type { ProcessorSupplier } from '../../processor/processor';
import type { StateStore } from '../../state/store';
import type { StoreBuilder } from '../../state/stores';
import type { Materialized, Named } from '../options';
import { copartition, type DslContext, processorName, storeName } from './dsl-context';
import type { GroupedStreamNode } from './dsl-nodes';
import { passThroughProcessor } from './stream-processors';
import type { OldValues } from './old-values';

/** Kafka Streams' generated names of a cogroup's store, aggregating processors and merge node. */
export const COGROUP_AGGREGATE_PREFIX = 'COGROUPKSTREAM-AGGREGATE-';
const COGROUP_MERGE_PREFIX = 'COGROUPKSTREAM-MERGE-';

/** One grouped stream of a cogroup and how its records fold into the shared aggregate. */
export interface CogroupInput<A> {
  readonly grouped: GroupedStreamNode<unknown>;
  readonly aggregator: (key: unknown, value: unknown, aggregate: A) => A;
}

/** What differs between plain, windowed and session cogroups. */
export interface CogroupKind<A, T> {
  /** The store all the aggregating processors share. */
  storeBuilder(store: string): StoreBuilder<StateStore>;
  /** The aggregating processor of one input. */
  processor(store: string, oldValues: OldValues, aggregator: CogroupInput<A>['aggregator']): ProcessorSupplier<unknown, unknown, unknown, unknown>;
  /** The resulting table, whose updates come from the merge node. */
  table(merge: string, store: string, oldValues: OldValues): T;
}

/**
 * Kafka Streams' `CogroupedStreamAggregateBuilder`: the store name first; each grouped stream whose key changed
 * goes through `<grouping or store>-repartition`; one aggregating processor per grouped stream
 * (`COGROUPKSTREAM-AGGREGATE-…`, or `<name>-cogroup-agg-<i>`), all updating the one store; and a merge node
 * (`COGROUPKSTREAM-MERGE-…`, or `<name>-cogroup-merge`) that passes their updates on as one table. The inputs must be
 * co-partitioned.
 */
export function buildCogroup<A, T>(
  ctx: DslContext,
  inputs: readonly CogroupInput<A>[],
  materialized: Materialized<unknown, A>,
  named: Named | undefined,
  kind: CogroupKind<A, T>,
): T {
  const store = storeName(ctx, materialized as Materialized<unknown, unknown>, COGROUP_AGGREGATE_PREFIX);
  const parents = inputs.map(({ grouped }) => grouped.repartitionIfRequired(store));
  copartition(ctx, ...parents);
  const oldValues = { send: false };
  const aggregators = inputs.map(({ aggregator }, index) => {
    const name = processorName(ctx, named?.name && `${named.name}-cogroup-agg-${index}`, COGROUP_AGGREGATE_PREFIX);
    ctx.topology.addProcessor(name, kind.processor(store.name, oldValues, aggregator), parents[index]!);
    return name;
  });
  ctx.topology.addStateStore(kind.storeBuilder(store.name), ...aggregators);
  const merge = processorName(ctx, named?.name && `${named.name}-cogroup-merge`, COGROUP_MERGE_PREFIX);
  ctx.topology.addProcessor(merge, passThroughProcessor(), ...aggregators);
  return kind.table(merge, store.name, oldValues);
}
