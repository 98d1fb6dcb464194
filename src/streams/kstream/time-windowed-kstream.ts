import type { Serde } from '../serdes/serde';
import { Serdes } from '../serdes/serdes';
import { timeWindowedSerde } from '../serdes/windowed';
import type { Windowed } from '../state/store';
import type { KGroupedStream } from './kgrouped-stream';
import { KTable } from './ktable';
import type { Materialized, Named } from './options';
import { SlidingWindows, type TimeWindows } from './windows';
import { windowStoreBuilder } from './internals/dsl-context';
import { windowStoreGetter } from './internals/value-getters';
import { buildWindowedAggregation, type WindowedAggregationSpec } from './internals/windowed-aggregation';
import {
  countAggregator,
  initializedAggregator,
  reduceAggregator,
  slidingWindowAggregateProcessor,
  timeWindowAggregateProcessor,
  type WindowedAggregator,
} from './internals/window-processors';

/**
 * A grouped stream cut into time windows (Kafka Streams' `TimeWindowedKStream`): tumbling, hopping or sliding.
 * Aggregations go into a timestamped window store and give a table keyed by `Windowed<K>` whose updates are emitted
 * on every change (through the record cache), or only once per window with `suppress(untilWindowCloses)`.
 */
export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly grouped: KGroupedStream<K, V>,
    private readonly windows: TimeWindows | SlidingWindows,
  ) {}

  count(materialized?: Materialized<K, number>, named?: Named): KTable<Windowed<K>, number> {
    const valueSerde = materialized?.valueSerde ?? (Serdes.Long() as Serde<number>);
    return this.build<number>('KSTREAM-AGGREGATE-', { ...materialized, valueSerde }, named, countAggregator());
  }

  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>, named?: Named): KTable<Windowed<K>, V> {
    const valueSerde = materialized?.valueSerde ?? this.grouped.valueSerde;
    return this.build<V>('KSTREAM-REDUCE-', { ...materialized, ...(valueSerde ? { valueSerde } : {}) }, named, reduceAggregator(reducer));
  }

  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    materialized?: Materialized<K, A>,
    named?: Named,
  ): KTable<Windowed<K>, A> {
    return this.build<A>('KSTREAM-AGGREGATE-', materialized ?? {}, named, initializedAggregator(initializer, aggregator));
  }

  private build<A>(prefix: string, materialized: Materialized<K, A>, named: Named | undefined, aggregator: WindowedAggregator<K, V, A>): KTable<Windowed<K>, A> {
    return new KTable(buildWindowedAggregation(this.grouped, prefix, materialized, named, timeWindowedSpec(this.windows, materialized), aggregator));
  }
}

/** How tumbling, hopping and sliding windowed aggregations store and compute their windows (also cogrouped ones). */
export function timeWindowedSpec<K, A>(windows: TimeWindows | SlidingWindows, materialized: Materialized<K, A>): WindowedAggregationSpec {
  const sliding = windows instanceof SlidingWindows;
  const sizeMs = sliding ? windows.timeDifferenceMs : windows.sizeMs;
  return {
    // Sliding windows look back up to twice the difference to build the right window of an earlier record.
    minRetentionMs: (sliding ? 2 * sizeMs : sizeMs) + windows.graceMs,
    minRetentionDescription: sliding ? 'twice the time difference plus the grace period' : 'the window size plus the grace period',
    closesAfterMs: windows.graceMs,
    storeBuilder: (store, keySerde, retentionMs) =>
      windowStoreBuilder(store, materialized as Materialized<unknown, unknown>, keySerde, materialized.valueSerde as Serde<unknown> | undefined, {
        retentionMs,
        sizeMs,
        retainDuplicates: false,
      }),
    processor: (store, oldValues, aggregator) =>
      windows instanceof SlidingWindows
        ? slidingWindowAggregateProcessor(windows, store, aggregator, oldValues)
        : timeWindowAggregateProcessor(windows, store, aggregator, oldValues),
    windowedKeySerde: (inner) => timeWindowedSerde(inner, sizeMs),
    getter: (store) => windowStoreGetter(store),
  };
}
