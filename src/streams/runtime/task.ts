import { ConfigException, IllegalState, SerdeNotReady, TopologyException } from '../../errors';
import type { Cancellable, Processor, PunctuationType, Punctuator } from '../processor/processor';
import type { RecordMetadata, StreamRecord } from '../processor/record';
import type { Serde } from '../serdes/serde';
import { resolveSerde } from '../serdes/default-serde';
import type { ChangelogRecords, StateStore } from '../state/store';
import type { NodeDefinition, SourceDefinition } from '../topology/node-definitions';
import type { Subtopology, Topology } from '../topology/topology';
import type { ConsumedRecord } from './consumed-record';
import type { FetchedRecordList } from '../kafka';
import { PartitionGroup } from './partition-group';
import { TaskProcessorContext } from './processor-context';
import { ProcessorNode, SinkProcessor, wrapNodeError } from './processor-node';
import { PunctuationQueue } from './punctuation-queue';
import type { RecordTracing } from './record-tracing';
import { ProcessorStateManager } from './state-manager';
import type { TaskEnvironment } from './task-environment';
import { TaskErrorHandling } from './task-error-handling';
import { taskIdToString, type TaskId } from './task-id';

/**
 * A task: one sub-topology instantiated for one partition. It deserializes consumed records, runs them through
 * its processor graph one at a time in timestamp order across its input partitions, tracks stream time, runs
 * punctuations and knows which offsets it may commit. Used by the stream threads and by the test driver.
 */
export class StreamTask {
  readonly name: string;
  /** The task's stores: opened, restored, flushed and closed as a standby's are. */
  private readonly state: ProcessorStateManager;
  private readonly nodes = new Map<string, ProcessorNode>();
  private readonly sourceByTopic = new Map<string, ProcessorNode>();
  private readonly partitions = new PartitionGroup();
  private readonly streamTimePunctuations = new PunctuationQueue<ProcessorNode>();
  private readonly wallClockPunctuations = new PunctuationQueue<ProcessorNode>();
  private readonly context: TaskProcessorContext;
  private readonly errors: TaskErrorHandling;
  /** `processRecord` as the partition group calls it: made once, not for every batch. */
  private readonly processNext = (record: ConsumedRecord) => this.processRecord(record);
  private streamTimeMs = -1;
  private commitRequested = false;
  private initialized = false;
  private closed = false;
  /** The consumed record being processed, which a processing failure is reported on. */
  private current: ConsumedRecord | undefined;

  constructor(
    readonly id: TaskId,
    readonly subtopology: Subtopology,
    private readonly topology: Topology,
    private readonly env: TaskEnvironment,
  ) {
    this.name = env.taskName ?? taskIdToString(id);
    this.context = new TaskProcessorContext(this, env, new Set(topology.eventTypes()));
    this.errors = new TaskErrorHandling(this.name, env);
    this.state = new ProcessorStateManager(id, this.name, subtopology.stores, topology, env, {
      collector: env.collector,
      streamTime: () => this.streamTimeMs,
      recordTimestamp: () => this.context.currentTimestamp,
      recordHeaders: () => this.context.currentHeaders,
    });
  }

  get stores(): Map<string, StateStore> {
    return this.state.stores;
  }

  /** Builds and opens the stores; the runtime restores them before `initializeProcessors`. */
  initializeStores(): void {
    this.state.initializeStores();
  }

  /** Closes the stores opened so far and forgets them, so that `initializeStores` can open them afresh. */
  closeStores(): Promise<void> {
    return this.state.closeStores();
  }

  /** Writes a batch of a store's changelog records into it. */
  restore(storeName: string, records: ChangelogRecords): void {
    this.state.restore(storeName, records);
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
      const serdes = this.topology.store(storeName)?.serdes?.(this.state.defaultSerdes());
      if (!serdes) continue;
      await prepare(serdes.keySerde, this.env.defaultKeySerde, this.state.storeSerdeTopic(storeName));
      await prepare(serdes.valueSerde, this.env.defaultValueSerde, this.state.storeSerdeTopic(storeName));
    }
  }

  /** Records the named node's processor was handed (0 before the graph is instantiated). */
  processedBy(node: string): number {
    return this.nodes.get(node)?.processed ?? 0;
  }

  /** Records the named node failed on (0 before the graph is instantiated). */
  failedAt(node: string): number {
    return this.nodes.get(node)?.failed ?? 0;
  }

  /** Instantiates the processor graph and runs every processor's `init`. */
  initializeProcessors(): void {
    if (this.initialized) return;
    for (const name of this.subtopology.nodes) {
      const definition = this.topology.node(name)!;
      const node = new ProcessorNode(definition, this.name, this.processorFor(definition));
      node.skipFailed = (failed, record, error) => this.errors.processingFailed(this.current, failed, record, error);
      this.nodes.set(name, node);
      if (definition.kind === 'source') {
        node.keySerde = resolveSerde(definition.keySerde, this.env.defaultKeySerde);
        node.valueSerde = resolveSerde(definition.valueSerde, this.env.defaultValueSerde);
        node.keyReadInPlace = readsInPlace(node.keySerde);
        node.valueReadInPlace = readsInPlace(node.valueSerde);
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

  addRecords(records: FetchedRecordList): void {
    this.partitions.addRecords(records);
  }

  /**
   * Processes buffered records, at most `limit` of them, the lowest timestamp among the input partitions' heads
   * first (Kafka Streams' choice, so joins see records in time order); returns how many (fewer than `limit`: none left).
   */
  process(limit = Infinity): number {
    return this.partitions.process(limit, this.processNext);
  }

  private processRecord(consumed: ConsumedRecord): void {
    const source = this.sourceByTopic.get(consumed.topic) ?? this.bindPatternTopic(consumed.topic);
    if (!source) throw new IllegalState(`task ${this.name} has no source for topic ${consumed.topic}`);
    const definition = source.definition as SourceDefinition;
    let key: unknown;
    let value: unknown;
    try {
      key = readPart(source.keySerde!, source.keyReadInPlace, consumed, true);
      value = readPart(source.valueSerde!, source.valueReadInPlace, consumed, false);
    } catch (error) {
      // Not consumed: the task processes it again once the serde is ready.
      if (error instanceof SerdeNotReady) {
        error.record ??= { topic: consumed.topic, partition: consumed.partition, offset: consumed.offset };
        throw error;
      }
      // The serde's configuration, not the record (a registry refusing the credentials): the task fails, the record not consumed.
      if (error instanceof ConfigException) throw error;
      this.partitions.markConsumed(consumed);
      source.failed++;
      this.errors.deserializationFailed(consumed, source.name, error);
      return;
    }
    this.partitions.markConsumed(consumed);
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
    this.current = consumed;
    // runAs, written out: no closure for every record.
    context.currentNode = source;
    try {
      // Tracing off, the one branch a record pays for it.
      if (this.env.recordTracing === undefined) {
        context.currentHeaders = consumed.headers;
        source.process({ key, value, timestamp, headers: consumed.headers });
      } else {
        this.processTraced(this.env.recordTracing, source, { key, value, timestamp, headers: consumed.headers }, consumed);
      }
    } finally {
      context.currentNode = previousNode;
      this.current = undefined;
      context.currentMetadata = undefined;
      context.currentTimestamp = undefined;
      context.currentHeaders = undefined;
    }
    this.punctuateStreamTime();
  }

  /**
   * A record processed in a span of its own when the sampler takes it: its processors see (and forward, so that
   * what it becomes is written with) headers whose `traceparent` is that span's, and the span is the active one
   * while they run, for the log lines they write.
   */
  private processTraced(tracing: RecordTracing, source: ProcessorNode, record: StreamRecord<unknown, unknown>, consumed: ConsumedRecord): void {
    const span = tracing.start(consumed, this.name);
    if (span === undefined) {
      this.context.currentHeaders = record.headers;
      source.process(record);
      return;
    }
    record.headers = tracing.headersUnder(span, record.headers);
    this.context.currentHeaders = record.headers;
    let failure: unknown;
    try {
      tracing.run(span, () => source.process(record));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      tracing.end(span, failure);
    }
  }

  /** Counts a skipped record (Kafka Streams' `dropped-records`) and reports it. */
  drop(reason: string, record: RecordMetadata | undefined): void {
    this.errors.drop(reason, record);
  }

  get droppedRecords(): number {
    return this.errors.droppedRecords;
  }

  /** See `PartitionGroup.skipHiddenTo`: a partition's consumed offset moved past what the consumer hides. */
  skipHiddenTo(topic: string, partition: number, offset: number): number | undefined {
    return this.partitions.skipHiddenTo(topic, partition, offset);
  }

  /** Last processed offset per input partition. */
  consumedPositions(): { topic: string; partition: number; offset: number }[] {
    return this.partitions.consumedPositions();
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
          if (!this.errors.punctuationFailed(node, timestamp, error)) throw wrapNodeError(error, node.name, this.name);
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

  /** Flushes the stores' record caches (see `ProcessorStateManager.flushCaches`); call before flushing the producer. */
  prepareCommit(): void {
    this.state.flushCaches();
  }

  flushStores(): Promise<void> {
    return this.state.flushStores();
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
    try {
      await this.state.close();
    } catch (error) {
      firstError ??= error;
    }
    this.partitions.clear();
    if (firstError !== undefined) throw firstError;
  }

  private processorFor(definition: NodeDefinition): Processor<unknown, unknown, unknown, unknown> {
    if (definition.kind === 'processor') return definition.supplier();
    if (definition.kind === 'source') {
      const context = this.context;
      return { process: (record) => context.forward(record) };
    }
    return new SinkProcessor(definition, this.env, () => this.context.recordMetadata());
  }
}

/** Whether a serde can read a fetched record where it lies in the fetched bytes (built-in serdes blind to topics). */
function readsInPlace(serde: Serde<unknown>): boolean {
  return serde.deserializeFrom !== undefined && serde.deserializeTopic === undefined;
}

/**
 * A consumed record's key (or value), deserialized: in the fetched bytes when the serde can (`inPlace`) and the record
 * was decoded by Sluice, else from the view the record makes of it.
 */
function readPart(serde: Serde<unknown>, inPlace: boolean, consumed: ConsumedRecord, key: boolean): unknown {
  const bytes = consumed.bytes;
  if (inPlace && bytes !== undefined) {
    const start = key ? bytes.keyStart : bytes.valueStart;
    return start < 0 ? null : serde.deserializeFrom!(bytes.data, start, key ? bytes.keyEnd : bytes.valueEnd);
  }
  const raw = key ? consumed.key : consumed.value;
  if (raw === null) return null;
  return serde.deserializeTopic ? serde.deserializeTopic(consumed.topic, consumed.headers, raw) : serde.deserialize(raw);
}
