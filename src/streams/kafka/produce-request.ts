/**
 * Produce requests (v3 to v7, one layout) encoded in one buffer, the uncompressed case. kafkajs builds each record
 * in an Encoder of its own (a zeroed 512-byte buffer, and a fresh Buffer for every varint), then copies records
 * into batches, batches into partitions, partitions into topics: in a word count that took 40 % of the CPU.
 * This writes the bytes kafkajs writes (see the test), sizing the request first and writing it once, its batches
 * by the codec (record-batch.ts).
 *
 * One deliberate difference: a batch's first and max timestamps are the least and greatest by value. kafkajs
 * sorts timestamps as strings, which only agrees while they have the same number of digits.
 *
 * And the producer's grouping of a request's records per partition, which was quadratic in kafkajs.
 */
import type { Message, PartitionMetadata } from 'kafkajs';
import { type ProduceMessage, recordBatchBytes, RecordBatchWriter, sizeRecordBatch, writeRecordBatch } from './record-batch';

// kafkajs internals, from the pinned version: its Encoder frames the request.
const Encoder: new (initialSize?: number) => { buf: Buffer; offset: number } = require('kafkajs/src/protocol/encoder');
const NO_COMPRESSION: number = require('kafkajs/src/protocol/message/compression').Types.None;

export interface ProduceTopicData {
  topic: string;
  partitions: { partition: number; firstSequence?: number; messages: ProduceMessage[] }[];
}

export interface ProduceRequestArgs {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: unknown;
  producerEpoch?: number;
  topicData: ProduceTopicData[];
}

/** The request body (what follows kafkajs' request header), uncompressed. */
export function encodeProduceRequest({ acks, timeout, transactionalId = null, producerId = -1, producerEpoch = 0, topicData }: ProduceRequestArgs): Buffer {
  const now = Date.now();
  const topics = topicData.map(({ topic, partitions }) => ({
    topic,
    batches: partitions.map(({ partition, firstSequence = 0, messages }) => ({ partition, batch: sizeRecordBatch(firstSequence, messages, now) })),
  }));
  let total = 2 + (transactionalId == null ? 0 : Buffer.byteLength(transactionalId, 'utf8')) + 2 + 4 + 4;
  for (const { topic, batches } of topics) {
    total += 2 + Buffer.byteLength(topic, 'utf8') + 4;
    for (const { batch } of batches) total += 4 + 4 + recordBatchBytes(batch);
  }

  const producer = { transactional: Boolean(transactionalId), producerId, producerEpoch };
  const w = new RecordBatchWriter(Buffer.allocUnsafe(total));
  w.string(transactionalId);
  w.int16(acks);
  w.int32(timeout);
  w.int32(topics.length);
  for (const { topic, batches } of topics) {
    w.string(topic);
    w.int32(batches.length);
    for (const { partition, batch } of batches) {
      w.int32(partition);
      w.int32(recordBatchBytes(batch));
      writeRecordBatch(w, batch, producer);
    }
  }
  if (w.offset !== total) throw new Error(`produce request: wrote ${w.offset} bytes of ${total}`);
  return w.buf;
}

function withTextTimestamps<A extends ProduceRequestArgs>(args: A): A {
  const text = (message: ProduceMessage): ProduceMessage => (typeof message.timestamp === 'number' ? { ...message, timestamp: String(message.timestamp) } : message);
  return {
    ...args,
    topicData: args.topicData.map((topic) => ({ ...topic, partitions: topic.partitions.map((p) => ({ ...p, messages: p.messages.map(text) })) })),
  };
}

interface KafkajsRequest {
  encode(): Promise<unknown>;
}
type KafkajsProduceRequest = (args: ProduceRequestArgs & { compression?: number }) => KafkajsRequest;

/**
 * kafkajs' produce request (its v3 module, which v4 to v7 reuse), encoding uncompressed requests here. Compressed
 * ones are kafkajs', given timestamps as the decimal text it expects: it takes a falsy timestamp (the number 0) for
 * none and stamps the record with the time of sending.
 */
export function oneBufferProduceRequest(kafkajsRequest: KafkajsProduceRequest): KafkajsProduceRequest {
  return (args) => {
    if ((args.compression ?? NO_COMPRESSION) !== NO_COMPRESSION) return kafkajsRequest(withTextTimestamps(args));
    const request = kafkajsRequest(args);
    return {
      ...request,
      encode: async () => {
        // kafkajs' request framing takes an Encoder: one over the finished bytes.
        const encoder = new Encoder(0);
        encoder.buf = encodeProduceRequest(args);
        encoder.offset = encoder.buf.length;
        return encoder;
      },
    };
  };
}

type Partitioner = (args: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) => number;

interface GroupArgs {
  topic: string;
  partitionMetadata: PartitionMetadata[];
  messages: Message[];
  partitioner: Partitioner;
}

/**
 * kafkajs' `groupMessagesPerPartition`, in linear time: partition → its messages, in their order. kafkajs copied a
 * partition's array for every message, which with thousands of records per request took a tenth of a word count's CPU.
 */
export function groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }: GroupArgs): Record<number, Message[]> {
  const result: Record<number, Message[]> = {};
  if (partitionMetadata.length === 0) return result;
  for (const message of messages) (result[partitioner({ topic, partitionMetadata, message })] ??= []).push(message);
  return result;
}
