/**
 * Produce requests (v3 to v7, one layout) encoded in one buffer, the uncompressed case. kafkajs builds each record
 * in an Encoder of its own (a zeroed 512-byte buffer, and a fresh Buffer for every varint), then copies records
 * into batches, batches into partitions, partitions into topics: in a word count that took 40 % of the CPU.
 * This writes the bytes kafkajs writes (see the test), sizing the request, its record batches and their records
 * first and writing it once (the batch format's constants are the decoder's, record-batch.ts).
 *
 * One deliberate difference: a batch's first and max timestamps are the least and greatest by value. kafkajs
 * sorts timestamps as strings, which only agrees while they have the same number of digits.
 *
 * And the producer's grouping of a request's records per partition, which was quadratic in kafkajs.
 */
import type { Message, PartitionMetadata } from 'kafkajs';
import { ProducedRecords, producedRecordsOf } from './produced-records';
import { BATCH_HEADER_BYTES, MAGIC, TRANSACTIONAL_FLAG } from './record-batch';
import { type Bytes, byteSize, RecordBatchWriter, recordBodySize, type RecordHeadersToWrite, sizedHeaders, uvarIntSize, writeRecordBody, zigZag32 } from './record-writer';

// kafkajs internals, from the pinned version: its Encoder frames the request; its CRC-32C keeps the bytes those of
// kafkajs.
const Encoder: new (initialSize?: number) => { buf: Buffer; offset: number } = require('kafkajs/src/protocol/encoder');
const NO_COMPRESSION: number = require('kafkajs/src/protocol/message/compression').Types.None;
const crc32C: (buffer: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C');

/** A record to write: key and value as bytes or UTF-8 text, a timestamp (none: now), headers. */
export interface ProduceMessage {
  key?: Bytes;
  value: Bytes;
  timestamp?: string | number | null;
  headers?: RecordHeadersToWrite;
}

/**
 * The sizes of a request's records, worked out before anything is written, FIELDS numbers a record (its key's and
 * value's bytes, its timestamp delta, its body's bytes) rather than an object each: a word count sends tens of
 * thousands of records a second. Reused: a request is sized and written synchronously.
 */
const FIELDS = 4;
let sizes = new Float64Array(FIELDS * 8192);

/** Room in `sizes` for `records` records, keeping what the request's earlier batches put there. */
function reserveSizes(records: number): void {
  if (records * FIELDS <= sizes.length) return;
  const grown = new Float64Array(Math.max(records * FIELDS, sizes.length * 2));
  grown.set(sizes);
  sizes = grown;
}

/** A batch to write, sized: its messages' sizes from `first` on in `sizes`, or its records written already. */
interface SizedBatch {
  firstSequence: number;
  firstTimestamp: number;
  maxTimestamp: number;
  count: number;
  messages: ProduceMessage[];
  first: number;
  written: Buffer | undefined;
  /** Bytes of the records. */
  size: number;
}

/** Who writes a batch: a transactional producer marks its batches; an idempotent one gives its id and epoch. */
interface BatchProducer {
  transactional: boolean;
  producerId: unknown;
  producerEpoch: number;
}

/** Sizes the record into `sizes` at record index `at`; answers its body's bytes. */
function sizeRecord(message: ProduceMessage, offsetDelta: number, now: number, firstTimestamp: number, at: number): number {
  const keySize = byteSize(message.key);
  const valueSize = byteSize(message.value);
  // A timestamp of 0 is one (Sluice's records carry numbers): only a missing one means now.
  const timestampDelta = (message.timestamp == null ? now : Number(message.timestamp)) - firstTimestamp;
  const bodySize = recordBodySize(keySize, valueSize, timestampDelta, offsetDelta, sizedHeaders(message.headers));
  const i = at * FIELDS;
  sizes[i] = keySize;
  sizes[i + 1] = valueSize;
  sizes[i + 2] = timestampDelta;
  sizes[i + 3] = bodySize;
  return bodySize;
}

/** Writes the record sized at record index `at`; its headers, which few records have, are sized again. */
function writeRecord(w: RecordBatchWriter, message: ProduceMessage, offsetDelta: number, at: number): void {
  const i = at * FIELDS;
  writeRecordBody(w, sizes[i + 3]!, sizes[i + 2]!, offsetDelta, message.key, sizes[i]!, message.value, sizes[i + 1]!, sizedHeaders(message.headers));
}

/**
 * A batch of `messages` sized for writing, its records' sizes in `sizes` from record index `first` on, records
 * without a timestamp stamped `now`. Its first and max timestamps are the least and greatest by value (kafkajs sorts
 * them as strings, which only agrees while they have the same number of digits).
 */
function sizeRecordBatch(firstSequence: number, messages: ProduceMessage[], now: number, first: number): SizedBatch {
  let firstTimestamp = Infinity;
  let maxTimestamp = -Infinity;
  for (const message of messages) {
    if (message.timestamp == null) continue;
    const t = Number(message.timestamp);
    if (t < firstTimestamp) firstTimestamp = t;
    if (t > maxTimestamp) maxTimestamp = t;
  }
  if (firstTimestamp === Infinity) firstTimestamp = maxTimestamp = now;
  reserveSizes(first + messages.length);
  let size = 0;
  for (let i = 0; i < messages.length; i++) {
    const bodySize = sizeRecord(messages[i]!, i, now, firstTimestamp, first + i);
    size += uvarIntSize(zigZag32(bodySize)) + bodySize;
  }
  return { firstSequence, firstTimestamp, maxTimestamp, count: messages.length, messages, first, written: undefined, size };
}

/** A batch of records written as they were produced: only its header is left to write. */
function writtenRecordBatch(firstSequence: number, records: ProducedRecords): SizedBatch {
  const written = records.data;
  const { firstTimestamp, maxTimestamp, count } = records;
  return { firstSequence, firstTimestamp, maxTimestamp, count, messages: [], first: 0, written, size: written.length };
}

/** Bytes the batch takes written. */
function recordBatchBytes(batch: SizedBatch): number {
  return BATCH_HEADER_BYTES + batch.size;
}

/** Writes the batch, uncompressed, at the writer's position (the bytes kafkajs writes). */
function writeRecordBatch(w: RecordBatchWriter, batch: SizedBatch, producer: BatchProducer): void {
  w.int64(0);
  w.int32(recordBatchBytes(batch) - 12); // what follows the base offset and this length
  w.int32(0);
  w.int8(MAGIC);
  const crcAt = w.offset;
  w.uint32(0);
  const bodyStart = w.offset;
  w.int16(producer.transactional ? TRANSACTIONAL_FLAG : 0);
  w.int32(batch.count - 1);
  w.int64(batch.firstTimestamp);
  w.int64(batch.maxTimestamp);
  w.int64(producer.producerId);
  w.int16(producer.producerEpoch);
  w.int32(batch.firstSequence);
  w.int32(batch.count);
  if (batch.written !== undefined) w.offset += batch.written.copy(w.buf, w.offset);
  else for (let i = 0; i < batch.count; i++) writeRecord(w, batch.messages[i]!, i, batch.first + i);
  w.buf.writeUInt32BE(crc32C(w.buf.subarray(bodyStart, w.offset)), crcAt);
}

export interface ProduceTopicData {
  topic: string;
  /** A partition's messages, or its records written as produced (produced-records.ts). */
  partitions: { partition: number; firstSequence?: number; messages: ProduceMessage[] | ProducedRecords }[];
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
  let records = 0;
  const topics = topicData.map(({ topic, partitions }) => ({
    topic,
    batches: partitions.map(({ partition, firstSequence = 0, messages }) => {
      if (messages instanceof ProducedRecords) return { partition, batch: writtenRecordBatch(firstSequence, messages) };
      const batch = sizeRecordBatch(firstSequence, messages, now, records);
      records += messages.length;
      return { partition, batch };
    }),
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

/** kafkajs' messages for its compressed requests: records written as produced read back, timestamps as text. */
function withTextTimestamps<A extends ProduceRequestArgs>(args: A): A {
  const text = (message: ProduceMessage): ProduceMessage => (typeof message.timestamp === 'number' ? { ...message, timestamp: String(message.timestamp) } : message);
  const messagesOf = (messages: ProduceMessage[] | ProducedRecords): ProduceMessage[] => (messages instanceof ProducedRecords ? messages.read() : messages).map(text);
  return {
    ...args,
    topicData: args.topicData.map((topic) => ({ ...topic, partitions: topic.partitions.map((p) => ({ ...p, messages: messagesOf(p.messages) })) })),
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
  for (const message of messages) {
    const written = producedRecordsOf(message);
    // Handed on as the partition's messages: the produce request writes them as they are (see produced-records.ts).
    if (written !== undefined) result[written.partition] = written as unknown as Message[];
    else (result[partitioner({ topic, partitionMetadata, message })] ??= []).push(message);
  }
  return result;
}
