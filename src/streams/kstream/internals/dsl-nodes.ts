import type { Serde } from '../../serdes/serde';
import type { DslContext, ResolvedName } from './dsl-context';
import type { OldValues } from './old-values';
import type { ValueGetterSupplier } from './value-getters';

/*
 * What the DSL's internals read of the public streams and tables they are given, and what they return for the public
 * classes to wrap (Kafka Streams' interfaces and their `…Impl`s, the other way round): the internals never see the
 * classes, so they depend on nothing of the public API.
 */

/** A stream in the topology: the node that produces it, its serdes, and whether its key changed since it was last partitioned. */
export interface StreamNode<K, V> {
  readonly ctx: DslContext;
  readonly nodeName: string;
  readonly keySerde: Serde<K> | undefined;
  readonly valueSerde: Serde<V> | undefined;
  readonly repartitionRequired: boolean;
}

/** What a table knows beyond its node. */
export interface TableInternals<K, V> {
  /**
   * How joins read the table, when not from its own key-value store. Built only when a join asks: reading a table
   * may materialize a source table upstream.
   */
  valueGetter?: () => ValueGetterSupplier<K, V> | undefined;
  /** Tables of windowed aggregations: how long after a window's end it may still change. */
  windowGraceMs?: number;
}

/** A table in the topology, as the internals make one. */
export interface TableNode<K, V> {
  readonly ctx: DslContext;
  readonly nodeName: string;
  readonly keySerde: Serde<K> | undefined;
  readonly valueSerde: Serde<V> | undefined;
  /** The store that holds the table, when it is materialized. */
  readonly queryableStoreName: string | undefined;
  readonly oldValues: OldValues;
  /** Switches of the tables upstream, turned on together with this one. */
  readonly upstreamOldValues: readonly OldValues[];
  readonly internals?: TableInternals<K, V>;
}

/** A table as joins read it: its node, its values, and its old values, which a join may turn on. */
export interface JoinableTable<K, V> {
  readonly ctx: DslContext;
  readonly nodeName: string;
  readonly keySerde: Serde<K> | undefined;
  readonly valueSerde: Serde<V> | undefined;
  valueGetterSupplier(): ValueGetterSupplier<K, V> | undefined;
  enableSendingOldValues(): void;
  oldValuesSwitches(): OldValues[];
}

/** A grouped stream as aggregations read it. */
export interface GroupedStreamNode<K> {
  readonly stream: { readonly ctx: DslContext };
  readonly keySerde: Serde<K> | undefined;
  /** Where an aggregation into `store` reads from: the stream itself, or a repartition topic after it. */
  repartitionIfRequired(store: ResolvedName): string;
}
