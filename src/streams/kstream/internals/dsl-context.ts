import { TopologyException } from '../../../errors';
import type { Serde } from '../../serdes/serde';
import { Stores } from '../../state/stores';
import type { StoreBuilder } from '../../state/stores';
import type { StateStore } from '../../state/store';
import { isVersionedSupplier } from '../../state/store-suppliers';
import type { Topology } from '../../topology/topology';
import type { Materialized } from '../options';
import { nullKeyFilterProcessor } from './stream-processors';
import type { NameGenerator } from './names';

/** What every DSL object shares: the topology being built and the name counter. */
export interface DslContext {
  readonly topology: Topology;
  readonly names: NameGenerator;
}

/** A store's name, given by the user or generated. */
export interface ResolvedName {
  name: string;
}

/** A processor's name: the user's, or generated. A user's name still takes an index, as in Kafka Streams (NamedInternal). */
export function processorName(ctx: DslContext, userName: string | undefined, prefix: string): string {
  const generated = ctx.names.processor(prefix);
  return userName ?? generated;
}

/** The store name of a materialization: the user's, or one generated with Kafka Streams' prefix. */
export function storeName(ctx: DslContext, materialized: Materialized<unknown, unknown> | undefined, prefix: string): ResolvedName {
  const given = materialized?.storeSupplier?.name ?? materialized?.storeName;
  return given
    ? { name: given }
    : { name: ctx.names.store(prefix) };
}

/** Whether a materialization keeps its table in a versioned store. */
export function isVersionedMaterialization(materialized: Materialized<unknown, unknown> | undefined): boolean {
  return materialized?.storeSupplier !== undefined && isVersionedSupplier(materialized.storeSupplier);
}

/** The timestamped key-value store that backs a table or an aggregation (or a versioned one, given its supplier). */
export function keyValueStoreBuilder(
  name: string,
  materialized: Materialized<unknown, unknown> | undefined,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  versionedAllowed = false,
): StoreBuilder<StateStore> {
  const given = materialized?.storeSupplier;
  if (given !== undefined && isVersionedSupplier(given) && !versionedAllowed) {
    throw new TopologyException(`store ${given.name}: only a source table (builder.table, toTable) may be materialized in a versioned store`);
  }
  const keys = materialized?.keySerde ?? keySerde;
  const values = materialized?.valueSerde ?? valueSerde;
  // As in Kafka Streams, a versioned store is never cached, whatever the materialization asks.
  if (given !== undefined && isVersionedSupplier(given)) return withLogging(Stores.versionedKeyValueStoreBuilder(given, keys, values), materialized);
  const supplier =
    given ?? (materialized?.storeType === 'in-memory' ? Stores.inMemoryKeyValueStore(name) : Stores.persistentTimestampedKeyValueStore(name));
  const builder = Stores.timestampedKeyValueStoreBuilder(supplier, keys, values);
  return withLogging(withCaching(builder, materialized), materialized);
}

/** The caching switch of a materialization: on unless turned off, as in Kafka Streams. */
function withCaching<S extends StateStore>(builder: StoreBuilder<S>, materialized: Materialized<unknown, unknown> | undefined): StoreBuilder<S> {
  return materialized?.cachingEnabled === false ? builder.withCachingDisabled() : builder.withCachingEnabled();
}

/** The changelog switches of a materialization, applied to a store builder. */
export function withLogging<S extends StateStore>(
  builder: StoreBuilder<S>,
  materialized: Materialized<unknown, unknown> | undefined,
  forcedConfig: Record<string, string> = {},
): StoreBuilder<StateStore> {
  if (materialized?.loggingEnabled === false) builder.withLoggingDisabled();
  else builder.withLoggingEnabled({ ...materialized?.logConfig, ...forcedConfig });
  return builder as unknown as StoreBuilder<StateStore>;
}

/** The window store of a windowed aggregation (timestamped) or of one side of a stream-stream join (duplicates). */
export function windowStoreBuilder(
  name: string,
  materialized: Materialized<unknown, unknown> | undefined,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  window: { retentionMs: number; sizeMs: number; retainDuplicates: boolean },
): StoreBuilder<StateStore> {
  const inMemory = materialized?.storeType === 'in-memory';
  const supplier = inMemory
    ? Stores.inMemoryWindowStore(name, window.retentionMs, window.sizeMs, window.retainDuplicates)
    : Stores.persistentTimestampedWindowStore(name, window.retentionMs, window.sizeMs, window.retainDuplicates);
  const keys = materialized?.keySerde ?? keySerde;
  const values = materialized?.valueSerde ?? valueSerde;
  // Join stores keep every record, so their changelog must not be compacted (Kafka Streams sets `delete`).
  return window.retainDuplicates
    ? withLogging(Stores.windowStoreBuilder(supplier, keys, values), materialized, { 'cleanup.policy': 'delete' })
    : withLogging(withCaching(Stores.timestampedWindowStoreBuilder(supplier, keys, values), materialized), materialized);
}

/** The session store of a session aggregation. */
export function sessionStoreBuilder(
  name: string,
  materialized: Materialized<unknown, unknown> | undefined,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  retentionMs: number,
): StoreBuilder<StateStore> {
  const supplier =
    materialized?.storeType === 'in-memory' ? Stores.inMemorySessionStore(name, retentionMs) : Stores.persistentSessionStore(name, retentionMs);
  const builder = Stores.sessionStoreBuilder(supplier, materialized?.keySerde ?? keySerde, materialized?.valueSerde ?? valueSerde);
  return withLogging(withCaching(builder, materialized), materialized);
}

/** The topics whose records reach a node: what a join must declare co-partitioned. */
export function sourceTopicsOf(ctx: DslContext, nodeName: string): string[] {
  const topics = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const definition = ctx.topology.node(name);
    if (definition === undefined) return;
    if (definition.kind === 'source') for (const topic of definition.topics) topics.add(topic);
    else for (const parent of definition.parents) visit(parent);
  };
  visit(nodeName);
  return [...topics];
}

/** Declares the topics that feed nodes that must be co-partitioned (the inputs of a join or a cogroup) so. */
export function copartition(ctx: DslContext, ...nodes: string[]): void {
  const topics = [...new Set(nodes.flatMap((node) => sourceTopicsOf(ctx, node)))];
  if (topics.length > 1) ctx.topology.copartition(topics);
}

/** A name Kafka Streams generated for a stream's node or store (`KSTREAM-…-0000000003`), as its repartitions tell them apart. */
const GENERATED_STREAM_NAME = /^KSTREAM.*-[0-9]{10}$/;

/** The topic and node names of a repartition. */
export interface RepartitionNames {
  topic: string;
  sink: string;
  filter: string;
  source: string;
}

/**
 * The names of a repartition through `<base>-repartition`. As in Kafka Streams, the three nodes always take a
 * generated name's index (sink, filter, source), and keep the generated names only when the base name is itself
 * generated; otherwise they are named after the topic.
 */
export function repartitionNames(ctx: DslContext, base: string): RepartitionNames {
  const topic = `${base}-repartition`;
  const generated = { sink: ctx.names.processor('KSTREAM-SINK-'), filter: ctx.names.processor('KSTREAM-FILTER-'), source: ctx.names.processor('KSTREAM-SOURCE-') };
  return { topic, ...(GENERATED_STREAM_NAME.test(base) ? generated : { sink: `${topic}-sink`, filter: `${topic}-filter`, source: `${topic}-source` }) };
}

/**
 * Inserts a repartition topic after `parent`: a null-key filter, a sink to the topic and a source reading it back.
 * Returns the source's name.
 */
export function addRepartitionNodes(
  ctx: DslContext,
  parent: string,
  { topic, sink, filter, source }: RepartitionNames,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  numberOfPartitions?: number,
): string {
  const serdes = { ...(keySerde ? { keySerde } : {}), ...(valueSerde ? { valueSerde } : {}) };
  ctx.topology
    .addInternalTopic({ name: topic, ...(numberOfPartitions ? { numberOfPartitions } : {}) })
    .addProcessor(filter, nullKeyFilterProcessor(), parent)
    .addSink(sink, topic, serdes, filter)
    .addSource(source, topic, serdes);
  return source;
}

/** Inserts a repartition through `<base>-repartition` after `parent`; returns the source's name. */
export function addRepartition(
  ctx: DslContext,
  parent: string,
  base: string,
  keySerde: Serde<unknown> | undefined,
  valueSerde: Serde<unknown> | undefined,
  numberOfPartitions?: number,
): string {
  return addRepartitionNodes(ctx, parent, repartitionNames(ctx, base), keySerde, valueSerde, numberOfPartitions);
}
