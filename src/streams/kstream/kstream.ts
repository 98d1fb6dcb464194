import { TopologyException } from '../../errors';
import { fixedKeyProcessorNode } from '../processor/fixed-key-processor';
import type { FixedKeyProcessorSupplier, ProcessorSupplier, TopicNameExtractor } from '../processor/processor';
import type { Serde } from '../serdes/serde';
import type { KeyValue } from '../state/store';
import { KGroupedStream } from './kgrouped-stream';
import { KTable } from './ktable';
import { given, type Grouped, type Joined, type Materialized, type Named, type Produced, type Repartitioned, type StreamJoined } from './options';
import { JoinWindows } from './windows';
import type { DslContext } from './internals/dsl-context';
import type { StreamNode } from './internals/dsl-nodes';
import { addRepartition, processorName, storeName } from './internals/dsl-context';
import {
  branchProcessor,
  filterProcessor,
  flatMapProcessor,
  flatMapValuesProcessor,
  mapProcessor,
  mapValuesProcessor,
  passThroughProcessor,
  peekProcessor,
  publishEventProcessor,
  selectKeyProcessor,
} from './internals/stream-processors';
import { addTableSource } from './internals/table-source';
import type { Joiner } from './internals/join-processors';
import { streamGlobalTableJoin, streamStreamJoin, streamTableJoin } from './internals/join-builders';
import { GlobalKTable } from './global-ktable';

/**
 * A record stream (Kafka Streams' `KStream`). Every operation adds nodes to the topology and returns a new
 * stream; key-changing operations mark the stream so that a later grouping repartitions it.
 */
export class KStream<K, V> {
  /** @internal */
  constructor(
    readonly ctx: DslContext,
    /** Name of the node that produces this stream. */
    readonly nodeName: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly repartitionRequired: boolean,
  ) {}

  private derive<K2, V2>(
    prefix: string,
    named: Named | undefined,
    supplier: ProcessorSupplier<unknown, unknown, unknown, unknown>,
    keySerde: Serde<K2> | undefined,
    valueSerde: Serde<V2> | undefined,
    repartitionRequired: boolean,
  ): KStream<K2, V2> {
    const name = processorName(this.ctx, named?.name, prefix);
    this.ctx.topology.addProcessor(name, supplier, this.nodeName);
    return new KStream<K2, V2>(this.ctx, name, keySerde, valueSerde, repartitionRequired);
  }

  filter(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.derive('KSTREAM-FILTER-', named, filterProcessor(predicate, false), this.keySerde, this.valueSerde, this.repartitionRequired);
  }

  filterNot(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.derive('KSTREAM-FILTER-', named, filterProcessor(predicate, true), this.keySerde, this.valueSerde, this.repartitionRequired);
  }

  map<K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>, named?: Named): KStream<K2, V2> {
    return this.derive<K2, V2>('KSTREAM-MAP-', named, mapProcessor(mapper), undefined, undefined, true);
  }

  mapValues<V2>(mapper: (value: V, key: K) => V2, named?: Named): KStream<K, V2> {
    return this.derive<K, V2>('KSTREAM-MAPVALUES-', named, mapValuesProcessor(mapper), this.keySerde, undefined, this.repartitionRequired);
  }

  flatMap<K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>, named?: Named): KStream<K2, V2> {
    return this.derive<K2, V2>('KSTREAM-FLATMAP-', named, flatMapProcessor(mapper), undefined, undefined, true);
  }

  flatMapValues<V2>(mapper: (value: V, key: K) => Iterable<V2>, named?: Named): KStream<K, V2> {
    return this.derive<K, V2>(
      'KSTREAM-FLATMAPVALUES-',
      named,
      flatMapValuesProcessor(mapper),
      this.keySerde,
      undefined,
      this.repartitionRequired,
    );
  }

  selectKey<K2>(selector: (key: K, value: V) => K2, named?: Named): KStream<K2, V> {
    return this.derive<K2, V>('KSTREAM-KEY-SELECT-', named, selectKeyProcessor(selector), undefined, this.valueSerde, true);
  }

  peek(action: (key: K, value: V) => void, named?: Named): KStream<K, V> {
    return this.derive('KSTREAM-PEEK-', named, peekProcessor(action, true), this.keySerde, this.valueSerde, this.repartitionRequired);
  }

  /** Terminal: calls the action for every record. */
  foreach(action: (key: K, value: V) => void, named?: Named): void {
    this.derive('KSTREAM-FOREACH-', named, peekProcessor(action, false), this.keySerde, this.valueSerde, false);
  }

  /**
   * Terminal: publishes every record to the topology's event type `eventType`, which this declares: clients of the
   * node that processes the record receive it on `GET /api/v1/streams/{id}/subscribe/{eventType}`. Not in Kafka
   * Streams: Azkarra's event streams.
   */
  publishEvents(eventType: string, named?: Named): void {
    this.ctx.topology.addEventType(eventType);
    this.derive('KSTREAM-EVENTS-', named, publishEventProcessor(eventType), this.keySerde, this.valueSerde, false);
  }

  /**
   * Splits the stream: each record goes to the first branch whose predicate it matches. The branches are named
   * after the split: `<split name><branch name>`, or `<split name><position>` (the default branch: 0).
   */
  split(named?: Named): BranchedKStream<K, V> {
    return new BranchedKStream(this, processorName(this.ctx, named?.name, 'KSTREAM-BRANCH-'));
  }

  merge(other: KStream<K, V>, named?: Named): KStream<K, V> {
    const name = processorName(this.ctx, named?.name, 'KSTREAM-MERGE-');
    this.ctx.topology.addProcessor(name, passThroughProcessor(), this.nodeName, other.nodeName);
    return new KStream<K, V>(
      this.ctx,
      name,
      this.keySerde,
      this.valueSerde,
      this.repartitionRequired || other.repartitionRequired,
    );
  }

  /** Writes the stream to a topic, fixed or chosen per record. */
  to(topic: string | TopicNameExtractor<K, V>, produced: Produced<K, V> = {}): void {
    const name = processorName(this.ctx, produced.name, 'KSTREAM-SINK-');
    const keySerde = produced.keySerde ?? this.keySerde;
    const valueSerde = produced.valueSerde ?? this.valueSerde;
    this.ctx.topology.addSink<K, V>(
      name,
      topic,
      {
        ...(keySerde ? { keySerde } : {}),
        ...(valueSerde ? { valueSerde } : {}),
        ...(produced.partitioner ? { partitioner: produced.partitioner } : {}),
      },
      this.nodeName,
    );
  }

  /** Writes the stream through a repartition topic and reads it back (Kafka Streams' `repartition`). */
  repartition(repartitioned: Repartitioned<K, V> = {}): KStream<K, V> {
    const base = repartitioned.name ?? this.ctx.names.processor('KSTREAM-REPARTITION-');
    const keySerde = repartitioned.keySerde ?? this.keySerde;
    const valueSerde = repartitioned.valueSerde ?? this.valueSerde;
    const source = addRepartition(
      this.ctx,
      this.nodeName,
      base,
      keySerde as Serde<unknown> | undefined,
      valueSerde as Serde<unknown> | undefined,
      repartitioned.numberOfPartitions,
    );
    return new KStream<K, V>(this.ctx, source, keySerde, valueSerde, false);
  }

  /**
   * Upserts each record into a table (null values delete). A stream whose key changed goes through
   * `<name>-repartition` first. The table is kept in a store when `materialized` names one, or when an operation
   * needs it (a join, groupBy, suppress).
   */
  toTable(named?: Named, materialized?: Materialized<K, V>): KTable<K, V> {
    const name = processorName(this.ctx, named?.name, 'KSTREAM-TOTABLE-');
    const store = storeName(this.ctx, materialized as Materialized<unknown, unknown>, 'KSTREAM-TOTABLE-');
    const keySerde = materialized?.keySerde ?? this.keySerde;
    const valueSerde = materialized?.valueSerde ?? this.valueSerde;
    const parent = this.repartitionRequired
      ? addRepartition(this.ctx, this.nodeName, name, keySerde as Serde<unknown> | undefined, valueSerde as Serde<unknown> | undefined)
      : this.nodeName;
    return new KTable(addTableSource(this.ctx, name, parent, store.name, materialized, keySerde, valueSerde));
  }

  groupByKey(grouped: Grouped<K, V> = {}): KGroupedStream<K, V> {
    return new KGroupedStream<K, V>(
      this,
      grouped.keySerde ?? this.keySerde,
      grouped.valueSerde ?? this.valueSerde,
      grouped.name,
      this.repartitionRequired,
    );
  }

  /** Groups by a new key; the grouping repartitions the stream. */
  groupBy<K2>(selector: (key: K, value: V) => K2, grouped: Grouped<K2, V> = {}): KGroupedStream<K2, V> {
    // Kafka Streams names the key selection after the grouping.
    const selected = this.selectKey(selector, grouped.name === undefined ? undefined : { name: grouped.name });
    return new KGroupedStream<K2, V>(
      selected,
      grouped.keySerde,
      grouped.valueSerde ?? this.valueSerde,
      grouped.name,
      true,
    );
  }

  /**
   * Inner join with a table: each record (not the table's updates) is joined with the table's current value of its
   * key, and dropped when there is none.
   */
  join<VO, VR>(table: KTable<K, VO>, joiner: (value: V, tableValue: VO, key: K) => VR, joined?: Joined<K, V, VO>): KStream<K, VR>;
  /** Inner join with another stream: each pair of records of the same key within the join window. */
  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, otherValue: VO, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  /**
   * Inner join with a global table: each record is joined with the table's value of the key `keySelector` computes
   * from it, and dropped when there is none.
   */
  join<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: (key: K, value: V) => GK,
    joiner: (value: V, globalValue: GV, key: K) => VR,
    named?: Named,
  ): KStream<K, VR>;
  join<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO> | GlobalKTable<unknown, VO>,
    second: ((value: V, otherValue: VO, key: K) => VR) | ((key: K, value: V) => unknown),
    third?: Joined<K, V, VO> | JoinWindows | ((value: V, otherValue: VO, key: K) => VR),
    fourth?: StreamJoined<K, V, VO> | Named,
  ): KStream<K, VR> {
    if (other instanceof GlobalKTable) {
      return streamOf(streamGlobalTableJoin(this, other, second as (key: K, value: V) => unknown, third as Joiner<K, V, VO, VR>, fourth as Named | undefined, false));
    }
    return this.doJoin(other, second as Joiner<K, V, VO, VR>, third as Joined<K, V, VO> | JoinWindows | undefined, fourth as StreamJoined<K, V, VO> | undefined, false, false);
  }

  /** Left join with a table: records without a table value are joined with null. */
  leftJoin<VO, VR>(table: KTable<K, VO>, joiner: (value: V, tableValue: VO | null, key: K) => VR, joined?: Joined<K, V, VO>): KStream<K, VR>;
  /** Left join with another stream: records without a match in the window are joined with null once it closes. */
  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, otherValue: VO | null, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>;
  /** Left join with a global table: records whose computed key has no value in it are joined with null. */
  leftJoin<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: (key: K, value: V) => GK,
    joiner: (value: V, globalValue: GV | null, key: K) => VR,
    named?: Named,
  ): KStream<K, VR>;
  leftJoin<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO> | GlobalKTable<unknown, VO>,
    second: ((value: V, otherValue: VO | null, key: K) => VR) | ((key: K, value: V) => unknown),
    third?: Joined<K, V, VO> | JoinWindows | ((value: V, otherValue: VO | null, key: K) => VR),
    fourth?: StreamJoined<K, V, VO> | Named,
  ): KStream<K, VR> {
    if (other instanceof GlobalKTable) {
      return streamOf(streamGlobalTableJoin(this, other, second as (key: K, value: V) => unknown, third as Joiner<K, V, VO, VR>, fourth as Named | undefined, true));
    }
    return this.doJoin(other, second as Joiner<K, V, VO, VR>, third as Joined<K, V, VO> | JoinWindows | undefined, fourth as StreamJoined<K, V, VO> | undefined, true, false);
  }

  /** Outer join with another stream: records of either side without a match are joined with null once the window closes. */
  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V | null, otherValue: VO | null, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR> {
    return this.doJoin(other, joiner, windows, joined, true, true);
  }

  private doJoin<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO>,
    joiner: Joiner<K, V, VO, VR>,
    options: Joined<K, V, VO> | JoinWindows | undefined,
    joined: StreamJoined<K, V, VO> | undefined,
    leftOuter: boolean,
    rightOuter: boolean,
  ): KStream<K, VR> {
    if (other instanceof KTable) {
      if (options instanceof JoinWindows) throw new TopologyException('a stream-table join takes no join windows');
      return streamOf(streamTableJoin(this, other, joiner, options ?? {}, leftOuter));
    }
    if (!(options instanceof JoinWindows)) throw new TopologyException('a stream-stream join needs JoinWindows');
    return streamOf(streamStreamJoin(this, other, joiner, options, joined ?? {}, leftOuter, rightOuter));
  }

  /**
   * Runs a Processor API processor on the stream, connected to the named stores; what it forwards is the new
   * stream. It may change keys, so a later grouping or join repartitions.
   */
  process<K2, V2>(supplier: ProcessorSupplier<K, V, K2, V2>, options: ProcessOptions = {}): KStream<K2, V2> {
    const name = this.addProcessNode('KSTREAM-PROCESSOR-', supplier as ProcessorSupplier, options);
    return new KStream<K2, V2>(this.ctx, name, undefined, undefined, true);
  }

  /**
   * Runs a fixed-key processor on the stream (Kafka Streams' `processValues`, KIP-820), connected to the named
   * stores: it may change values, timestamps and headers but not keys, so the stream needs no repartition after it.
   */
  processValues<V2>(supplier: FixedKeyProcessorSupplier<K, V, V2>, options: ProcessOptions = {}): KStream<K, V2> {
    const name = this.addProcessNode('KSTREAM-PROCESSVALUES-', fixedKeyProcessorNode(supplier) as ProcessorSupplier, options);
    return new KStream<K, V2>(this.ctx, name, this.keySerde, undefined, this.repartitionRequired);
  }

  private addProcessNode(prefix: string, supplier: ProcessorSupplier, options: ProcessOptions): string {
    // A processor's own name takes no index (Kafka Streams' KStreamImpl.process and processValues).
    const name = options.name ?? this.ctx.names.processor(prefix);
    this.ctx.topology.addProcessor(name, supplier, this.nodeName);
    if (options.stores && options.stores.length > 0) {
      this.ctx.topology.connectProcessorAndStateStores(name, ...options.stores);
    }
    return name;
  }
}

/** The public stream of a node the internals made. */
function streamOf<K, V>(node: StreamNode<K, V>): KStream<K, V> {
  return new KStream(node.ctx, node.nodeName, node.keySerde, node.valueSerde, node.repartitionRequired);
}

/** The name of a `process`/`processValues` node, and the stores its processor uses. */
export interface ProcessOptions {
  name?: string;
  stores?: string[];
}

/** One branch of `split()` (Kafka Streams' `Branched`). */
export interface Branched<K, V> {
  name?: string;
  /** Continues the branch; what it returns (if anything) is the branch's stream in the result map. */
  chain?: (stream: KStream<K, V>) => KStream<K, V> | void;
}

/**
 * Kafka Streams' `Branched` factories. A function's stream (if it returns one) is the branch's entry in the result
 * map; a consumer's branch has none.
 */
export const Branched = {
  as<K, V>(name: string): Branched<K, V> {
    return { name };
  },
  withFunction<K, V>(chain: (stream: KStream<K, V>) => KStream<K, V> | void, name?: string): Branched<K, V> {
    return given({ chain, name });
  },
  withConsumer<K, V>(consumer: (stream: KStream<K, V>) => void, name?: string): Branched<K, V> {
    return given({ chain: (stream: KStream<K, V>) => void consumer(stream), name });
  },
};

/**
 * The branches of `KStream.split()` (Kafka Streams' `BranchedKStream`). The split's processor is added at once and
 * each branch as it is declared, so names are drawn in Kafka Streams' order; the result map is keyed by branch name.
 */
export class BranchedKStream<K, V> {
  /** Read by the split's processor when it runs, so branches declared later are seen. */
  private readonly branches: { child: string; predicate?: (key: K, value: V) => boolean }[] = [];
  private readonly result = new Map<string, KStream<K, V>>();
  private predicates = 0;
  private closed = false;

  constructor(
    private readonly parent: KStream<K, V>,
    private readonly splitName: string,
  ) {
    parent.ctx.topology.addProcessor(splitName, branchProcessor(this.branches), parent.nodeName);
  }

  branch(predicate: (key: K, value: V) => boolean, branched: Branched<K, V> = {}): this {
    this.add(predicate, branched, ++this.predicates);
    return this;
  }

  /** Records that match no branch; the result map is complete after this. */
  defaultBranch(branched: Branched<K, V> = {}): Map<string, KStream<K, V>> {
    this.add(undefined, branched, 0);
    this.closed = true;
    return this.result;
  }

  noDefaultBranch(): Map<string, KStream<K, V>> {
    this.closed = true;
    return this.result;
  }

  private add(predicate: ((key: K, value: V) => boolean) | undefined, branched: Branched<K, V>, position: number): void {
    if (this.closed) throw new TopologyException('split() is already finished');
    const ctx = this.parent.ctx;
    const child = this.splitName + (branched.name ?? String(position));
    // Kafka Streams draws a generated name for every branch, though the branch keeps its own.
    ctx.names.processor(child);
    this.branches.push({ child, ...(predicate ? { predicate } : {}) });
    ctx.topology.addProcessor(child, passThroughProcessor(), this.splitName);
    const stream = new KStream<K, V>(ctx, child, this.parent.keySerde, this.parent.valueSerde, this.parent.repartitionRequired);
    const chained = branched.chain ? branched.chain(stream) : stream;
    if (chained) this.result.set(child, chained);
  }
}
