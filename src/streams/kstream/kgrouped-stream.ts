import type { Serde } from '../serdes/serde';
import { Serdes } from '../serdes/serdes';
import type { KStream } from './kstream';
import { KTable } from './ktable';
import type { Materialized, Named } from './options';
import type { DslContext, ResolvedName } from './internals/dsl-context';
import { addAggregation } from './internals/aggregation-node';
import { addRepartition } from './internals/dsl-context';
import { streamAggregateProcessor, streamReduceProcessor } from './internals/aggregate-processors';
import type { ProcessorSupplier } from '../processor/processor';
import type { OldValues } from './internals/old-values';
import { CogroupedKStream } from './cogrouped-kstream';
import { SessionWindowedKStream } from './session-windowed-kstream';
import { TimeWindowedKStream } from './time-windowed-kstream';
import { SessionWindows, type SlidingWindows, type TimeWindows } from './windows';

/** A stream grouped by key, ready to aggregate (Kafka Streams' `KGroupedStream`). */
export class KGroupedStream<K, V> {
  /** @internal */
  constructor(
    readonly stream: KStream<K, V>,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly groupName: string | undefined,
    readonly repartitionRequired: boolean,
  ) {}

  private get ctx(): DslContext {
    return this.stream.ctx;
  }

  count(materialized?: Materialized<K, number>, named?: Named): KTable<K, number> {
    const valueSerde = materialized?.valueSerde ?? (Serdes.Long() as Serde<number>);
    return this.build<number>(
      'KSTREAM-AGGREGATE-',
      { ...materialized, valueSerde },
      named,
      (store, oldValues) => streamAggregateProcessor<K, V, number>(store, () => 0, (_k, _v, agg) => agg + 1, oldValues),
    );
  }

  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>, named?: Named): KTable<K, V> {
    const valueSerde = materialized?.valueSerde ?? this.valueSerde;
    return this.build<V>(
      'KSTREAM-REDUCE-',
      { ...materialized, ...(valueSerde ? { valueSerde } : {}) },
      named,
      (store, oldValues) => streamReduceProcessor<K, V>(store, reducer, oldValues),
    );
  }

  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    materialized?: Materialized<K, A>,
    named?: Named,
  ): KTable<K, A> {
    return this.build<A>('KSTREAM-AGGREGATE-', materialized ?? {}, named, (store, oldValues) =>
      streamAggregateProcessor<K, V, A>(store, initializer, aggregator, oldValues),
    );
  }

  /**
   * Starts a cogroup (Kafka Streams' `cogroup`, KIP-150): this stream's records fold into a shared aggregate with
   * `aggregator`; add more grouped streams of the same key with `cogroup`, then `aggregate`.
   */
  cogroup<A>(aggregator: (key: K, value: V, aggregate: A) => A): CogroupedKStream<K, A> {
    return new CogroupedKStream<K, A>(this.ctx).cogroup(this, aggregator);
  }

  /** Cuts the grouped stream into sessions. */
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>;
  /** Cuts the grouped stream into tumbling, hopping or sliding time windows. */
  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedKStream<K, V>;
  windowedBy(windows: TimeWindows | SlidingWindows | SessionWindows): TimeWindowedKStream<K, V> | SessionWindowedKStream<K, V> {
    return windows instanceof SessionWindows ? new SessionWindowedKStream(this, windows) : new TimeWindowedKStream(this, windows);
  }

  private build<A>(
    prefix: string,
    materialized: Materialized<K, A>,
    named: Named | undefined,
    supplier: (store: string, oldValues: OldValues) => ProcessorSupplier<unknown, unknown, unknown, unknown>,
  ): KTable<K, A> {
    return new KTable(addAggregation(this.ctx, prefix, materialized, named, this.keySerde, (store) => this.repartitionIfRequired(store), supplier));
  }

  /** @internal Where the aggregation reads from: the stream itself, or a repartition topic after it. */
  repartitionIfRequired(store: ResolvedName): string {
    if (!this.repartitionRequired) return this.stream.nodeName;
    return addRepartition(
      this.ctx,
      this.stream.nodeName,
      this.groupName ?? store.name,
      this.keySerde as Serde<unknown> | undefined,
      this.valueSerde as Serde<unknown> | undefined,
    );
  }
}
