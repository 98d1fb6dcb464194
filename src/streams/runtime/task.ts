import { ConfigException, IllegalState, ProcessorException, SerdeNotReady, SerializationException, SluiceError, StreamsException, TopologyException } from '../../errors';
import type { Cancellable, Processor, ProcessorContext, PunctuationType, Punctuator } from '../processor/processor';
import type { Headers, RecordMetadata, StreamRecord } from '../processor/record';
import type { Serde, SerdeHeaders } from '../serdes/serde';
import { resolveSerde } from '../serdes/default-serde';
import { cacheMaxBytes, minFreeDiskBytes } from '../config/config-lookup';
import { type ChangelogRecord, type ChangelogRecords, isCachingStore, type StateStore, type StoreContext } from '../state/store';
import type { ThreadCache } from '../state/thread-cache';
import type { NodeDefinition, SinkDefinition, SourceDefinition } from '../topology/node-definitions';
import type { Subtopology, Topology } from '../topology/topology';
import { changelogTopicName } from '../topology/internal-topics';
import type { ConsumedRecord } from './consumed-record';
import { asError, type ConsumedErrorContext, deadLetterRecord, type ExceptionHandlers, type HandlerResponse } from './exception-handlers';
import { ProcessorNode, wrapNodeError } from './processor-node';
import { TopicPartitionMap } from '../kafka';
import { PunctuationQueue } from './punctuation-queue';
import type { RecordCollector } from './record-collector';
import type { TaskId } from './task-id';
import type { TopologyEvent } from './instance-view';
import { taskIdToString } from './task-id';

/** The headers of every changelog record: none, one frozen object rather than one per write. */
const NO_HEADERS: Headers = Object.freeze({});

/** One input partition's fetched records; those before `head` are processed. */
interface InputQueue {
  records: ConsumedRecord[];
  head: number;
}

/** Moves a queue's head; an emptied queue drops its records (the array is reused). */
function advance(queue: InputQueue, head: number): void {
  if (head === queue.records.length) {
    queue.records.length = 0;
    queue.head = 0;
  } else {
    queue.head = head;
  }
}

/** Everything a task needs from the runtime (or the test driver) that hosts it. */
export interface TaskEnvironment {
  readonly applicationId: string;
  /** A task that is no sub-topology on a partition (the global stores' task) is named so; else by its id. */
  readonly taskName?: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly defaultKeySerde: Serde<unknown>;
  readonly defaultValueSerde: Serde<unknown>;
  readonly collector: RecordCollector;
  /** The record cache of the thread the task runs on, which its caching stores share with the thread's other tasks'. */
  readonly cache: ThreadCache;
  /** `<state.dir>/<application.id>/<taskId>`. */
  readonly taskDir: string;
  /** The real topic name of a topic as written in the topology (internal topics get the application id). */
  resolveTopic(topic: string): string;
  /** The changelog topic of a store, or undefined when the store is not logged. */
  changelogTopic(store: string): string | undefined;
  /** What the task asks about a record it cannot deserialize, or a processor threw on. */
  readonly exceptionHandlers: Pick<ExceptionHandlers, 'deserialization' | 'processing'>;
  /** Where a record a handler skipped is sent (`errors.dead.letter.queue.topic.name`); undefined: nowhere. */
  readonly deadLetterQueueTopic?: string;
  /** Called for every record skipped (a handler's choice, invalid timestamp, late record); counted as dropped. */
  onDropped?(reason: string, record: RecordMetadata | undefined, error?: unknown): void;
  /** Called for every record sent to the dead-letter queue. */
  onDeadLetter?(): void;
  readonly configureStore?: StoreContext['configureStore'];
  /** Wraps each initialized store as processors and queries see it (metrics). */
  readonly meterStore?: (store: StateStore) => StateStore;
  /** Told of each store flush (its milliseconds) and each changelog batch restored into a store: the store's metrics. */
  readonly storeFlushed?: (store: string, ms: number) => void;
  readonly storeRestored?: (store: string, records: number) => void;
  readonly wallClock: () => number;
  /** The global stores, which every processor may read without being connected to them. */
  readonly globalStores?: ReadonlyMap<string, StateStore>;
  /** Where the records processors publish to the topology's event types go (the instance's `topologyEvent`). */
  readonly publishEvent?: (event: TopologyEvent) => void;
}

/**
 * A task: one sub-topology instantiated for one partition. It deserializes consumed records, runs them through
 * its processor graph one at a time in timestamp order across its input partitions, tracks stream time, runs
 * punctuations and knows which offsets it may commit. Used by the stream threads and by the test driver.
 */
export class StreamTask {
  readonly name: string;
  readonly stores = new Map<string, StateStore>();
  private readonly nodes = new Map<string, ProcessorNode>();
  private readonly sourceByTopic = new Map<string, ProcessorNode>();
  /** Per input partition: its fetched records and the index of the next one to process. */
  private readonly queues = new TopicPartitionMap<InputQueue>();
  /** Per input partition: the offset of the last record processed (or skipped past). */
  private readonly consumedOffsets = new TopicPartitionMap<number>();
  private readonly streamTimePunctuations = new PunctuationQueue<ProcessorNode>();
  private readonly wallClockPunctuations = new PunctuationQueue<ProcessorNode>();
  private readonly context: TaskProcessorContext;
  private streamTimeMs = -1;
  private commitRequested = false;
  private initialized = false;
  private closed = false;
  /** The consumed record being processed, which a processing failure is reported on. */
  private current: ConsumedRecord | undefined;
  /** Records processed since the task was created. */
  processedRecords = 0;
  droppedRecords = 0;

  constructor(
    readonly id: TaskId,
    readonly subtopology: Subtopology,
    private readonly topology: Topology,
    private readonly env: TaskEnvironment,
  ) {
    this.name = env.taskName ?? taskIdToString(id);
    this.context = new TaskProcessorContext(this, env, new Set(topology.eventTypes()));
  }

  /** Builds and opens the stores; the runtime restores them before `initializeProcessors`. */
  initializeStores(): void {
    for (const storeName of this.subtopology.stores) {
      const builder = this.topology.store(storeName);
      if (!builder) throw new TopologyException(`store '${storeName}' is not in the topology`);
      const changelog = this.env.changelogTopic(storeName);
      const store = builder.build(this.defaultSerdes(), { cachingAllowed: cacheMaxBytes(this.env.config) > 0, changelogTopic: this.storeSerdeTopic(storeName) });
      const storeContext: StoreContext = {
        applicationId: this.env.applicationId,
        taskId: this.name,
        taskDir: this.env.taskDir,
        loggingEnabled: changelog !== undefined,
        logChange: changelog === undefined ? () => undefined : this.changelogWriter(changelog),
        streamTime: () => this.streamTimeMs,
        recordTimestamp: () => this.context.currentTimestamp,
        recordHeaders: () => this.context.currentHeaders,
        cache: this.env.cache,
        minFreeDiskBytes: minFreeDiskBytes(this.env.config),
        ...(this.env.configureStore ? { configureStore: this.env.configureStore } : {}),
      };
      store.init(storeContext);
      this.stores.set(storeName, this.env.meterStore ? this.env.meterStore(store) : store);
    }
  }

  private defaultSerdes(): { keySerde: Serde<unknown>; valueSerde: Serde<unknown> } {
    return { keySerde: this.env.defaultKeySerde, valueSerde: this.env.defaultValueSerde };
  }

  /** The topic a store's serdes are called with: its changelog's name, logged or not, as in Kafka Streams. */
  private storeSerdeTopic(store: string): string {
    return this.env.changelogTopic(store) ?? changelogTopicName(this.env.applicationId, store);
  }

  /**
   * Has the serdes that look things up (`Serde.prepare`) resolve what they need for the task's topics and its stores'
   * changelogs, before any record passes; sinks to a topic chosen per record and pattern sources are left to first use.
   */
  async prepareSerdes(): Promise<void> {
    const config = this.env.config;
    const prepare = async (serde: Serde<unknown> | undefined, defaultSerde: Serde<unknown>, topic: string) => {
      const resolved = resolveSerde(serde, defaultSerde);
      if (resolved.prepare) await resolved.prepare(topic, config);
    };
    for (const name of this.subtopology.nodes) {
      const definition = this.topology.node(name)!;
      if (definition.kind === 'processor') continue;
      const topics = definition.kind === 'source' ? definition.topics : typeof definition.topic === 'string' ? [definition.topic] : [];
      for (const topic of topics) {
        await prepare(definition.keySerde, this.env.defaultKeySerde, this.env.resolveTopic(topic));
        await prepare(definition.valueSerde, this.env.defaultValueSerde, this.env.resolveTopic(topic));
      }
    }
    for (const storeName of this.subtopology.stores) {
      const serdes = this.topology.store(storeName)?.serdes?.(this.defaultSerdes());
      if (!serdes) continue;
      await prepare(serdes.keySerde, this.env.defaultKeySerde, this.storeSerdeTopic(storeName));
      await prepare(serdes.valueSerde, this.env.defaultValueSerde, this.storeSerdeTopic(storeName));
    }
  }

  /** Closes the stores opened so far and forgets them, so that `initializeStores` can open them afresh. */
  async closeStores(): Promise<void> {
    const stores = [...this.stores.values()];
    this.stores.clear();
    for (const store of stores) if (store.isOpen()) await store.close();
  }

  /** Instantiates the processor graph and runs every processor's `init`. */
  initializeProcessors(): void {
    if (this.initialized) return;
    for (const name of this.subtopology.nodes) {
      const definition = this.topology.node(name)!;
      const node = new ProcessorNode(definition, this.name, this.processorFor(definition));
      node.skipFailed = (failed, record, error) => this.skipFailedProcessing(failed, record, error);
      this.nodes.set(name, node);
      if (definition.kind === 'source') {
        node.keySerde = resolveSerde(definition.keySerde, this.env.defaultKeySerde);
        node.valueSerde = resolveSerde(definition.valueSerde, this.env.defaultValueSerde);
        for (const topic of definition.topics) this.sourceByTopic.set(this.env.resolveTopic(topic), node);
      }
    }
    for (const node of this.nodes.values()) {
      for (const child of this.topology.children(node.name)) {
        const childNode = this.nodes.get(child);
        if (childNode) node.addChild(childNode);
      }
    }
    for (const node of this.nodes.values()) {
      this.context.runAs(node, () => node.processor.init?.(this.context));
    }
    this.initialized = true;
  }

  /** The source node of a topic that matches a source pattern (topics matching a pattern are bound as they come). */
  private bindPatternTopic(topic: string): ProcessorNode | undefined {
    const definition = [...this.subtopology.nodes]
      .map((n) => this.topology.node(n)!)
      .find((d): d is SourceDefinition => d.kind === 'source' && d.pattern !== undefined && d.pattern.test(topic));
    const node = definition && this.nodes.get(definition.name);
    if (node) this.sourceByTopic.set(topic, node);
    return node;
  }

  /** Name of the source node that reads a (real) topic, or undefined. */
  sourceNodeName(topic: string): string | undefined {
    return (this.sourceByTopic.get(topic) ?? this.bindPatternTopic(topic))?.name;
  }

  addRecords(records: readonly ConsumedRecord[]): void {
    if (records.length === 0) return;
    const queue = this.queues.getOrCreate(records[0]!.topic, records[0]!.partition, () => ({ records: [], head: 0 }));
    for (const r of records) queue.records.push(r);
  }

  /** Records waiting to be processed. */
  get buffered(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.records.length - queue.head;
    return n;
  }

  /**
   * Processes the buffered record with the lowest timestamp among the heads of the input partitions (Kafka
   * Streams' choice, so joins see records in time order). Returns false when nothing is buffered.
   */
  processOne(): boolean {
    let bestQueue: InputQueue | undefined;
    let best: ConsumedRecord | undefined;
    for (const queue of this.queues.values()) {
      const record = queue.records[queue.head];
      if (record !== undefined && (best === undefined || record.timestamp < best.timestamp)) {
        best = record;
        bestQueue = queue;
      }
    }
    if (best === undefined || bestQueue === undefined) return false;
    try {
      this.processRecord(best);
    } catch (error) {
      // A record whose processing throws is not processed again, unless its serde was not ready.
      if (!(error instanceof SerdeNotReady)) advance(bestQueue, bestQueue.head + 1);
      throw error;
    }
    advance(bestQueue, bestQueue.head + 1);
    return true;
  }

  /** Processes buffered records, at most `limit` of them; returns how many (fewer than `limit`: none left). */
  process(limit = Infinity): number {
    if (this.queues.size === 1) return this.processSingleQueue(limit);
    let n = 0;
    while (n < limit && this.processOne()) n++;
    return n;
  }

  /** One input partition (most tasks): its records in offset order, without choosing among queues. */
  private processSingleQueue(limit: number): number {
    const queue = this.queues.values().next().value as InputQueue;
    const records = queue.records;
    let head = queue.head;
    let processed = 0;
    try {
      while (head < records.length && processed < limit) {
        // Advanced before processing: a record whose processing throws is not processed again.
        const record = records[head++]!;
        this.processRecord(record);
        processed++;
      }
    } catch (error) {
      // Unless its serde was not ready: then it is processed again.
      if (error instanceof SerdeNotReady) head--;
      throw error;
    } finally {
      advance(queue, head);
    }
    return processed;
  }

  private processRecord(consumed: ConsumedRecord): void {
    const source = this.sourceByTopic.get(consumed.topic) ?? this.bindPatternTopic(consumed.topic);
    if (!source) throw new IllegalState(`task ${this.name} has no source for topic ${consumed.topic}`);
    const definition = source.definition as SourceDefinition;
    let key: unknown;
    let value: unknown;
    try {
      // Read once: a fetched record makes its key and value views when they are read.
      const rawKey = consumed.key;
      const rawValue = consumed.value;
      const keySerde = source.keySerde!;
      const valueSerde = source.valueSerde!;
      key = rawKey === null ? null : keySerde.deserializeTopic ? keySerde.deserializeTopic(consumed.topic, consumed.headers, rawKey) : keySerde.deserialize(rawKey);
      value =
        rawValue === null ? null : valueSerde.deserializeTopic ? valueSerde.deserializeTopic(consumed.topic, consumed.headers, rawValue) : valueSerde.deserialize(rawValue);
    } catch (error) {
      // Not consumed: the task processes it again once the serde is ready.
      if (error instanceof SerdeNotReady) {
        error.record ??= { topic: consumed.topic, partition: consumed.partition, offset: consumed.offset };
        throw error;
      }
      // The serde's configuration, not the record (a registry refusing the credentials): the task fails, the record not consumed.
      if (error instanceof ConfigException) throw error;
      this.markConsumed(consumed);
      const reason = `cannot deserialize the record at ${consumed.topic}-${consumed.partition}@${consumed.offset}`;
      const cause = asError(error);
      const context = this.errorContext(consumed, source.name, consumed.timestamp);
      if (ask('deserialization', () => this.env.exceptionHandlers.deserialization(context, cause)) !== 'CONTINUE') {
        throw new SerializationException(`${reason}: ${cause.message}`, { cause: error });
      }
      this.skip(reason, context, cause);
      return;
    }
    this.markConsumed(consumed);
    let timestamp = consumed.timestamp;
    if (definition.timestampExtractor) {
      timestamp = definition.timestampExtractor(
        { topic: consumed.topic, partition: consumed.partition, offset: consumed.offset, timestamp, key, value },
        this.streamTimeMs,
      );
    }
    if (!(timestamp >= 0)) {
      this.drop(`invalid timestamp ${timestamp} at ${consumed.topic}-${consumed.partition}@${consumed.offset}`, consumed);
      return;
    }
    if (timestamp > this.streamTimeMs) this.streamTimeMs = timestamp;
    const context = this.context;
    const previousNode = context.currentNode;
    context.currentMetadata = consumed;
    context.currentTimestamp = timestamp;
    context.currentHeaders = consumed.headers;
    this.current = consumed;
    // runAs, written out: no closure for every record.
    context.currentNode = source;
    try {
      source.process({ key, value, timestamp, headers: consumed.headers });
    } finally {
      context.currentNode = previousNode;
      this.current = undefined;
      context.currentMetadata = undefined;
      context.currentTimestamp = undefined;
      context.currentHeaders = undefined;
    }
    this.processedRecords++;
    this.punctuateStreamTime();
  }

  /**
   * Whether the record a node's processor threw on is skipped at that node: the processing handler's choice, asked
   * only about errors of user code while a consumed record is processed (punctuations: below; not cache flushes, and
   * not errors Sluice raises itself, such as a failed send).
   */
  private skipFailedProcessing(node: ProcessorNode, record: StreamRecord<unknown, unknown>, error: unknown): boolean {
    const consumed = this.current;
    if (consumed === undefined || error instanceof SluiceError) return false;
    const cause = asError(error);
    const context = this.errorContext(consumed, node.name, record.timestamp);
    if (ask('processing', () => this.env.exceptionHandlers.processing(context, record, cause)) !== 'CONTINUE') return false;
    this.skip(`processor '${node.name}' failed on the record at ${consumed.topic}-${consumed.partition}@${consumed.offset}: ${cause.message}`, context, cause);
    return true;
  }

  /**
   * Whether a punctuator's error is let go: the processing handler's choice, asked with no record and no source, as
   * Kafka Streams asks it. What the punctuation was to do is dropped and counted; there is no record for a dead-letter
   * queue.
   */
  private skipFailedPunctuation(node: ProcessorNode, timestamp: number, error: unknown): boolean {
    if (error instanceof SluiceError) return false;
    const cause = asError(error);
    const context = { taskId: this.name, processorNodeId: node.name, topic: null, partition: -1, offset: -1, timestamp, headers: {}, sourceRawKey: null, sourceRawValue: null };
    if (ask('processing', () => this.env.exceptionHandlers.processing(context, null, cause)) !== 'CONTINUE') return false;
    this.drop(`punctuator of '${node.name}' failed at ${timestamp}: ${cause.message}`, undefined, cause);
    return true;
  }

  private errorContext(consumed: ConsumedRecord, processorNodeId: string, timestamp: number): ConsumedErrorContext {
    return {
      taskId: this.name,
      processorNodeId,
      topic: consumed.topic,
      partition: consumed.partition,
      offset: consumed.offset,
      timestamp,
      headers: consumed.headers,
      sourceRawKey: consumed.key,
      sourceRawValue: consumed.value,
    };
  }

  /** A record a handler skipped: dropped, and sent to the dead-letter queue when there is one. */
  private skip(reason: string, context: ConsumedErrorContext, error: Error): void {
    this.drop(reason, { topic: context.topic, partition: context.partition, offset: context.offset }, error);
    const topic = this.env.deadLetterQueueTopic;
    if (topic === undefined) return;
    this.env.collector.send(deadLetterRecord(topic, context, error));
    this.env.onDeadLetter?.();
  }

  /** Counts a skipped record (Kafka Streams' `dropped-records`) and reports it. */
  drop(reason: string, record: RecordMetadata | undefined, error?: unknown): void {
    this.droppedRecords++;
    this.env.onDropped?.(reason, record, error);
  }

  private markConsumed(record: ConsumedRecord): void {
    this.consumedOffsets.set(record.topic, record.partition, record.offset);
  }

  /**
   * Moves a partition's consumed offset up to `offset` once nothing of it waits to be processed: what lies between
   * the last processed record and `offset` are transaction markers and aborted records, which the consumer hides.
   * Committing past them, as Kafka Streams commits the consumer's position, leaves no lag after a transaction.
   * Answers the partition's consumed offset (undefined: none yet).
   */
  skipHiddenTo(topic: string, partition: number, offset: number): number | undefined {
    const consumed = this.consumedOffsets.get(topic, partition);
    const queue = this.queues.get(topic, partition);
    if (queue !== undefined && queue.head < queue.records.length) return consumed;
    const moved = Math.max(consumed ?? offset, offset);
    this.consumedOffsets.set(topic, partition, moved);
    return moved;
  }

  /** Last processed offset per input partition. */
  consumedPositions(): { topic: string; partition: number; offset: number }[] {
    return [...this.consumedOffsets.entries()].map(([tp, offset]) => ({ topic: tp.topic, partition: tp.partition, offset }));
  }

  get streamTime(): number {
    return this.streamTimeMs;
  }

  punctuateStreamTime(): boolean {
    if (this.streamTimePunctuations.size === 0 || this.streamTimeMs < 0) return false;
    return this.streamTimePunctuations.mayPunctuate(this.streamTimeMs, (node, punctuator, ts) =>
      this.punctuate(node, punctuator, ts),
    );
  }

  punctuateWallClock(now: number = this.env.wallClock()): boolean {
    if (this.wallClockPunctuations.size === 0) return false;
    return this.wallClockPunctuations.mayPunctuate(now, (node, punctuator, ts) => this.punctuate(node, punctuator, ts));
  }

  private punctuate(node: ProcessorNode, punctuator: Punctuator, timestamp: number): void {
    // As in Kafka Streams, what a punctuator writes carries the punctuation's timestamp.
    this.context.currentTimestamp = timestamp;
    try {
      this.context.runAs(node, () => {
        try {
          punctuator(timestamp);
        } catch (error) {
          if (!this.skipFailedPunctuation(node, timestamp, error)) throw wrapNodeError(error, node.name, this.name);
        }
      });
    } finally {
      this.context.currentTimestamp = undefined;
    }
  }

  schedule(node: ProcessorNode, intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable {
    if (!(intervalMs >= 1)) throw new TopologyException(`punctuation interval must be at least 1 ms, got ${intervalMs}`);
    if (type === 'STREAM_TIME') {
      // The first stream-time punctuation fires with the first record, as in Kafka Streams.
      return this.streamTimePunctuations.schedule(node, 0, intervalMs, punctuator);
    }
    return this.wallClockPunctuations.schedule(node, this.env.wallClock() + intervalMs, intervalMs, punctuator);
  }

  requestCommit(): void {
    this.commitRequested = true;
  }

  /** Whether a processor asked for a commit since the last call. */
  takeCommitRequest(): boolean {
    const requested = this.commitRequested;
    this.commitRequested = false;
    return requested;
  }

  /**
   * Flushes the stores' record caches, upstream stores first (their updates go downstream now, and may fill the
   * caches below); call before flushing the producer.
   */
  prepareCommit(): void {
    for (const store of this.stores.values()) if (isCachingStore(store)) store.flushCache();
  }

  async flushStores(): Promise<void> {
    for (const [name, store] of this.stores) {
      const start = performance.now();
      await store.flush();
      this.env.storeFlushed?.(name, performance.now() - start);
    }
  }

  /** Writes a batch of a store's changelog records into it. */
  restore(storeName: string, records: ChangelogRecords): void {
    const store = this.stores.get(storeName);
    if (!store) throw new IllegalState(`store '${storeName}' is not initialized in task ${this.name}`);
    store.restore(records);
    this.env.storeRestored?.(storeName, records.length);
  }

  /** Closes processors and stores. Buffered records are dropped: the uncommitted offsets are re-read later. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let firstError: unknown;
    for (const node of this.nodes.values()) {
      try {
        this.context.runAs(node, () => node.processor.close?.());
      } catch (error) {
        firstError ??= wrapNodeError(error, node.name, this.name);
      }
    }
    for (const store of this.stores.values()) {
      try {
        if (store.isOpen()) await store.close();
      } catch (error) {
        firstError ??= error;
      }
    }
    this.queues.clear();
    if (firstError !== undefined) throw firstError;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private changelogWriter(topic: string): (storeName: string, record: ChangelogRecord) => void {
    const partition = this.id.partition;
    const collector = this.env.collector;
    return (_storeName, record) =>
      collector.send({ topic, partition, key: record.key, value: record.value, timestamp: record.timestamp, headers: NO_HEADERS });
  }

  private processorFor(definition: NodeDefinition): Processor<unknown, unknown, unknown, unknown> {
    if (definition.kind === 'processor') return definition.supplier();
    if (definition.kind === 'source') {
      const context = this.context;
      return { process: (record) => context.forward(record) };
    }
    return new SinkProcessor(definition, this.env, this.context);
  }
}

/** A handler's answer; a handler that throws fails the thread, as in Kafka Streams. */
function ask(kind: string, handler: () => HandlerResponse): HandlerResponse {
  try {
    return handler();
  } catch (error) {
    throw new StreamsException(`the ${kind} exception handler threw: ${asError(error).message}`, { cause: error });
  }
}

/** A serde's serializer for a sink: to a UTF-8 string when the serde has one (see `serializeToUtf8`), else to bytes. */
function sinkSerializer(serde: Serde<unknown>): (value: unknown) => Buffer | string {
  return serde.serializeToUtf8 ? serde.serializeToUtf8.bind(serde) : serde.serialize.bind(serde);
}

/** Whether a serializer takes the topic and headers (`Serde.serializeTopic`): then it is called with them. */
type TopicSerializer = ((topic: string, headers: SerdeHeaders, value: unknown) => Buffer) | undefined;

function topicSerializer(serde: Serde<unknown>): TopicSerializer {
  return serde.serializeTopic?.bind(serde);
}

/** Serializes records and hands them to the collector. */
class SinkProcessor implements Processor<unknown, unknown, never, never> {
  private readonly serializeKey: (key: unknown) => Buffer | string;
  private readonly serializeValue: (value: unknown) => Buffer | string;
  private readonly serializeKeyTo: TopicSerializer;
  private readonly serializeValueTo: TopicSerializer;
  private readonly fixedTopic: string | undefined;

  constructor(
    private readonly definition: SinkDefinition,
    private readonly env: TaskEnvironment,
    private readonly context: TaskProcessorContext,
  ) {
    const keySerde = resolveSerde(definition.keySerde, env.defaultKeySerde);
    const valueSerde = resolveSerde(definition.valueSerde, env.defaultValueSerde);
    this.serializeKey = sinkSerializer(keySerde);
    this.serializeValue = sinkSerializer(valueSerde);
    this.serializeKeyTo = topicSerializer(keySerde);
    this.serializeValueTo = topicSerializer(valueSerde);
    this.fixedTopic = typeof definition.topic === 'string' ? env.resolveTopic(definition.topic) : undefined;
  }

  process(record: StreamRecord<unknown, unknown>): void {
    const extractor = this.definition.topic;
    const topic =
      this.fixedTopic ??
      (typeof extractor === 'function' ? extractor(record.key, record.value, this.context.recordMetadata()) : '');
    if (!topic) throw new TopologyException(`sink '${this.definition.name}' chose no topic`);
    const key = record.key === null || record.key === undefined ? null : this.serializeKeyTo ? this.serializeKeyTo(topic, record.headers, record.key) : this.serializeKey(record.key);
    const value =
      record.value === null || record.value === undefined
        ? null
        : this.serializeValueTo
          ? this.serializeValueTo(topic, record.headers, record.value)
          : this.serializeValue(record.value);
    let partition: number | undefined;
    if (this.definition.partitioner) {
      const count = this.env.collector.partitionCount(topic);
      if (count !== undefined) partition = this.definition.partitioner(topic, record.key, record.value, count);
    }
    this.env.collector.send({ topic, partition, key, value, timestamp: record.timestamp, headers: record.headers });
  }
}

/** The context every processor of a task sees; it tracks which node is running. */
class TaskProcessorContext implements ProcessorContext<unknown, unknown> {
  currentNode: ProcessorNode | undefined;
  currentMetadata: RecordMetadata | undefined;
  /** Timestamp of the record the running processor was given (Kafka Streams' `context.timestamp()`). */
  currentTimestamp: number | undefined;
  /** Headers of that record: what a caching store keeps with the updates it forwards later. */
  currentHeaders: Headers | undefined;

  constructor(
    private readonly task: StreamTask,
    private readonly env: TaskEnvironment,
    private readonly topologyEventTypes: ReadonlySet<string>,
  ) {}

  get applicationId(): string {
    return this.env.applicationId;
  }

  get taskId(): string {
    return this.task.name;
  }

  get appConfig(): Readonly<Record<string, unknown>> {
    return this.env.config;
  }

  runAs(node: ProcessorNode, fn: () => void): void {
    const previous = this.currentNode;
    this.currentNode = node;
    try {
      fn();
    } finally {
      this.currentNode = previous;
    }
  }

  forward(record: StreamRecord<unknown, unknown>, childName?: string): void {
    const node = this.currentNode;
    if (!node) throw new IllegalState('forward() called outside of processing');
    const timestamp = this.currentTimestamp;
    const headers = this.currentHeaders;
    this.currentTimestamp = record.timestamp;
    this.currentHeaders = record.headers;
    if (childName !== undefined) {
      const child = node.childByName.get(childName);
      if (!child) throw new ProcessorException(node.name, this.task.name, `'${childName}' is not a child of this node`);
      this.currentNode = child;
      child.process(record);
    } else {
      const children = node.children;
      for (let i = 0; i < children.length; i++) {
        const child = children[i]!;
        this.currentNode = child;
        child.process(record);
      }
    }
    this.currentNode = node;
    this.currentTimestamp = timestamp;
    this.currentHeaders = headers;
  }

  getStateStore<S>(name: string): S {
    const node = this.currentNode;
    const global = node?.stores.has(name) ? undefined : this.env.globalStores?.get(name);
    if (global) return global as unknown as S;
    if (!node || !node.stores.has(name)) {
      throw new TopologyException(
        `processor '${node?.name ?? '?'}' has no access to store '${name}'; connect it with addStateStore or connectProcessorAndStateStores`,
      );
    }
    const store = this.task.stores.get(name);
    if (!store) throw new IllegalState(`store '${name}' is not initialized in task ${this.task.name}`);
    return store as unknown as S;
  }

  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable {
    const node = this.currentNode;
    if (!node) throw new IllegalState('schedule() called outside of a processor');
    return this.task.schedule(node, intervalMs, type, punctuator);
  }

  recordMetadata(): RecordMetadata | undefined {
    const m = this.currentMetadata;
    return m && { topic: m.topic, partition: m.partition, offset: m.offset };
  }

  currentStreamTimeMs(): number {
    return this.task.streamTime;
  }

  currentSystemTimeMs(): number {
    return this.env.wallClock();
  }

  commit(): void {
    this.task.requestCommit();
  }

  publishEvent(eventType: string, record: StreamRecord<unknown, unknown>): void {
    if (!this.topologyEventTypes.has(eventType)) {
      throw new ProcessorException(this.currentNode?.name ?? '(none)', this.task.name, `'${eventType}' is not an event type of the topology (Topology.addEventType)`);
    }
    this.env.publishEvent?.({ type: eventType, key: record.key, value: record.value, timestamp: record.timestamp });
  }

  /** Used by the DSL's processors for records they skip (null keys in aggregations, late records). */
  recordDropped(reason: string): void {
    this.task.drop(reason, this.recordMetadata());
  }

  /** Used by the DSL's foreign-key joins, which serialize keys and values of tables that may have no serde of their own. */
  defaultSerdes(): { key: Serde<unknown>; value: Serde<unknown> } {
    return { key: this.env.defaultKeySerde, value: this.env.defaultValueSerde };
  }

  /**
   * Used by the DSL's table processors: what they forward from a store's cache flush (at commit, outside their
   * `process`) must leave from their node, as Kafka Streams' cache flush listeners do.
   */
  asCurrentNode(): (fn: () => void) => void {
    const node = this.currentNode;
    if (!node) throw new IllegalState('asCurrentNode() called outside of a processor');
    return (fn) => this.runAs(node, fn);
  }
}
