import type { Serde } from '../serdes/serde';
import { Serdes } from '../serdes/serdes';
import { sessionWindowedSerde } from '../serdes/windowed';
import type { Windowed } from '../state/store';
import type { KGroupedStream } from './kgrouped-stream';
import { KTable } from './ktable';
import type { Materialized, Named } from './options';
import type { SessionWindows } from './windows';
import { sessionStoreBuilder } from './internals/dsl-context';
import { type SessionMerger, sessionWindowAggregateProcessor } from './internals/session-processor';
import { sessionStoreGetter } from './internals/value-getters';
import { buildWindowedAggregation, type WindowedAggregationSpec } from './internals/windowed-aggregation';
import { countAggregator, initializedAggregator, reduceAggregator, type WindowedAggregator } from './internals/window-processors';

/**
 * A grouped stream cut into sessions (Kafka Streams' `SessionWindowedKStream`). Aggregations go into a session
 * store; when a record bridges sessions they are merged (with the merger for `aggregate`), the old sessions are
 * deleted downstream (null values) and the merged one is sent.
 */
export class SessionWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly grouped: KGroupedStream<K, V>,
    private readonly windows: SessionWindows,
  ) {}

  count(materialized?: Materialized<K, number>, named?: Named): KTable<Windowed<K>, number> {
    const valueSerde = materialized?.valueSerde ?? (Serdes.Long() as Serde<number>);
    return this.build<number>('KSTREAM-AGGREGATE-', { ...materialized, valueSerde }, named, countAggregator(), (_key, count, next) => (count ?? 0) + next);
  }

  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>, named?: Named): KTable<Windowed<K>, V> {
    const valueSerde = materialized?.valueSerde ?? this.grouped.valueSerde;
    return this.build<V>('KSTREAM-REDUCE-', { ...materialized, ...(valueSerde ? { valueSerde } : {}) }, named, reduceAggregator(reducer), (_key, aggregate, next) =>
      aggregate === null ? next : reducer(aggregate, next),
    );
  }

  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    merger: (key: K, aggregate: A, other: A) => A,
    materialized?: Materialized<K, A>,
    named?: Named,
  ): KTable<Windowed<K>, A> {
    return this.build<A>('KSTREAM-AGGREGATE-', materialized ?? {}, named, initializedAggregator(initializer, aggregator), (key, aggregate, next) =>
      merger(key, aggregate ?? initializer(), next),
    );
  }

  private build<A>(
    prefix: string,
    materialized: Materialized<K, A>,
    named: Named | undefined,
    aggregator: WindowedAggregator<K, V, A>,
    merger: SessionMerger<K, A>,
  ): KTable<Windowed<K>, A> {
    return new KTable(buildWindowedAggregation(this.grouped, prefix, materialized, named, sessionWindowedSpec(this.windows, materialized, merger), aggregator));
  }
}

/** How session aggregations store and merge their sessions (also cogrouped ones). */
export function sessionWindowedSpec<K, A>(windows: SessionWindows, materialized: Materialized<K, A>, merger: SessionMerger<K, A>): WindowedAggregationSpec {
  return {
    minRetentionMs: windows.inactivityGapMs + windows.graceMs,
    minRetentionDescription: 'the inactivity gap plus the grace period',
    // A session [start, end] can still grow until stream time passes end + gap + grace.
    closesAfterMs: windows.inactivityGapMs + windows.graceMs,
    storeBuilder: (store, keySerde, retentionMs) =>
      sessionStoreBuilder(store, materialized as Materialized<unknown, unknown>, keySerde, materialized.valueSerde as Serde<unknown> | undefined, retentionMs),
    processor: (store, oldValues, aggregator) =>
      sessionWindowAggregateProcessor(windows, store, aggregator, merger as SessionMerger<unknown, unknown>, oldValues),
    windowedKeySerde: (inner) => sessionWindowedSerde(inner),
    getter: (store) => sessionStoreGetter(store),
  };
}
