/**
 * Fetch responses (v11) decoded for reading changelogs: where each record's key and value lie in the response
 * buffer, with numeric offsets and timestamps, held column by column (fetched-records.ts, as the consumers' are).
 * kafkajs' decoder builds two Decoders, two Longs, two decimal strings and a headers object per record (most of a
 * restore's CPU), and a fetch's worth of record objects waiting to be written would fill the heap; here the codec
 * (record-batch.ts) hands over each record's bounds, and a record becomes an object (with views into the buffer)
 * only as it is read, and is garbage at once.
 *
 * What is kept, as the Java consumer does it: records at or past the fetch offset (a batch may begin before it),
 * control batches (transaction markers) left out but counted in the next offset, and under read_committed the
 * batches of aborted transactions left out (aborted-transactions.ts).
 */
import { AbortedTransactions, type AbortedTransaction } from './aborted-transactions';
import { CONTROL_FLAG, decodeRecordBatches, type RecordBatchHeader, RecordBatchReader, type RecordSink, TRANSACTIONAL_FLAG } from './record-batch';
import { consumedRecordSet, DecodedBatch } from './consumer-records';
import { type ChangelogRecordList, RecordColumns } from './fetched-records';
import type { TopicPartitionMap } from './topic-partition';
import type { FetchedBatch } from './types';

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
  records: ChangelogRecordList;
  /**
   * Read as a stream thread's consumer reads its input (headers, batch contexts, control records): the partition's
   * records as kafkajs' consumer hands out a batch; `records` is then empty.
   */
  batch?: FetchedBatch;
  /** The offset this partition was fetched from. */
  fetchOffset: number;
  /**
   * The offset to fetch next: past the last complete batch, markers and aborted batches included; the fetch
   * offset itself when no complete batch came.
   */
  nextOffset: number;
}

/** Reads a partition's records for the changelog reader: the records past the fetch offset, of committed or no transactions. */
class ChangelogSink implements RecordSink {
  readonly readsHeaders = false;
  private control = false;
  private producerId = '';

  constructor(
    private readonly into: FetchedPartition,
    private readonly records: RecordColumns<undefined>,
    private readonly aborted: AbortedTransactions,
  ) {}

  batch(header: RecordBatchHeader): boolean {
    const lastOffset = header.firstOffset + header.lastOffsetDelta;
    this.into.nextOffset = Math.max(this.into.nextOffset, lastOffset + 1);
    this.control = (header.attributes & CONTROL_FLAG) !== 0;
    this.producerId = header.producerId;
    // A control batch is read for its marker; a batch of an aborted transaction not at all.
    return this.control || (header.attributes & TRANSACTIONAL_FLAG) === 0 || !this.aborted.aborts(header.producerId, lastOffset);
  }

  record(data: Buffer, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset: number, timestamp: number): void {
    if (this.control) {
      this.aborted.control(this.producerId, offset, keyStart < 0 ? null : data.subarray(keyStart, keyEnd));
      return;
    }
    if (offset < this.into.fetchOffset) return;
    this.records.push(data, undefined, keyStart, keyEnd, valueStart, valueEnd, offset, timestamp, undefined);
  }
}

/**
 * Decodes a Fetch v11 response body (after the correlation id): each partition's records as a changelog reader
 * reads them, or with `asBatches` as a stream thread's consumer does.
 */
export async function decodeFetchResponse(
  body: Buffer,
  fetchOffsets: TopicPartitionMap<number>,
  readCommitted: boolean,
  asBatches = false,
): Promise<{ errorCode: number; partitions: FetchedPartition[] }> {
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
      for (let a = 0; a < abortedCount; a++) aborted.push({ producerId: r.int64Text(), firstOffset: r.int64Text() });
      r.int32(); // preferred_read_replica
      const size = r.int32();
      const fetchOffset = fetchOffsets.get(topic, partition) ?? 0;
      // A record takes at least 7 bytes of a batch; most changelog records take 20 or more.
      const records = new RecordColumns<undefined>(Math.ceil(Math.max(size, 0) / 20));
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
      if (asBatches) {
        const set = size > 0 ? await consumedRecordSet(body.subarray(r.pos, r.pos + size)) : { columns: new RecordColumns(0), nextOffset: fetchOffset };
        const partitionData = { partition, highWatermark: String(highWatermark), messages: set.columns, abortedTransactions: readCommitted ? aborted : [] };
        decoded.batch = new DecodedBatch(topic, String(fetchOffset), partitionData);
        decoded.nextOffset = Math.max(fetchOffset, set.nextOffset);
        r.skip(size);
      } else if (size > 0) {
        const sink = new ChangelogSink(decoded, records, new AbortedTransactions(readCommitted ? aborted : []));
        await decodeRecordBatches(body.subarray(r.pos, r.pos + size), `${topic}-${partition}`, sink);
        r.skip(size);
      }
      partitions.push(decoded);
    }
  }
  return { errorCode, partitions };
}
