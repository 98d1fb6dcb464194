import type { ValueGetterSupplier } from './internals/value-getters';

/**
 * A table of which every instance holds all of it, from every partition of its topic (Kafka Streams'
 * `GlobalKTable`): a stream joins it on a key computed from each record, with no repartition nor co-partitioning.
 * Made by `StreamsBuilder.globalTable`; its store is always materialized.
 */
export class GlobalKTable<K, V> {
  /** @internal */
  constructor(
    /** The global store that holds the table. */
    readonly queryableStoreName: string,
    /** @internal How a join reads the table. */
    readonly valueGetterSupplier: ValueGetterSupplier<K, V>,
  ) {}
}
