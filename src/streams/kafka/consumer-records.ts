/**
 * What the stream threads' consumers fetch, decoded and batched in fewer objects than kafkajs 2.2.4 makes: its
 * decoder builds a Decoder, two Longs and a spread headers object per record, and its Batch a Long per record to
 * compare offsets. Here the codec (record-batch.ts) reads a partition's records into columns (fetched-records.ts),
 * which the stream threads' tasks take records from: offsets and timestamps as numbers (offsets stay far below 2^53,
 * and kafkajs' own uses of them take numbers as well as its decimal strings). Only record batches of magic 2 (Kafka
 * 0.11 and later) are read here; older message sets go to kafkajs' own decoder, whose messages are then put in the
 * same columns.
 */
import { AbortedTransactions, type AbortedTransaction } from './aborted-transactions';
import { type BatchContext, type BatchedRecord, FetchedRecords, RecordColumns } from './fetched-records';
import { CONTROL_FLAG, decodeRecordBatches, holdsRecordBatches, LOG_APPEND_TIME_FLAG, type RecordBatchHeader, type RecordHeaders, type RecordSink, TRANSACTIONAL_FLAG } from './record-batch';
import type { FetchedBatch } from './types';

const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;
/**
 * A fetched record's bytes in a record set, at the least for sizing its columns: an idle consumer's empty fetches
 * then make next to nothing, where columns of a fixed first size made kilobytes twice a second per partition.
 */
const BYTES_PER_RECORD = 32;

/** Reads the fetched records of one partition, control records included, into columns with their batches' context. */
class ColumnSink implements RecordSink {
  readonly readsHeaders = true;
  readonly columns: RecordColumns;
  /** Past the last record batch read, empty ones (all their records compacted away) included. */
  nextOffset = 0;
  private context: BatchContext | undefined;

  /** `bytes`: the record set's size, from which the columns are sized (they double when more records come). */
  constructor(bytes: number) {
    this.columns = new RecordColumns(Math.ceil(bytes / BYTES_PER_RECORD));
  }

  batch(header: RecordBatchHeader): boolean {
    const attributes = header.attributes;
    this.nextOffset = Math.max(this.nextOffset, header.firstOffset + header.lastOffsetDelta + 1);
    this.context = {
      firstOffset: String(header.firstOffset),
      firstTimestamp: String(header.firstTimestamp),
      partitionLeaderEpoch: header.partitionLeaderEpoch,
      inTransaction: (attributes & TRANSACTIONAL_FLAG) !== 0,
      isControlBatch: (attributes & CONTROL_FLAG) !== 0,
      lastOffsetDelta: header.lastOffsetDelta,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      firstSequence: header.firstSequence,
      maxTimestamp: String(header.maxTimestamp),
      timestampType: (attributes & LOG_APPEND_TIME_FLAG) !== 0 ? LOG_APPEND_TIME : CREATE_TIME,
      magicByte: header.magic,
    };
    return true;
  }

  record(data: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset: number, timestamp: number, headers: RecordHeaders | undefined): void {
    this.columns.push(data, this.context!, keyStart, keyEnd, valueStart, valueEnd, offset, timestamp, headers);
  }
}

/** The records of the consecutive record batches of `data` (a partition's record set), control records included. */
export async function consumedRecords(data: Buffer): Promise<RecordColumns> {
  return (await consumedRecordSet(data)).columns;
}

/** Those records, and the offset past the record set's last batch: where a reader of the partition goes on. */
export async function consumedRecordSet(data: Buffer): Promise<{ columns: RecordColumns; nextOffset: number }> {
  const sink = new ColumnSink(data.length);
  await decodeRecordBatches(data, 'the fetched partition', sink);
  return { columns: sink.columns, nextOffset: sink.nextOffset };
}

/** A message of kafkajs' own decoder (older message sets): offsets and timestamps as decimal strings. */
interface KafkajsMessage {
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeaders;
  isControlRecord?: boolean;
  batchContext?: BatchContext;
}

const LEGACY_BATCH_CONTEXT: BatchContext = {
  firstOffset: '0',
  firstTimestamp: '0',
  partitionLeaderEpoch: -1,
  inTransaction: false,
  isControlBatch: false,
  lastOffsetDelta: 0,
  producerId: '-1',
  producerEpoch: -1,
  firstSequence: -1,
  maxTimestamp: '0',
  timestampType: 0,
  magicByte: 1,
};

const NO_BYTES = Buffer.alloc(0);

/** kafkajs' messages in columns: each its own segment, its key and value copied into one buffer. */
function fromKafkajs(messages: readonly KafkajsMessage[]): RecordColumns {
  const columns = new RecordColumns(messages.length);
  for (const m of messages) {
    const key = m.key ?? NO_BYTES;
    const data = Buffer.concat([key, m.value ?? NO_BYTES]);
    const context = m.batchContext ?? LEGACY_BATCH_CONTEXT;
    const keyStart = m.key === null ? -1 : 0;
    const valueStart = m.value === null ? -1 : key.length;
    columns.push(data, context, keyStart, key.length, valueStart, data.length, Number(m.offset), Number(m.timestamp), m.headers);
  }
  return columns;
}

/** The part of kafkajs' protocol Decoder that the fetch response's record set is read from. */
interface KafkajsDecoder {
  offset: number;
  readInt32(): number;
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer | null;
}

type DecodeMessages = (decoder: KafkajsDecoder) => Promise<unknown>;

/**
 * kafkajs' `decodeMessages` (the record set of a partition in a Fetch response, v4 and later), reading record
 * batches with the codec and handing older message sets to `legacy`, kafkajs' own. What it answers is the
 * partition's `messages` in kafkajs' response, which only the Batch (DecodedBatch) reads.
 */
export function recordSetDecoder(legacy: DecodeMessages): (decoder: KafkajsDecoder) => Promise<RecordColumns> {
  return async (decoder) => {
    const start = decoder.offset;
    const size = decoder.readInt32();
    if (size <= 0 || !decoder.canReadBytes(size)) return new RecordColumns(0);
    const records = decoder.readBytes(size)!;
    if (!holdsRecordBatches(records)) {
      decoder.offset = start;
      return fromKafkajs((await legacy(decoder)) as KafkajsMessage[]);
    }
    return consumedRecords(records);
  };
}

/**
 * Whether each record is kept by the read_committed filter: a predicate called on the records in offset order,
 * control records included (they end their producer's aborted transaction, and are not kept).
 */
export function abortedFilter(transactions: readonly AbortedTransaction[]): (context: Pick<BatchContext, 'producerId' | 'inTransaction' | 'isControlBatch'>, offset: number, key: () => Buffer | null) => boolean {
  const aborted = new AbortedTransactions(transactions);
  return (context, offset, key) => {
    if (context.isControlBatch) {
      aborted.control(context.producerId, offset, key());
      return false;
    }
    return !(context.inTransaction && aborted.aborts(context.producerId, offset));
  };
}

/**
 * kafkajs' Batch, with offsets as numbers (they stay far below 2^53) where kafkajs used Longs: the records of one
 * fetch of one partition, those before the fetch offset (a compressed batch may begin before it), aborted ones and
 * control records left out. The stream threads read `records`; `messages` is the same records as an array, for
 * kafkajs' consumer and other readers of a batch.
 */
export class DecodedBatch implements FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: string;
  /** Every record fetched (those before the fetch offset and control records included). */
  readonly rawRecords: FetchedRecords;
  /** The records from the fetch offset on, control and aborted ones included. */
  readonly recordsWithinOffset: FetchedRecords;
  /** The records to process. */
  readonly records: FetchedRecords;
  private messageArray: BatchedRecord[] | undefined;

  constructor(
    topic: string,
    readonly fetchedOffset: string,
    partitionData: { partition: number; highWatermark: string; messages: RecordColumns; abortedTransactions?: AbortedTransaction[] },
  ) {
    this.topic = topic;
    this.partition = partitionData.partition;
    this.highWatermark = partitionData.highWatermark;
    const columns = partitionData.messages;
    this.rawRecords = FetchedRecords.from(topic, this.partition, columns);
    // Records come in offset order: those before the fetch offset are a prefix.
    const from = Number(fetchedOffset);
    let first = 0;
    while (first < columns.length && columns.offsetAt(first) < from) first++;
    this.recordsWithinOffset = this.rawRecords.skip(first);
    this.records = keptRecords(topic, this.partition, columns, first, partitionData.abortedTransactions ?? []);
  }

  get messages(): BatchedRecord[] {
    return (this.messageArray ??= this.records.asArray());
  }

  isEmpty(): boolean {
    return this.records.length === 0;
  }

  isEmptyIncludingFiltered(): boolean {
    return this.recordsWithinOffset.length === 0;
  }

  isEmptyDueToFiltering(): boolean {
    return this.isEmpty() && this.rawRecords.length > 0;
  }

  isEmptyControlRecord(): boolean {
    if (!this.isEmpty()) return false;
    for (let i = 0; i < this.recordsWithinOffset.length; i++) if (this.recordsWithinOffset.isControlAt(i)) return true;
    return false;
  }

  isEmptyDueToLogCompactedMessages(): boolean {
    return this.rawRecords.length > 0 && this.isEmptyIncludingFiltered();
  }

  firstOffset(): string | null {
    return this.isEmptyIncludingFiltered() ? null : String(this.recordsWithinOffset.offsetAt(0));
  }

  lastOffset(): string {
    if (this.isEmptyDueToLogCompactedMessages()) return this.fetchedOffset;
    if (this.isEmptyIncludingFiltered()) return String(Number(this.highWatermark) - 1);
    return String(this.recordsWithinOffset.offsetAt(this.recordsWithinOffset.length - 1));
  }

  offsetLag(): string {
    return String(Number(this.highWatermark) - 1 - Number(this.lastOffset()));
  }

  offsetLagLow(): string {
    if (this.isEmptyIncludingFiltered()) return '0';
    return String(Number(this.highWatermark) - 1 - this.recordsWithinOffset.offsetAt(0));
  }
}

/** The records of `columns` from `first` on but control records and aborted ones; all of them when none is left out. */
function keptRecords(topic: string, partition: number, columns: RecordColumns, first: number, transactions: readonly AbortedTransaction[]): FetchedRecords {
  let leftOut = transactions.length > 0;
  for (let i = first; !leftOut && i < columns.length; i++) leftOut = columns.contextAt(i).isControlBatch;
  if (!leftOut) return FetchedRecords.from(topic, partition, columns, first);
  const keeps = abortedFilter(transactions);
  const positions = new Int32Array(columns.length - first);
  let kept = 0;
  for (let i = first; i < columns.length; i++) if (keeps(columns.contextAt(i), columns.offsetAt(i), () => columns.keyAt(i))) positions[kept++] = i;
  return FetchedRecords.at(topic, partition, columns, positions.subarray(0, kept));
}
