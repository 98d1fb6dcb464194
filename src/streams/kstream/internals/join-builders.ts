import { TopologyException } from '../../../errors';
import type { Serde } from '../../serdes/serde';
import { Serdes } from '../../serdes/serdes';
import type { GlobalKTable } from '../global-ktable';
import type { ForeignKeyJoined, Joined, Materialized, Named, StreamJoined } from '../options';
import type { JoinWindows } from '../windows';
import type { JoinableTable, StreamNode, TableNode } from './dsl-nodes';
import { addRepartitionNodes, copartition, keyValueStoreBuilder, processorName, repartitionNames, storeName, windowStoreBuilder, withLogging } from './dsl-context';
import {
  type JoinGrace,
  type Joiner,
  reverseJoiner,
  streamTableJoinProcessor,
  type TableJoinKind,
  tableTableJoinGetter,
  tableTableJoinProcessor,
} from './join-processors';
import { joinBufferBuilder } from './stream-table-join-buffer';
import {
  foreignTableJoinProcessor,
  responseJoinProcessor,
  responsePartitioner,
  responseSerde,
  subscriptionJoinProcessor,
  subscriptionReceiveProcessor,
  subscriptionSendProcessor,
  subscriptionSerde,
  subscriptionStoreBuilder,
} from './foreign-key-join';
import { joinWindowProcessor, outerJoinStoreBuilder, SharedTimeTrackers, streamStreamJoinProcessor } from './stream-stream-join';
import { passThroughProcessor } from './stream-processors';
import { tableMapValuesProcessor } from './table-processors';
import { addTableSource } from './table-source';
import type { ValueGetterSupplier } from './value-getters';

/**
 * How the DSL wires joins into the topology, with Kafka Streams' node and store names. Both inputs of a join must
 * be co-partitioned: their source topics are declared so, and the runtime refuses to start when their partition
 * counts differ. A stream whose key was changed is repartitioned first.
 */

function getterOf<K, V>(table: JoinableTable<K, V>, role: string): ValueGetterSupplier<K, V> {
  const getter = table.valueGetterSupplier();
  if (getter === undefined) {
    throw new TopologyException(`the ${role} table (node '${table.nodeName}') cannot be joined: its values cannot be read (a suppressed table)`);
  }
  return getter;
}

/**
 * The repartition each stream last made for a join (Kafka Streams' `KStreamImpl.repartitionNode`): a later join of
 * the same stream under the stream's own name reads from it instead of adding another topic.
 */
const joinRepartitions = new WeakMap<StreamNode<unknown, unknown>, string>();

/** The stream itself, or (when its key changed) the stream read back from `<name>-repartition`. */
function repartitionedForJoin<K, V>(
  stream: StreamNode<K, V>,
  name: string | undefined,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
): StreamNode<K, V> {
  if (!stream.repartitionRequired) return stream;
  const keys = keySerde ?? stream.keySerde;
  const values = valueSerde ?? stream.valueSerde;
  const base = name ?? stream.nodeName;
  // The names are drawn even when an earlier repartition is reused: their indices are burnt all the same.
  const names = repartitionNames(stream.ctx, base);
  const earlier = joinRepartitions.get(stream as StreamNode<unknown, unknown>);
  const source =
    earlier !== undefined && base === stream.nodeName
      ? earlier
      : addRepartitionNodes(stream.ctx, stream.nodeName, names, keys as Serde<unknown> | undefined, values as Serde<unknown> | undefined);
  joinRepartitions.set(stream as StreamNode<unknown, unknown>, source);
  return { ctx: stream.ctx, nodeName: source, keySerde: keys, valueSerde: values, repartitionRequired: false };
}

/** A join's grace period, checked: only a versioned table can be read as of a buffered record's time (KIP-923). */
function joinGrace(getter: { readonly versioned?: boolean }, name: string, graceMs: number | undefined): JoinGrace | undefined {
  if (graceMs === undefined) return undefined;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) throw new TopologyException(`the grace period of join ${name} must be a non-negative integer of ms, got ${graceMs}`);
  if (!getter.versioned) throw new TopologyException(`join ${name}: the table must be versioned to use a grace period in a stream-table join`);
  return { storeName: `${name}-Buffer`, graceMs };
}

/**
 * KStream-KTable join: `KSTREAM-JOIN-`/`KSTREAM-LEFTJOIN-`, reading the table through its value getter; with a grace
 * period, the stream records wait in the store `<name>-Buffer`.
 */
export function streamTableJoin<K, V, VT, VR>(
  stream: StreamNode<K, V>,
  table: JoinableTable<K, VT>,
  joiner: Joiner<K, V, VT, VR>,
  joined: Joined<K, V, VT>,
  leftJoin: boolean,
): StreamNode<K, VR> {
  const ctx = stream.ctx;
  const getter = getterOf(table, 'joined');
  const input = repartitionedForJoin(stream, joined.name, joined.keySerde, joined.valueSerde);
  const name = processorName(ctx, joined.name, leftJoin ? 'KSTREAM-LEFTJOIN-' : 'KSTREAM-JOIN-');
  const grace = joinGrace(getter, name, joined.gracePeriodMs);
  ctx.topology.addProcessor(name, streamTableJoinProcessor(getter, joiner, leftJoin, undefined, grace), input.nodeName);
  ctx.topology.connectProcessorAndStateStores(name, ...getter.storeNames);
  if (grace !== undefined) {
    ctx.topology.addStateStore(
      joinBufferBuilder(grace.storeName, (joined.keySerde ?? input.keySerde) as Serde<unknown> | undefined, (joined.valueSerde ?? input.valueSerde) as Serde<unknown> | undefined),
      name,
    );
  }
  copartition(ctx, input.nodeName, table.nodeName);
  return { ctx, nodeName: name, keySerde: input.keySerde, valueSerde: undefined, repartitionRequired: false };
}

/**
 * KStream-GlobalKTable join: each record joins the global table's value of the key `keySelector` computes. Named
 * `KSTREAM-LEFTJOIN-` for inner joins too, as Kafka Streams names both; the global store is read without being
 * connected, and the stream is neither repartitioned nor co-partitioned.
 */
export function streamGlobalTableJoin<K, V, GK, GV, VR>(
  stream: StreamNode<K, V>,
  table: GlobalKTable<GK, GV>,
  keySelector: (key: K, value: V) => GK,
  joiner: Joiner<K, V, GV, VR>,
  named: Named | undefined,
  leftJoin: boolean,
): StreamNode<K, VR> {
  const ctx = stream.ctx;
  const name = processorName(ctx, named?.name, 'KSTREAM-LEFTJOIN-');
  ctx.topology.addProcessor(name, streamTableJoinProcessor(table.valueGetterSupplier, joiner, leftJoin, keySelector), stream.nodeName);
  return { ctx, nodeName: name, keySerde: stream.keySerde, valueSerde: undefined, repartitionRequired: stream.repartitionRequired };
}

/**
 * KStream-KStream join (Kafka Streams' `KStreamImplJoin`): each side is written to its window store
 * (`KSTREAM-WINDOWED-`), joined against the other side's store (`KSTREAM-JOINTHIS-`/`-JOINOTHER-`, or `-OUTERTHIS-`/
 * `-OUTEROTHER-` for the sides whose non-joined records are emitted), and both results merged (`KSTREAM-MERGE-`).
 */
export function streamStreamJoin<K, V1, V2, VR>(
  left: StreamNode<K, V1>,
  right: StreamNode<K, V2>,
  joiner: Joiner<K, V1, V2, VR>,
  windows: JoinWindows,
  joined: StreamJoined<K, V1, V2>,
  leftOuter: boolean,
  rightOuter: boolean,
): StreamNode<K, VR> {
  const ctx = left.ctx;
  const named = joined.name;
  const thisStream = repartitionedForJoin(left, named && `${named}-left`, joined.keySerde, joined.valueSerde);
  const otherStream = repartitionedForJoin(right, named && `${named}-right`, joined.keySerde, joined.otherValueSerde);
  const thisWindowed = processorName(ctx, named && `${named}-this-windowed`, 'KSTREAM-WINDOWED-');
  const otherWindowed = processorName(ctx, named && `${named}-other-windowed`, 'KSTREAM-WINDOWED-');
  const thisPrefix = rightOuter ? 'KSTREAM-OUTERTHIS-' : 'KSTREAM-JOINTHIS-';
  const joinThisGenerated = ctx.names.processor(thisPrefix);
  const joinOtherGenerated = ctx.names.processor(leftOuter ? 'KSTREAM-OUTEROTHER-' : 'KSTREAM-JOINOTHER-');
  const thisSuffix = rightOuter ? '-outer-this-join' : '-this-join';
  const otherSuffix = leftOuter ? '-outer-other-join' : '-other-join';
  const joinThis = named ? named + thisSuffix : joinThisGenerated;
  const joinOther = named ? named + otherSuffix : joinOtherGenerated;
  const merge = processorName(ctx, named && `${named}-merge`, 'KSTREAM-MERGE-');
  const base = joined.storeName;
  const thisStore = `${base ? base + thisSuffix : joinThisGenerated}-store`;
  const otherStore = `${base ? base + otherSuffix : joinOtherGenerated}-store`;
  const outerStore = leftOuter
    ? `${base ? base + (rightOuter ? '-outer-shared-join' : '-left-shared-join') : 'KSTREAM-OUTERSHARED-' + joinThisGenerated.slice(thisPrefix.length)}-store`
    : undefined;

  const trackers = new SharedTimeTrackers();
  const common = { outerStore, windows, trackers };
  const topology = ctx.topology;
  topology
    .addProcessor(thisWindowed, joinWindowProcessor(thisStore), thisStream.nodeName)
    .addProcessor(otherWindowed, joinWindowProcessor(otherStore), otherStream.nodeName)
    .addProcessor(
      joinThis,
      streamStreamJoinProcessor({ ...common, otherStore, outer: leftOuter, isLeft: true, before: windows.beforeMs, after: windows.afterMs, joiner }),
      thisWindowed,
    )
    .addProcessor(
      joinOther,
      streamStreamJoinProcessor({
        ...common,
        otherStore: thisStore,
        outer: rightOuter,
        isLeft: false,
        before: windows.afterMs,
        after: windows.beforeMs,
        joiner: reverseJoiner(joiner),
      }),
      otherWindowed,
    )
    .addProcessor(merge, passThroughProcessor(), joinThis, joinOther);

  const keySerde = (joined.keySerde ?? thisStream.keySerde) as Serde<unknown> | undefined;
  const leftSerde = (joined.valueSerde ?? thisStream.valueSerde) as Serde<unknown> | undefined;
  const rightSerde = (joined.otherValueSerde ?? otherStream.valueSerde) as Serde<unknown> | undefined;
  const materialized: Materialized<unknown, unknown> = {
    ...(joined.storeType ? { storeType: joined.storeType } : {}),
    ...(joined.loggingEnabled === undefined ? {} : { loggingEnabled: joined.loggingEnabled }),
    ...(joined.logConfig ? { logConfig: joined.logConfig } : {}),
  };
  // Records are kept for the join window plus grace, one window store "window" per record, duplicates and all.
  const window = { retentionMs: windows.sizeMs + windows.graceMs, sizeMs: windows.sizeMs, retainDuplicates: true };
  topology
    .addStateStore(windowStoreBuilder(thisStore, materialized, keySerde, leftSerde, window), thisWindowed, joinOther)
    .addStateStore(windowStoreBuilder(otherStore, materialized, keySerde, rightSerde, window), otherWindowed, joinThis);
  if (outerStore !== undefined) {
    const persistent = joined.storeType !== 'in-memory';
    topology.addStateStore(withLogging(outerJoinStoreBuilder(outerStore, persistent, keySerde, leftSerde, rightSerde), materialized), joinThis, joinOther);
  }
  copartition(ctx, thisStream.nodeName, otherStream.nodeName);
  return { ctx, nodeName: merge, keySerde: thisStream.keySerde, valueSerde: undefined, repartitionRequired: false };
}

/**
 * KTable-KTable join (Kafka Streams' `KTableImpl.doJoin`): each table's updates are joined with the other table's
 * current value (`KTABLE-JOINTHIS-`, `KTABLE-JOINOTHER-`) and merged (`KTABLE-MERGE-`), materialized when asked.
 * Left and outer joins need the old values of the outer sides, to send deletions.
 */
export function tableTableJoin<K, V1, V2, VR>(
  left: JoinableTable<K, V1>,
  right: JoinableTable<K, V2>,
  joiner: Joiner<K, V1, V2, VR>,
  kind: Exclude<TableJoinKind, 'right'>,
  named: Named | undefined,
  materialized: Materialized<K, VR> | undefined,
): TableNode<K, VR> {
  const ctx = left.ctx;
  const leftGetter = getterOf(left, 'left');
  const rightGetter = getterOf(right, 'right');
  const store = materialized ? storeName(ctx, materialized as Materialized<unknown, unknown>, 'KTABLE-MERGE-') : undefined;
  const merge = processorName(ctx, named?.name, 'KTABLE-MERGE-');
  if (kind !== 'inner') left.enableSendingOldValues();
  if (kind === 'outer') right.enableSendingOldValues();
  const joinThis = processorName(ctx, named?.name && `${named.name}-join-this`, 'KTABLE-JOINTHIS-');
  const joinOther = processorName(ctx, named?.name && `${named.name}-join-other`, 'KTABLE-JOINOTHER-');
  const oldValues = { send: false };
  const keySerde = materialized?.keySerde ?? left.keySerde;
  ctx.topology
    .addProcessor(joinThis, tableTableJoinProcessor(kind, rightGetter, joiner, oldValues), left.nodeName)
    .connectProcessorAndStateStores(joinThis, ...rightGetter.storeNames)
    .addProcessor(joinOther, tableTableJoinProcessor(kind === 'left' ? 'right' : kind, leftGetter, reverseJoiner(joiner), oldValues), right.nodeName)
    .connectProcessorAndStateStores(joinOther, ...leftGetter.storeNames)
    .addProcessor(merge, tableMapValuesProcessor<K, VR, VR>((value) => value, oldValues, store?.name), joinThis, joinOther);
  if (store) {
    ctx.topology.addStateStore(
      keyValueStoreBuilder(store.name, materialized as Materialized<unknown, unknown>, keySerde, materialized?.valueSerde),
      merge,
    );
  }
  copartition(ctx, left.nodeName, right.nodeName);
  return {
    ctx,
    nodeName: merge,
    keySerde,
    valueSerde: materialized?.valueSerde,
    queryableStoreName: store?.name,
    oldValues,
    upstreamOldValues: [...left.oldValuesSwitches(), ...right.oldValuesSwitches()],
    internals: store ? {} : { valueGetter: () => tableTableJoinGetter(kind, leftGetter, rightGetter, joiner) },
  };
}

/**
 * Foreign-key KTable-KTable join (Kafka Streams' `KTableImpl.doJoinOnForeignKey`): the left table's subscriptions
 * go through `<name>-subscription-registration-topic`, co-partitioned with the right table; the answers come back
 * through `<name>-subscription-response-topic`, co-partitioned with the left table, to a table source of the result.
 * Both tables send old values: the left to retract a changed foreign key, the right as Kafka Streams asks.
 */
export function foreignKeyJoin<K, V, KO, VO, VR>(
  left: JoinableTable<K, V>,
  right: JoinableTable<KO, VO>,
  extractor: (value: V, key: K) => KO | null | undefined,
  joiner: (value: V | null, foreignValue: VO | null) => VR,
  leftJoin: boolean,
  options: ForeignKeyJoined<K, VR>,
): TableNode<K, VR> {
  const ctx = left.ctx;
  right.enableSendingOldValues();
  left.enableSendingOldValues();
  // Kafka Streams' NamedInternal.suffixWithOrElseGet: the user's name and a suffix, or a generated name.
  const named = (suffix: string, prefix: string): string => processorName(ctx, options.name && options.name + suffix, prefix);
  const subscriptionTopic = `${named('-subscription-registration', 'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-')}-topic`;
  const send = named('-subscription-registration-processor', 'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-');
  const subscriptionSink = named('-subscription-registration-sink', 'KTABLE-SINK-');
  const subscriptionSource = named('-subscription-registration-source', 'KTABLE-SOURCE-');
  const store = named('-subscription-store', 'KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-');
  const receive = named('-subscription-receive', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-');
  const joinForeign = named('-subscription-join-foreign', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-');
  const foreignJoin = named('-foreign-join-subscription', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-');
  const responseTopic = `${named('-subscription-response', 'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-')}-topic`;
  const responseSink = named('-subscription-response-sink', 'KTABLE-SINK-');
  const responseSource = named('-subscription-response-source', 'KTABLE-SOURCE-');
  const resolver = named('-subscription-response-resolver', 'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-');
  const result = named('-result', 'KTABLE-FK-JOIN-OUTPUT-');
  const materialized = options.materialized;
  const resultStore = storeName(ctx, materialized as Materialized<unknown, unknown> | undefined, 'KTABLE-FK-JOIN-OUTPUT-').name;

  const rightGetter = getterOf(right, 'right');
  const leftGetter = getterOf(left, 'left');
  const serdes = { primaryKey: left.keySerde, value: left.valueSerde, foreignKey: right.keySerde };
  const subscriptions = { ...(right.keySerde ? { keySerde: right.keySerde } : {}), valueSerde: subscriptionSerde };
  const responses = { ...(left.keySerde ? { keySerde: left.keySerde } : {}), valueSerde: responseSerde(right.valueSerde) };
  ctx.topology
    .addInternalTopic({ name: subscriptionTopic })
    .addProcessor(send, subscriptionSendProcessor(extractor, leftJoin, serdes), left.nodeName)
    .addSink(subscriptionSink, subscriptionTopic, subscriptions, send)
    .addSource(subscriptionSource, subscriptionTopic, subscriptions)
    .addProcessor(receive, subscriptionReceiveProcessor(store, right.keySerde), subscriptionSource)
    .addStateStore(subscriptionStoreBuilder(store), receive)
    .addProcessor(joinForeign, subscriptionJoinProcessor(rightGetter), receive)
    .connectProcessorAndStateStores(joinForeign, ...rightGetter.storeNames)
    .addProcessor(foreignJoin, foreignTableJoinProcessor(store, right.keySerde), right.nodeName)
    .connectProcessorAndStateStores(foreignJoin, store)
    .addInternalTopic({ name: responseTopic })
    // Keyed by the serialized left key the subscription carried, sent to the left key's partition.
    .addSink(responseSink, responseTopic, { keySerde: Serdes.Bytes(), valueSerde: responses.valueSerde, partitioner: responsePartitioner }, joinForeign, foreignJoin)
    .addSource(responseSource, responseTopic, responses)
    .addProcessor(resolver, responseJoinProcessor(leftGetter, left.valueSerde, joiner, leftJoin), responseSource)
    .connectProcessorAndStateStores(resolver, ...leftGetter.storeNames);
  copartition(ctx, subscriptionSource, right.nodeName);
  copartition(ctx, responseSource, left.nodeName);
  const keySerde = materialized?.keySerde ?? left.keySerde;
  return addTableSource<K, VR>(ctx, result, resolver, resultStore, materialized, keySerde, materialized?.valueSerde);
}
