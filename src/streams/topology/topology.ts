import { TopologyException } from '../../errors';
import type { ProcessorSupplier, TopicNameExtractor } from '../processor/processor';
import type { StoreBuilder } from '../state/stores';
import type { StateStore } from '../state/store';
import type { NodeDescription, TopologyDescription } from './description';
import { describeAsText } from './description';
import { javaHashSetCopyOrder, javaHashSetOfListOrder, kafkaNodeLinks, type NodeLinks } from './kafka-order';
import type {
  NodeDefinition,
  ProcessorDefinition,
  RepartitionTopicDefinition,
  SinkDefinition,
  SinkOptions,
  SourceDefinition,
  SourceOptions,
} from './node-definitions';

/** One connected component of the processor graph: the unit that is instantiated once per partition (task). */
export interface Subtopology {
  readonly id: number;
  /** Node names in insertion order. */
  readonly nodes: readonly string[];
  /** Topics read by the sources, as written in the topology (internal ones without the application id). */
  readonly sourceTopics: readonly string[];
  readonly sourcePatterns: readonly RegExp[];
  readonly stores: readonly string[];
}

/**
 * A global store (Kafka Streams' `addGlobalStore`): every instance holds all of it, kept up to date from every
 * partition of its topic by its own source and processor, and any processor may read it without being connected.
 */
export interface GlobalStoreDefinition {
  readonly storeName: string;
  readonly sourceName: string;
  readonly processorName: string;
  readonly topic: string;
}

/** What an event type of a topology may be called: it is a path segment of the subscribe route. */
const EVENT_TYPE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** The instance's own event types (compatibility file, section 6). */
export const BUILT_IN_EVENT_TYPES = ['state', 'rebalance', 'restore', 'metrics', 'thread', 'timeline', 'memory'] as const;
/** Names a topology's event type may not take: the built-in ones and the overflow notice of a subscription. */
const RESERVED_EVENT_TYPES: readonly string[] = [...BUILT_IN_EVENT_TYPES, 'dropped'];

/**
 * A processing topology built with the Processor API (or by `StreamsBuilder`): sources, processors, sinks and
 * state stores. It knows nothing of Kafka or configuration; the runtime instantiates one copy of each
 * sub-topology per partition.
 */
export class Topology {
  private readonly definitions = new Map<string, NodeDefinition>();
  private readonly childNames = new Map<string, string[]>();
  private readonly storeBuilders = new Map<string, StoreBuilder<StateStore>>();
  private readonly storeProcessors = new Map<string, Set<string>>();
  private readonly internalTopics = new Map<string, RepartitionTopicDefinition>();
  private readonly copartitionGroups: string[][] = [];
  private readonly globalStoreDefinitions = new Map<string, GlobalStoreDefinition>();
  private readonly globalStoreBuilders = new Map<string, StoreBuilder<StateStore>>();
  private readonly declaredEventTypes = new Set<string>();
  private cachedGroups: { subtopologies: Subtopology[]; globalIds: Map<string, number> } | undefined;

  addSource<K, V>(name: string, topics: string | string[] | RegExp, options: SourceOptions<K, V> = {}): this {
    this.checkNewName(name);
    const pattern = topics instanceof RegExp ? topics : undefined;
    const topicList = pattern ? [] : Array.isArray(topics) ? topics : [topics as string];
    if (!pattern && topicList.length === 0) throw new TopologyException(`source '${name}' has no topic`);
    for (const topic of topicList) {
      for (const other of this.definitions.values()) {
        if (other.kind === 'source' && other.topics.includes(topic)) {
          throw new TopologyException(`topic '${topic}' is already read by source '${other.name}'`);
        }
      }
    }
    // The options first: a DSL `Consumed` carries a name of its own, which must not rename this node.
    const definition: SourceDefinition = {
      ...(options as SourceOptions),
      kind: 'source',
      name,
      topics: topicList,
      ...(pattern ? { pattern } : {}),
    };
    this.add(definition, []);
    return this;
  }

  addProcessor<KIn, VIn, KOut, VOut>(
    name: string,
    supplier: ProcessorSupplier<KIn, VIn, KOut, VOut>,
    ...parentNames: string[]
  ): this {
    this.checkNewName(name);
    this.checkParents(name, parentNames);
    const definition: ProcessorDefinition = {
      kind: 'processor',
      name,
      supplier: supplier as ProcessorSupplier<unknown, unknown, unknown, unknown>,
      parents: parentNames,
      stores: [],
    };
    this.add(definition, parentNames);
    return this;
  }

  addSink<K, V>(
    name: string,
    topic: string | TopicNameExtractor<K, V>,
    options: SinkOptions<K, V> = {},
    ...parentNames: string[]
  ): this {
    this.checkNewName(name);
    this.checkParents(name, parentNames);
    const definition: SinkDefinition = {
      kind: 'sink',
      name,
      topic: topic as string | TopicNameExtractor<unknown, unknown>,
      ...(options as SinkOptions),
      parents: parentNames,
    };
    this.add(definition, parentNames);
    return this;
  }

  /** Adds a store and connects it to the named processors. */
  addStateStore(builder: StoreBuilder<StateStore>, ...processorNames: string[]): this {
    this.checkNewStore(builder.name);
    this.invalidate();
    this.storeBuilders.set(builder.name, builder);
    this.storeProcessors.set(builder.name, new Set());
    if (processorNames.length > 0) this.connectProcessorAndStateStores(processorNames[0]!, builder.name);
    for (const processor of processorNames.slice(1)) this.connectProcessorAndStateStores(processor, builder.name);
    return this;
  }

  connectProcessorAndStateStores(processorName: string, ...storeNames: string[]): this {
    const definition = this.definitions.get(processorName);
    if (!definition || definition.kind !== 'processor') {
      throw new TopologyException(`'${processorName}' is not a processor of this topology`);
    }
    for (const store of storeNames) {
      const processors = this.storeProcessors.get(store);
      if (!processors) throw new TopologyException(`store '${store}' is not added to the topology`);
      processors.add(processorName);
      if (!definition.stores.includes(store)) definition.stores.push(store);
    }
    this.invalidate();
    return this;
  }

  /**
   * Adds a global store (Kafka Streams' `addGlobalStore`): `sourceName` reads every partition of `topic` and hands
   * the records to `processorName`, whose processor keeps the store up to date; what it forwards goes nowhere. The
   * store has no changelog: its topic is where it is restored from.
   */
  addGlobalStore<K, V>(
    builder: StoreBuilder<StateStore>,
    sourceName: string,
    options: SourceOptions<K, V>,
    topic: string,
    processorName: string,
    supplier: ProcessorSupplier<K, V, unknown, unknown>,
  ): this {
    this.checkNewStore(builder.name);
    if (builder.loggingEnabled) {
      throw new TopologyException(`global store '${builder.name}' must not have a changelog: it is restored from its topic '${topic}'`);
    }
    this.addSource(sourceName, topic, options);
    this.addProcessor(processorName, supplier, sourceName);
    (this.definitions.get(processorName) as ProcessorDefinition).stores.push(builder.name);
    this.globalStoreBuilders.set(builder.name, builder);
    this.globalStoreDefinitions.set(builder.name, { storeName: builder.name, sourceName, processorName, topic });
    return this;
  }

  /** Declares a topic that this topology writes and reads back (repartitioning); the runtime creates it. */
  addInternalTopic(definition: RepartitionTopicDefinition): this {
    this.internalTopics.set(definition.name, definition);
    this.invalidate();
    return this;
  }

  /** Declares topics that must have the same number of partitions (joins). */
  copartition(topics: string[]): this {
    this.copartitionGroups.push([...topics]);
    return this;
  }

  // ---- read side, used by the runtime, the test driver and the API ----

  node(name: string): NodeDefinition | undefined {
    return this.definitions.get(name);
  }

  nodes(): IterableIterator<NodeDefinition> {
    return this.definitions.values();
  }

  children(name: string): readonly string[] {
    return this.childNames.get(name) ?? [];
  }

  /**
   * Declares an event type of the topology: its processors publish records to it (`context.publishEvent`, or
   * `KStream.publishEvents`), and clients receive them on `GET /api/v1/streams/{id}/subscribe/{eventType}`.
   */
  addEventType(eventType: string): this {
    if (!EVENT_TYPE_NAME.test(eventType)) {
      throw new TopologyException(`event type '${eventType}' must be 1 to 64 letters, digits, '.', '_' or '-'`);
    }
    if (RESERVED_EVENT_TYPES.includes(eventType)) throw new TopologyException(`event type '${eventType}' is reserved: the built-in types and 'dropped' are the instance's own`);
    this.declaredEventTypes.add(eventType);
    return this;
  }

  /** The event types the topology declared. */
  eventTypes(): readonly string[] {
    return [...this.declaredEventTypes];
  }

  /** The stores of the sub-topologies (global stores are not among them). */
  stores(): IterableIterator<StoreBuilder<StateStore>> {
    return this.storeBuilders.values();
  }

  /** A store of a sub-topology, or a global store. */
  store(name: string): StoreBuilder<StateStore> | undefined {
    return this.storeBuilders.get(name) ?? this.globalStoreBuilders.get(name);
  }

  /** The global stores with the id of the sub-topology each forms (numbered among the others, as Kafka Streams does). */
  globalStores(): readonly (GlobalStoreDefinition & { readonly id: number })[] {
    const { globalIds } = this.groups();
    return [...this.globalStoreDefinitions.values()].map((definition) => ({ ...definition, id: globalIds.get(definition.storeName)! }));
  }

  repartitionTopics(): readonly RepartitionTopicDefinition[] {
    return [...this.internalTopics.values()];
  }

  isInternalTopic(topic: string): boolean {
    return this.internalTopics.has(topic);
  }

  copartitionedTopics(): readonly (readonly string[])[] {
    return this.copartitionGroups;
  }

  /**
   * Sub-topologies: connected components over parent links and shared stores, numbered in insertion order. Those of
   * global stores take their numbers too but are not among them: they make no tasks.
   */
  subtopologies(): readonly Subtopology[] {
    return this.groups().subtopologies;
  }

  private groups(): { subtopologies: Subtopology[]; globalIds: Map<string, number> } {
    if (this.cachedGroups) return this.cachedGroups;
    const parent = new Map<string, string>();
    const find = (name: string): string => {
      let root = name;
      while (parent.get(root) !== root) root = parent.get(root)!;
      parent.set(name, root);
      return root;
    };
    const unite = (a: string, b: string): void => {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent.set(rb, ra);
    };
    for (const name of this.definitions.keys()) parent.set(name, name);
    for (const definition of this.definitions.values()) {
      if (definition.kind !== 'source') for (const p of definition.parents) unite(p, definition.name);
    }
    for (const processors of this.storeProcessors.values()) {
      const [first, ...rest] = [...processors];
      if (first) for (const other of rest) unite(first, other);
    }
    const groups = new Map<string, string[]>();
    for (const name of this.definitions.keys()) {
      const root = find(name);
      const group = groups.get(root);
      if (group) group.push(name);
      else groups.set(root, [name]);
    }
    const globalByProcessor = new Map([...this.globalStoreDefinitions.values()].map((g) => [g.processorName, g.storeName]));
    const globalIds = new Map<string, number>();
    const subtopologies: Subtopology[] = [];
    [...groups.values()].forEach((nodes, id) => {
      const globalStore = nodes.map((name) => globalByProcessor.get(name)).find((store) => store !== undefined);
      if (globalStore !== undefined) {
        globalIds.set(globalStore, id);
        return;
      }
      const sourceTopics: string[] = [];
      const sourcePatterns: RegExp[] = [];
      const stores = new Set<string>();
      for (const name of nodes) {
        const definition = this.definitions.get(name)!;
        if (definition.kind === 'source') {
          sourceTopics.push(...definition.topics);
          if (definition.pattern) sourcePatterns.push(definition.pattern);
        } else if (definition.kind === 'processor') {
          for (const store of definition.stores) stores.add(store);
        }
      }
      subtopologies.push({ id, nodes, sourceTopics, sourcePatterns, stores: [...stores] });
    });
    this.cachedGroups = { subtopologies, globalIds };
    return this.cachedGroups;
  }

  /** The sub-topology that hosts a store, or undefined for an unknown store. */
  subtopologyOfStore(store: string): Subtopology | undefined {
    return this.subtopologies().find((s) => s.stores.includes(store));
  }

  /** The DAG as Kafka Streams' `describe()` gives it, neighbours and stores listed in Kafka Streams' order. */
  describe(): TopologyDescription {
    return {
      subTopologies: this.subtopologies().map((sub) => {
        const links = kafkaNodeLinks(sub.nodes.map((name) => ({ name, parents: this.parentsOf(name) })));
        return { id: sub.id, nodes: this.flowOrder(sub).map((n) => this.describeNode(n, links.get(n.name)!)) };
      }),
      globalStores: this.globalStores().map(({ id, sourceName, processorName }) => {
        const links = kafkaNodeLinks([sourceName, processorName].map((name) => ({ name, parents: this.parentsOf(name) })));
        return {
          id,
          source: this.describeNode(this.definitions.get(sourceName)!, links.get(sourceName)!),
          processor: this.describeNode(this.definitions.get(processorName)!, links.get(processorName)!),
        };
      }),
    };
  }

  toString(): string {
    return describeAsText(this.describe());
  }

  // ---- internals ----

  /** Nodes of a sub-topology sources first, each after all its predecessors (ties in insertion order). */
  private flowOrder(sub: Subtopology): NodeDefinition[] {
    const inDegree = new Map<string, number>();
    for (const name of sub.nodes) {
      const d = this.definitions.get(name)!;
      inDegree.set(name, d.kind === 'source' ? 0 : d.parents.length);
    }
    const ready = sub.nodes.filter((n) => inDegree.get(n) === 0);
    const ordered: NodeDefinition[] = [];
    while (ready.length > 0) {
      const name = ready.shift()!;
      ordered.push(this.definitions.get(name)!);
      for (const child of this.children(name)) {
        const left = inDegree.get(child)! - 1;
        inDegree.set(child, left);
        if (left === 0) ready.push(child);
      }
    }
    return ordered;
  }

  private parentsOf(name: string): readonly string[] {
    const definition = this.definitions.get(name)!;
    return definition.kind === 'source' ? [] : definition.parents;
  }

  private describeNode(definition: NodeDefinition, links: NodeLinks): NodeDescription {
    const { predecessors, successors } = links;
    if (definition.kind === 'source') {
      return {
        type: 'SOURCE',
        name: definition.name,
        predecessors,
        successors,
        topics: definition.pattern ? [String(definition.pattern)] : javaHashSetOfListOrder(definition.topics),
      };
    }
    if (definition.kind === 'sink') {
      return {
        type: 'SINK',
        name: definition.name,
        predecessors,
        successors,
        topic: typeof definition.topic === 'string' ? definition.topic : '<dynamic>',
      };
    }
    return { type: 'PROCESSOR', name: definition.name, predecessors, successors, stores: javaHashSetCopyOrder(definition.stores) };
  }

  private add(definition: NodeDefinition, parents: readonly string[]): void {
    this.invalidate();
    this.definitions.set(definition.name, definition);
    for (const p of parents) {
      const children = this.childNames.get(p);
      if (children) children.push(definition.name);
      else this.childNames.set(p, [definition.name]);
    }
  }

  private checkNewName(name: string): void {
    if (!name) throw new TopologyException('a node needs a name');
    if (this.definitions.has(name)) throw new TopologyException(`node '${name}' is already added`);
  }

  private checkParents(name: string, parents: readonly string[]): void {
    if (parents.length === 0) throw new TopologyException(`node '${name}' needs at least one parent`);
    for (const p of parents) {
      const parent = this.definitions.get(p);
      if (!parent) throw new TopologyException(`parent '${p}' of '${name}' is not in the topology`);
      if (parent.kind === 'sink') throw new TopologyException(`sink '${p}' cannot be the parent of '${name}'`);
      if (p === name) throw new TopologyException(`node '${name}' cannot be its own parent`);
    }
  }

  private checkNewStore(name: string): void {
    if (this.storeBuilders.has(name) || this.globalStoreBuilders.has(name)) throw new TopologyException(`store '${name}' is already added`);
  }

  private invalidate(): void {
    this.cachedGroups = undefined;
  }
}
