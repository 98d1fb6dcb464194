import type { StateStore } from '../state/store';
import type { StoreBuilder } from '../state/stores';
import { Topology } from '../topology/topology';
import { KStream } from './kstream';
import { KTable } from './ktable';
import type { Consumed, Materialized } from './options';
import type { DslContext } from './internals/dsl-context';
import { keyValueStoreBuilder, processorName, storeName } from './internals/dsl-context';
import { tableSourceProcessor } from './internals/table-processors';
import { keyValueStoreGetter } from './internals/value-getters';
import { GlobalKTable } from './global-ktable';
import { NameGenerator } from './internals/names';
import { addTableSource } from './internals/table-source';

/** The DSL entry point (Kafka Streams' `StreamsBuilder`): streams and tables from topics, then `build()`. */
export class StreamsBuilder {
  private readonly ctx: DslContext = { topology: new Topology(), names: new NameGenerator() };

  /** A stream of the records of one or more topics, or of every topic matching a pattern. */
  stream<K = unknown, V = unknown>(topics: string | string[] | RegExp, consumed: Consumed<K, V> = {}): KStream<K, V> {
    const name = processorName(this.ctx, consumed.name, 'KSTREAM-SOURCE-');
    this.ctx.topology.addSource<K, V>(name, topics, consumed);
    return new KStream<K, V>(this.ctx, name, consumed.keySerde, consumed.valueSerde, false);
  }

  /**
   * A table of the latest value per key of a topic. It is kept in a store when `materialized` names one, or when
   * an operation needs it (a join, groupBy, suppress); the store's name is `<topic>-STATE-STORE-…` unless named.
   */
  table<K = unknown, V = unknown>(topic: string, consumed: Consumed<K, V> = {}, materialized?: Materialized<K, V>): KTable<K, V> {
    const store = storeName(this.ctx, materialized as Materialized<unknown, unknown>, `${topic}-`);
    // Kafka Streams names a table's source `<name>-source` and its table processor `<name>` (Consumed.as).
    const source = processorName(this.ctx, consumed.name === undefined ? undefined : `${consumed.name}-source`, 'KSTREAM-SOURCE-');
    const name = processorName(this.ctx, consumed.name, 'KTABLE-SOURCE-');
    this.ctx.topology.addSource<K, V>(source, topic, consumed);
    const keySerde = materialized?.keySerde ?? consumed.keySerde;
    const valueSerde = materialized?.valueSerde ?? consumed.valueSerde;
    return new KTable(addTableSource(this.ctx, name, source, store.name, materialized, keySerde, valueSerde));
  }

  /**
   * A global table of a topic (Kafka Streams' `globalTable`): every instance holds all of it, kept up to date from
   * every partition of the topic, in a store named `<topic>-STATE-STORE-…` unless `materialized` names it. The
   * store has no changelog: it is restored from the topic itself.
   */
  globalTable<K = unknown, V = unknown>(topic: string, consumed: Consumed<K, V> = {}, materialized?: Materialized<K, V>): GlobalKTable<K, V> {
    const store = storeName(this.ctx, materialized as Materialized<unknown, unknown>, `${topic}-`);
    const source = processorName(this.ctx, consumed.name === undefined ? undefined : `${consumed.name}-source`, 'KSTREAM-SOURCE-');
    const name = processorName(this.ctx, consumed.name, 'KTABLE-SOURCE-');
    const keySerde = materialized?.keySerde ?? consumed.keySerde;
    const valueSerde = materialized?.valueSerde ?? consumed.valueSerde;
    const builder = keyValueStoreBuilder(store.name, { ...materialized, loggingEnabled: false } as Materialized<unknown, unknown>, keySerde, valueSerde);
    this.ctx.topology.addGlobalStore(builder, source, consumed, topic, name, tableSourceProcessor({ name: store.name, materialized: true }, { send: false }));
    return new GlobalKTable<K, V>(store.name, keyValueStoreGetter(store.name));
  }

  /** Adds a store for Processor API processors used with `KStream.process`. */
  addStateStore<S extends StateStore>(builder: StoreBuilder<S>): this {
    // A builder of a store type is a builder of a store: the topology only names, builds and opens it.
    this.ctx.topology.addStateStore(builder as unknown as StoreBuilder<StateStore>);
    return this;
  }

  build(): Topology {
    return this.ctx.topology;
  }
}
