import type { Serde } from '../serdes/serde';
import type { Windowed } from '../state/store';
import type { KGroupedStream } from './kgrouped-stream';
import { KTable } from './ktable';
import type { Materialized, Named } from './options';
import { sessionWindowedSpec } from './session-windowed-kstream';
import { timeWindowedSpec } from './time-windowed-kstream';
import { SessionWindows, type SlidingWindows, type TimeWindows } from './windows';
import { buildCogroup, type CogroupInput } from './internals/cogroup';
import type { DslContext } from './internals/dsl-context';
import { keyValueStoreBuilder } from './internals/dsl-context';
import { streamAggregateProcessor } from './internals/aggregate-processors';
import { initializedAggregator, type WindowedAggregator } from './internals/window-processors';
import { type WindowedAggregationSpec, windowedTable, windowRetention } from './internals/windowed-aggregation';

/**
 * Several grouped streams of the same key aggregated into one table (Kafka Streams' `CogroupedKStream`, KIP-150):
 * each stream has its own aggregator, and all of them update one aggregate per key, in one store. Made by
 * `KGroupedStream.cogroup`, grown with `cogroup`, ended with `aggregate` (or windowed first). The streams must be
 * co-partitioned; one whose key changed is repartitioned first.
 */
export class CogroupedKStream<K, A> {
  private readonly inputs = new Map<KGroupedStream<K, unknown>, CogroupInput<A>['aggregator']>();

  /** @internal */
  constructor(private readonly ctx: DslContext) {}

  /** Adds a grouped stream and its aggregator; a stream added again keeps its place and takes the new aggregator. */
  cogroup<V>(grouped: KGroupedStream<K, V>, aggregator: (key: K, value: V, aggregate: A) => A): this {
    this.inputs.set(grouped as KGroupedStream<K, unknown>, aggregator as CogroupInput<A>['aggregator']);
    return this;
  }

  aggregate(initializer: () => A, materialized: Materialized<K, A> = {}, named?: Named): KTable<K, A> {
    const keySerde = this.keySerde(materialized);
    return buildCogroup<A, KTable<K, A>>(this.ctx, this.list(), materialized as Materialized<unknown, A>, named, {
      storeBuilder: (store) => keyValueStoreBuilder(store, materialized as Materialized<unknown, unknown>, keySerde, materialized.valueSerde as Serde<unknown> | undefined),
      processor: (store, oldValues, aggregator) => streamAggregateProcessor(store, initializer, aggregator, oldValues),
      table: (merge, store, oldValues) =>
        new KTable<K, A>({
          ctx: this.ctx,
          nodeName: merge,
          keySerde: keySerde as Serde<K> | undefined,
          valueSerde: materialized.valueSerde,
          queryableStoreName: store,
          oldValues,
          upstreamOldValues: [],
        }),
    });
  }

  /** Cuts the cogrouped streams into sessions. */
  windowedBy(windows: SessionWindows): SessionWindowedCogroupedKStream<K, A>;
  /** Cuts the cogrouped streams into tumbling, hopping or sliding time windows. */
  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedCogroupedKStream<K, A>;
  windowedBy(windows: TimeWindows | SlidingWindows | SessionWindows): TimeWindowedCogroupedKStream<K, A> | SessionWindowedCogroupedKStream<K, A> {
    return windows instanceof SessionWindows ? new SessionWindowedCogroupedKStream(this, windows) : new TimeWindowedCogroupedKStream(this, windows);
  }

  /** @internal A windowed aggregation of the cogrouped streams into a window or session store. */
  windowedAggregate(
    initializer: () => A,
    materialized: Materialized<K, A>,
    named: Named | undefined,
    spec: WindowedAggregationSpec,
  ): KTable<Windowed<K>, A> {
    const keySerde = this.keySerde(materialized);
    return buildCogroup<A, KTable<Windowed<K>, A>>(this.ctx, this.list(), materialized as Materialized<unknown, A>, named, {
      storeBuilder: (store) => spec.storeBuilder(store, keySerde, windowRetention(store, materialized as Materialized<unknown, unknown>, spec)),
      processor: (store, oldValues, aggregator) =>
        spec.processor(store, oldValues, initializedAggregator(initializer, aggregator) as WindowedAggregator<unknown, unknown, unknown>),
      table: (merge, store, oldValues) => new KTable(windowedTable(this.ctx, merge, store, keySerde, materialized, spec, oldValues)),
    });
  }

  private list(): CogroupInput<A>[] {
    return [...this.inputs].map(([grouped, aggregator]) => ({ grouped: grouped as KGroupedStream<unknown, unknown>, aggregator }));
  }

  /** The materialization's key serde, else the first grouped stream's. */
  private keySerde(materialized: Materialized<K, A>): Serde<unknown> | undefined {
    return (materialized.keySerde ?? this.inputs.keys().next().value?.keySerde) as Serde<unknown> | undefined;
  }
}

/** Cogrouped streams cut into tumbling, hopping or sliding windows (Kafka Streams' `TimeWindowedCogroupedKStream`). */
export class TimeWindowedCogroupedKStream<K, A> {
  /** @internal */
  constructor(
    private readonly cogrouped: CogroupedKStream<K, A>,
    private readonly windows: TimeWindows | SlidingWindows,
  ) {}

  aggregate(initializer: () => A, materialized: Materialized<K, A> = {}, named?: Named): KTable<Windowed<K>, A> {
    return this.cogrouped.windowedAggregate(initializer, materialized, named, timeWindowedSpec(this.windows, materialized));
  }
}

/** Cogrouped streams cut into sessions (Kafka Streams' `SessionWindowedCogroupedKStream`); merged sessions use `merger`. */
export class SessionWindowedCogroupedKStream<K, A> {
  /** @internal */
  constructor(
    private readonly cogrouped: CogroupedKStream<K, A>,
    private readonly windows: SessionWindows,
  ) {}

  aggregate(initializer: () => A, merger: (key: K, aggregate: A, other: A) => A, materialized: Materialized<K, A> = {}, named?: Named): KTable<Windowed<K>, A> {
    const spec = sessionWindowedSpec<K, A>(this.windows, materialized, (key, aggregate, next) => merger(key, aggregate ?? initializer(), next));
    return this.cogrouped.windowedAggregate(initializer, materialized, named, spec);
  }
}
