import { IllegalState, ProcessorException, TopologyException } from '../../errors';
import type { Cancellable, ProcessorContext, PunctuationType, Punctuator } from '../processor/processor';
import type { Headers, RecordMetadata, StreamRecord } from '../processor/record';
import type { Serde } from '../serdes/serde';
import type { StateStore } from '../state/store';
import type { ProcessorNode } from './processor-node';
import type { TaskEnvironment } from './task-environment';

/** What the context asks of the task whose processors it serves. */
export interface ContextTask {
  readonly name: string;
  readonly stores: ReadonlyMap<string, StateStore>;
  readonly streamTime: number;
  schedule(node: ProcessorNode, intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable;
  requestCommit(): void;
  drop(reason: string, record: RecordMetadata | undefined): void;
}

/**
 * Kafka Streams' ProcessorContextImpl: the context every processor of a task sees. It tracks which node is running
 * and the record it was given, and forwards records from node to node.
 */
export class TaskProcessorContext implements ProcessorContext<unknown, unknown> {
  currentNode: ProcessorNode | undefined;
  currentMetadata: RecordMetadata | undefined;
  /** Timestamp of the record the running processor was given (Kafka Streams' `context.timestamp()`). */
  currentTimestamp: number | undefined;
  /** Headers of that record: what a caching store keeps with the updates it forwards later. */
  currentHeaders: Headers | undefined;

  constructor(
    private readonly task: ContextTask,
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
