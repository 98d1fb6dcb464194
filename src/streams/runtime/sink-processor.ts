import { TopologyException } from '../../errors';
import type { Processor } from '../processor/processor';
import type { RecordMetadata, StreamRecord } from '../processor/record';
import type { Serde, SerdeHeaders } from '../serdes/serde';
import { resolveSerde } from '../serdes/default-serde';
import type { SinkDefinition } from '../topology/node-definitions';
import type { TaskEnvironment } from './task-environment';

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
