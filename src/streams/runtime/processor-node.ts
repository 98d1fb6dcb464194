/**
 * The nodes of one task's processor graph: each processor wrapped with its place in the graph, and the sinks'
 * processor (Kafka Streams' ProcessorNode and SinkNode).
 */
import { ProcessorException, TopologyException } from '../../errors';
import type { Serde, SerdeHeaders } from '../serdes/serde';
import type { Processor } from '../processor/processor';
import type { RecordMetadata, StreamRecord } from '../processor/record';
import type { NodeDefinition, SinkDefinition } from '../topology/node-definitions';
import { resolveSerde } from '../serdes/default-serde';
import type { TaskEnvironment } from './task-environment';

/** An instantiated node of one task's processor graph. */
export class ProcessorNode {
  readonly children: ProcessorNode[] = [];
  readonly childByName = new Map<string, ProcessorNode>();
  /** Sources: the resolved serdes of the consumed records. */
  keySerde: Serde<unknown> | undefined;
  valueSerde: Serde<unknown> | undefined;
  /** Sources: whether each serde reads a fetched record where it lies in the fetched bytes (decided once, here). */
  keyReadInPlace = false;
  valueReadInPlace = false;
  /** Stores this node may read and write. */
  readonly stores: ReadonlySet<string>;
  /** Records handed to this node's processor, for its `process-total` (a plain count: no sensor on the hot path). */
  processed = 0;
  /**
   * Records this node failed on, for its `failed-records-total`: its processor threw on them (whether the processing
   * handler skipped them or the task failed) or, at a source, they could not be deserialized. Counted on the failure
   * path only.
   */
  failed = 0;
  /** Asked about an error this node's processor threw: true when the record is skipped here (processing.exception.handler). */
  skipFailed: ((node: ProcessorNode, record: StreamRecord<unknown, unknown>, error: unknown) => boolean) | undefined;

  constructor(
    readonly definition: NodeDefinition,
    readonly taskId: string,
    /** The user's (or the DSL's) processor; sources and sinks have their own. */
    readonly processor: Processor<unknown, unknown, unknown, unknown>,
  ) {
    this.stores = new Set(definition.kind === 'processor' ? definition.stores : []);
  }

  get name(): string {
    return this.definition.name;
  }

  addChild(child: ProcessorNode): void {
    this.children.push(child);
    this.childByName.set(child.name, child);
  }

  /**
   * Runs the processor; an error from user code is offered to the processing handler where it was thrown (as Kafka
   * Streams does, so that a skip there lets the node's siblings go on), and otherwise reaches the caller once, naming
   * the node that failed. An error from a node below was decided there: it goes up as it is.
   */
  process(record: StreamRecord<unknown, unknown>): void {
    this.processed++;
    try {
      this.processor.process(record);
    } catch (error) {
      // A ProcessorException failed at a node below, which counted it.
      if (!(error instanceof ProcessorException)) {
        this.failed++;
        if (this.skipFailed?.(this, record, error)) return;
      }
      throw wrapNodeError(error, this.name, this.taskId);
    }
  }
}

export function wrapNodeError(error: unknown, node: string, taskId: string): Error {
  if (error instanceof ProcessorException) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ProcessorException(node, taskId, detail, { cause: error });
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

/** Kafka Streams' SinkNode: serializes a task's output records and hands them to its record collector. */
export class SinkProcessor implements Processor<unknown, unknown, never, never> {
  private readonly serializeKey: (key: unknown) => Buffer | string;
  private readonly serializeValue: (value: unknown) => Buffer | string;
  private readonly serializeKeyTo: TopicSerializer;
  private readonly serializeValueTo: TopicSerializer;
  private readonly fixedTopic: string | undefined;

  constructor(
    private readonly definition: SinkDefinition,
    private readonly env: Pick<TaskEnvironment, 'defaultKeySerde' | 'defaultValueSerde' | 'collector' | 'resolveTopic'>,
    /** The metadata of the record being processed, for a topic chosen per record. */
    private readonly recordMetadata: () => RecordMetadata | undefined,
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
      (typeof extractor === 'function' ? extractor(record.key, record.value, this.recordMetadata()) : '');
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
