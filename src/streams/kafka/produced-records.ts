/**
 * One partition's records written as they are produced, in the record format of a batch, whose header the produce
 * request writes around them (produce-request.ts). What a record collector holds between a task's send and the
 * broker's answer: bytes in one growing buffer, rather than an object, a key and a value per record that would live
 * through several young-generation collections and be promoted (a third of the bytes a word count promoted).
 *
 * kafkajs' producer sends them as one message of the partition (`producedRecordsMessage`): its grouping per
 * partition (produce-request.ts' `groupMessagesPerPartition`) hands this object on as the partition's messages, whose
 * `length` is the record count its idempotent producer's sequence numbers advance by.
 */
import { type RecordHeaders, RecordBatchReader, readRecords } from './record-batch';
import { type Bytes, byteSize, RecordBatchWriter, recordBodySize, type RecordHeadersToWrite, sizedHeaders, uvarIntSize, writeRecordBody, zigZag32 } from './record-writer';
import type { OutgoingRecord } from './types';

const INITIAL_BYTES = 4096;

/** A record read back from its bytes: a key and value as bytes, as the broker would store them. */
export interface WrittenRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: RecordHeaders;
}

export class ProducedRecords {
  /** Records appended. */
  count = 0;
  /** The first record's timestamp: the batch's base, as Java's producer takes it; the others are deltas from it. */
  firstTimestamp = 0;
  maxTimestamp = 0;
  private writer = new RecordBatchWriter(Buffer.allocUnsafeSlow(INITIAL_BYTES));

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  /** The records' bytes so far. */
  get data(): Buffer {
    return this.writer.buf.subarray(0, this.writer.offset);
  }

  /** What kafkajs' producer counts a partition's messages by. */
  get length(): number {
    return this.count;
  }

  append(key: Bytes, value: Bytes, timestamp: number, headers: RecordHeadersToWrite): void {
    if (this.count === 0) this.firstTimestamp = this.maxTimestamp = timestamp;
    else if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    const keySize = byteSize(key);
    const valueSize = byteSize(value);
    const timestampDelta = timestamp - this.firstTimestamp;
    const sized = sizedHeaders(headers);
    const bodySize = recordBodySize(keySize, valueSize, timestampDelta, this.count, sized);
    this.reserve(uvarIntSize(zigZag32(bodySize)) + bodySize);
    writeRecordBody(this.writer, bodySize, timestampDelta, this.count, key, keySize, value, valueSize, sized);
    this.count++;
  }

  /** The records read back from their bytes, in order (a batch the broker refused, split to find the refused record). */
  read(): WrittenRecord[] {
    const records: WrittenRecord[] = [];
    const header = { firstOffset: 0, firstTimestamp: this.firstTimestamp, maxTimestamp: this.maxTimestamp, count: this.count, attributes: 0 };
    readRecords(new RecordBatchReader(this.data, 0), header, {
      readsHeaders: true,
      batch: () => true,
      record: (data, keyStart, keyEnd, valueStart, valueEnd, _offset, timestamp, headers) =>
        records.push({
          key: keyStart < 0 ? null : Buffer.from(data.subarray(keyStart, keyEnd)),
          value: valueStart < 0 ? null : Buffer.from(data.subarray(valueStart, valueEnd)),
          timestamp,
          headers: headers ?? {},
        }),
    });
    return records;
  }

  private reserve(bytes: number): void {
    const { buf, offset } = this.writer;
    if (offset + bytes <= buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(offset + bytes, buf.length * 2));
    buf.copy(grown, 0, 0, offset);
    this.writer = new RecordBatchWriter(grown);
    this.writer.offset = offset;
  }
}

const PRODUCED_RECORDS = Symbol('producedRecords');

/** The records as one message of their partition for kafkajs' producer: `sendBatch` sends them as they are written. */
export function producedRecordsMessage(records: ProducedRecords): OutgoingRecord {
  return Object.assign({ partition: records.partition, value: null }, { [PRODUCED_RECORDS]: records });
}

/** The records a message of `producedRecordsMessage` carries, or undefined for any other message. */
export function producedRecordsOf(message: object): ProducedRecords | undefined {
  return (message as { [PRODUCED_RECORDS]?: ProducedRecords })[PRODUCED_RECORDS];
}
