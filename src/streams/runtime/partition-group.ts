import { SerdeNotReady } from '../../errors';
import { type FetchedRecordList, TopicPartitionMap } from '../kafka';
import type { ConsumedRecord } from './consumed-record';

/**
 * Kafka Streams' RecordQueue: one input partition's fetched records, as fetched (a record is made when taken), in
 * the order of their fetches; those of the first fetch before `head` are processed.
 */
interface RecordQueue {
  fetches: FetchedRecordList[];
  head: number;
}

/** Moves a queue's head within its first fetch; a fetch done leaves the queue. */
function advance(queue: RecordQueue, head: number): void {
  if (head < queue.fetches[0]!.length) {
    queue.head = head;
    return;
  }
  queue.fetches.shift();
  queue.head = 0;
}

/** Whether a queue has a record to take. */
function holdsRecords(queue: RecordQueue): boolean {
  return queue.fetches.length > 0;
}

/**
 * Kafka Streams' PartitionGroup: a task's input partitions, each with its queue of fetched records and the offset
 * it was consumed to. It hands the records to processing one at a time, the lowest timestamp among the partitions'
 * heads first (so joins see records in time order).
 */
export class PartitionGroup {
  private readonly queues = new TopicPartitionMap<RecordQueue>();
  /** Per input partition: the offset of the last record processed (or skipped past). */
  private readonly consumedOffsets = new TopicPartitionMap<number>();

  addRecords(records: FetchedRecordList): void {
    if (records.length === 0) return;
    this.queues.getOrCreate(records.topic, records.partition, () => ({ fetches: [], head: 0 })).fetches.push(records);
  }

  /** Records waiting to be processed. */
  get buffered(): number {
    let n = 0;
    for (const queue of this.queues.values()) {
      for (const fetch of queue.fetches) n += fetch.length;
      if (holdsRecords(queue)) n -= queue.head;
    }
    return n;
  }

  /**
   * Hands buffered records to `process`, at most `limit` of them; returns how many (fewer than `limit`: none left).
   * A record whose processing throws is not handed again, unless its serde was not ready (SerdeNotReady).
   */
  process(limit: number, process: (record: ConsumedRecord) => void): number {
    if (this.queues.size === 1) return this.processSingleQueue(limit, process);
    let n = 0;
    while (n < limit && this.processOne(process)) n++;
    return n;
  }

  /** Processes the buffered record with the lowest timestamp among the queues' heads; false when nothing is buffered. */
  private processOne(process: (record: ConsumedRecord) => void): boolean {
    let bestQueue: RecordQueue | undefined;
    let bestTimestamp = Infinity;
    for (const queue of this.queues.values()) {
      if (!holdsRecords(queue)) continue;
      const timestamp = queue.fetches[0]!.timestampAt(queue.head);
      if (bestQueue === undefined || timestamp < bestTimestamp) {
        bestQueue = queue;
        bestTimestamp = timestamp;
      }
    }
    if (bestQueue === undefined) return false;
    try {
      process(bestQueue.fetches[0]!.recordAt(bestQueue.head));
    } catch (error) {
      if (!(error instanceof SerdeNotReady)) advance(bestQueue, bestQueue.head + 1);
      throw error;
    }
    advance(bestQueue, bestQueue.head + 1);
    return true;
  }

  /** One input partition (most tasks): its records in offset order, without choosing among queues. */
  private processSingleQueue(limit: number, process: (record: ConsumedRecord) => void): number {
    const queue = this.queues.values().next().value as RecordQueue;
    let processed = 0;
    while (holdsRecords(queue) && processed < limit) {
      const records = queue.fetches[0]!;
      let head = queue.head;
      try {
        while (head < records.length && processed < limit) {
          // Advanced before processing: a record whose processing throws is not processed again.
          process(records.recordAt(head++));
          processed++;
        }
      } catch (error) {
        // Unless its serde was not ready: then it is processed again.
        if (error instanceof SerdeNotReady) head--;
        throw error;
      } finally {
        advance(queue, head);
      }
    }
    return processed;
  }

  markConsumed(record: ConsumedRecord): void {
    this.consumedOffsets.set(record.topic, record.partition, record.offset);
  }

  /**
   * Moves a partition's consumed offset up to `offset` once nothing of it waits to be processed: what lies between
   * the last processed record and `offset` are transaction markers and aborted records, which the consumer hides.
   * Committing past them, as Kafka Streams commits the consumer's position, leaves no lag after a transaction.
   * Answers the partition's consumed offset (undefined: none yet).
   */
  skipHiddenTo(topic: string, partition: number, offset: number): number | undefined {
    const consumed = this.consumedOffsets.get(topic, partition);
    const queue = this.queues.get(topic, partition);
    if (queue !== undefined && holdsRecords(queue)) return consumed;
    const moved = Math.max(consumed ?? offset, offset);
    this.consumedOffsets.set(topic, partition, moved);
    return moved;
  }

  /** Last processed offset per input partition. */
  consumedPositions(): { topic: string; partition: number; offset: number }[] {
    return [...this.consumedOffsets.entries()].map(([tp, offset]) => ({ topic: tp.topic, partition: tp.partition, offset }));
  }

  /** Drops the buffered records: their offsets are not committed, and are read again. */
  clear(): void {
    this.queues.clear();
  }
}
