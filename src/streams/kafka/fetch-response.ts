/**
 * Fetch responses (v11) decoded for reading changelogs: where each record's key and value lie in the response
 * buffer, with numeric offsets and timestamps, held column by column. kafkajs' decoder builds two Decoders, two
 * Longs, two decimal strings and a headers object per record (most of a restore's CPU), and a fetch's worth of
 * record objects waiting to be written would fill the heap; here a record becomes an object (with views into the
 * buffer) only as it is read, and is garbage at once.
 *
 * What is decoded, as the Java consumer does it: record batches of magic 2 (Kafka 0.11 and later), a truncated
 * batch at the end of a partition's data ignored (the fetch's size limit cut it), records before the fetch offset
 * skipped (a batch may begin before it), control batches (transaction markers) skipped but counted in the next
 * offset, and under read_committed the batches of aborted transactions left out, from each aborted
 * transaction's first offset to its producer's abort marker. Compressed batches are decompressed by kafkajs'
 * codecs. CRCs are not checked, as kafkajs does not check them.
 */
import type { TopicPartitionMap } from './topic-partition';
import { BATCH_HEADER_BYTES, COMPRESSION_MASK, CONTROL_FLAG, decompressRecords, LOG_APPEND_TIME_FLAG, readBatchHeader, RecordBatchReader, TRANSACTIONAL_FLAG } from './record-batch-reader';


/** A changelog record: views into the fetched bytes, valid as long as the caller keeps them. */
export interface FetchedRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
  offset: number;
}

/** The records a fetch brought for one partition, in offset order. */
export interface FetchedRecordList extends Iterable<FetchedRecord> {
  readonly length: number;
  offsetAt(index: number): number;
  /** Keeps the first `length` records only. */
  truncate(length: number): void;
}

/**
 * The key of every record that has none: changelog records always have one, but a global store's topic may hold
 * records without a key, which its reader tells apart from an empty key by this very buffer.
 */
export const NULL_KEY = Buffer.alloc(0);
/** Numbers kept per record: buffer index, key start, key end, value start (-1: null), value end, timestamp, offset. */
const STRIDE = 7;

/** The record list of the decoder: one typed array of numbers, no object per record. */
class ColumnarRecords implements FetchedRecordList {
  private readonly buffers: Buffer[] = [];
  private columns: Float64Array;
  length = 0;

  /** `expected`: about how many records will come (the array doubles when more do). */
  constructor(expected: number) {
    this.columns = new Float64Array(Math.max(16, expected) * STRIDE);
  }

  addBuffer(buffer: Buffer): number {
    this.buffers.push(buffer);
    return this.buffers.length - 1;
  }

  add(buffer: number, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, timestamp: number, offset: number): void {
    let at = this.length * STRIDE;
    if (at + STRIDE > this.columns.length) {
      const grown = new Float64Array(this.columns.length * 2);
      grown.set(this.columns);
      this.columns = grown;
    }
    const c = this.columns;
    c[at++] = buffer;
    c[at++] = keyStart;
    c[at++] = keyEnd;
    c[at++] = valueStart;
    c[at++] = valueEnd;
    c[at++] = timestamp;
    c[at] = offset;
    this.length++;
  }

  offsetAt(index: number): number {
    return this.columns[index * STRIDE + 6]!;
  }

  truncate(length: number): void {
    this.length = Math.min(length, this.length);
  }

  *[Symbol.iterator](): Iterator<FetchedRecord> {
    const c = this.columns;
    for (let i = 0; i < this.length * STRIDE; i += STRIDE) {
      const buffer = this.buffers[c[i]!]!;
      const keyStart = c[i + 1]!;
      const valueStart = c[i + 3]!;
      yield {
        key: keyStart < 0 ? NULL_KEY : buffer.subarray(keyStart, c[i + 2]),
        value: valueStart < 0 ? null : buffer.subarray(valueStart, c[i + 4]),
        timestamp: c[i + 5]!,
        offset: c[i + 6]!,
      };
    }
  }
}

export interface FetchedPartition {
  topic: string;
  partition: number;
  /** Kafka's error code for this partition (0: none). */
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Where a reader of this isolation level finds the end: the last stable offset under read_committed, else the high watermark. */
  endOffset: number;
  records: FetchedRecordList;
  /** The offset this partition was fetched from. */
  fetchOffset: number;
  /**
   * The offset to fetch next: past the last complete batch, markers and aborted batches included; the fetch
   * offset itself when no complete batch came.
   */
  nextOffset: number;
}

/** Control record type of an abort marker (its key: int16 version, int16 type). */
const ABORT_MARKER = 0;

interface AbortedTransaction {
  producerId: string;
  firstOffset: number;
}

/** Decodes a Fetch v11 response body (after the correlation id). */
export async function decodeFetchResponse(body: Buffer, fetchOffsets: TopicPartitionMap<number>, readCommitted: boolean): Promise<{ errorCode: number; partitions: FetchedPartition[] }> {
  const r = new RecordBatchReader(body, 0);
  r.int32(); // throttle_time_ms
  const errorCode = r.int16();
  r.int32(); // session_id
  const partitions: FetchedPartition[] = [];
  const topics = r.int32();
  for (let t = 0; t < topics; t++) {
    const topic = r.string();
    const count = r.int32();
    for (let p = 0; p < count; p++) {
      const partition = r.int32();
      const partitionError = r.int16();
      const highWatermark = r.int64();
      const lastStableOffset = r.int64();
      const logStartOffset = r.int64();
      const abortedCount = r.int32();
      const aborted: AbortedTransaction[] = [];
      for (let a = 0; a < abortedCount; a++) aborted.push({ producerId: r.int64Text(), firstOffset: r.int64() });
      r.int32(); // preferred_read_replica
      const size = r.int32();
      const fetchOffset = fetchOffsets.get(topic, partition) ?? 0;
      // A record takes at least 7 bytes of a batch; most changelog records take 20 or more.
      const records = new ColumnarRecords(Math.ceil(Math.max(size, 0) / 20));
      const decoded: FetchedPartition = {
        topic,
        partition,
        errorCode: partitionError,
        highWatermark,
        lastStableOffset,
        logStartOffset,
        endOffset: readCommitted ? lastStableOffset : highWatermark,
        records,
        fetchOffset,
        nextOffset: fetchOffset,
      };
      if (size > 0) {
        aborted.sort((a, b) => a.firstOffset - b.firstOffset);
        await decodeBatches(new RecordBatchReader(body.subarray(r.pos, r.pos + size), 0), fetchOffset, decoded, records, readCommitted ? aborted : []);
        r.skip(size);
      }
      partitions.push(decoded);
    }
  }
  return { errorCode, partitions };
}

async function decodeBatches(r: RecordBatchReader, fetchOffset: number, into: FetchedPartition, records: ColumnarRecords, aborted: AbortedTransaction[]): Promise<void> {
  const buf = r.buf;
  let bufferIndex = -1;
  const aborting = new Set<string>();
  let nextAborted = 0;
  while (buf.length - r.pos >= BATCH_HEADER_BYTES) {
    const header = readBatchHeader(r, `${into.topic}-${into.partition}`);
    if (header === undefined) break;
    const { firstOffset: baseOffset, end, attributes, lastOffsetDelta, firstTimestamp: baseTimestamp, maxTimestamp, producerId, count } = header;
    into.nextOffset = Math.max(into.nextOffset, baseOffset + lastOffsetDelta + 1);
    while (nextAborted < aborted.length && aborted[nextAborted]!.firstOffset <= baseOffset + lastOffsetDelta) {
      aborting.add(aborted[nextAborted++]!.producerId);
    }
    if ((attributes & CONTROL_FLAG) !== 0) {
      if (aborting.has(producerId) && controlType(buf, r.pos, end) === ABORT_MARKER) aborting.delete(producerId);
    } else if (!((attributes & TRANSACTIONAL_FLAG) !== 0 && aborting.has(producerId))) {
      const logAppendTime = (attributes & LOG_APPEND_TIME_FLAG) !== 0 ? maxTimestamp : undefined;
      let source: RecordBatchReader;
      let index: number;
      if ((attributes & COMPRESSION_MASK) === 0) {
        source = new RecordBatchReader(buf, r.pos);
        if (bufferIndex < 0) bufferIndex = records.addBuffer(buf);
        index = bufferIndex;
      } else {
        source = new RecordBatchReader(await decompressRecords(attributes, buf.subarray(r.pos, end), `${into.topic}-${into.partition}`), 0);
        index = records.addBuffer(source.buf);
      }
      readRecords(source, index, count, baseOffset, baseTimestamp, logAppendTime, fetchOffset, records);
    }
    r.pos = end;
  }
}

function readRecords(r: RecordBatchReader, buffer: number, count: number, baseOffset: number, baseTimestamp: number, logAppendTime: number | undefined, fetchOffset: number, into: ColumnarRecords): void {
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    const next = r.pos + length;
    r.skip(1); // attributes
    const timestampDelta = r.varlong();
    const offset = baseOffset + r.varint();
    const keyStart = r.skipBytes();
    const keyEnd = r.pos;
    const valueStart = r.skipBytes();
    const valueEnd = r.pos;
    r.pos = next; // headers are not needed to restore a store
    if (offset >= fetchOffset) into.add(buffer, keyStart, keyEnd, valueStart, valueEnd, logAppendTime ?? baseTimestamp + timestampDelta, offset);
  }
}

/** Type of the first control record of a control batch: 0 abort, 1 commit. */
function controlType(buf: Buffer, pos: number, end: number): number {
  const r = new RecordBatchReader(buf, pos);
  r.varint(); // length
  r.skip(1);
  r.varlong();
  r.varint();
  const key = r.bytes();
  return key !== null && key.length >= 4 && r.pos <= end ? key.readInt16BE(2) : -1;
}
