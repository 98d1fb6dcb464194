import { TopicPartitionMap, type TopicPartition } from '../kafka';
import type { OffsetToCommit } from './task-transaction';

/** How far a thread has consumed and committed one input partition (-1: not yet). */
export interface PartitionPosition {
  consumedOffset: number;
  consumedTimestamp: number;
  committedOffset: number;
  committedTimestamp: number;
}

/**
 * A thread's positions on its input partitions: what it consumed (processed, or skipped past transaction markers)
 * and what the group has committed. The committer takes the offsets to commit from here, the offsets resource shows
 * them.
 */
export class PartitionPositions {
  private readonly positions = new TopicPartitionMap<PartitionPosition>();

  constructor(private readonly clock: () => number = Date.now) {}

  of(topic: string, partition: number): PartitionPosition {
    return this.positions.getOrCreate(topic, partition, () => ({ consumedOffset: -1, consumedTimestamp: -1, committedOffset: -1, committedTimestamp: -1 }));
  }

  /**
   * Newly assigned partitions start at the group's committed offsets (the next record to read), so the offsets
   * resource shows their backlog as lag before the first record is consumed.
   */
  async seed(assigned: readonly TopicPartition[], committedOffsets: (fresh: readonly TopicPartition[]) => Promise<{ tp: TopicPartition; offset: number }[]>): Promise<void> {
    const fresh = assigned.filter((tp) => !this.positions.has(tp.topic, tp.partition));
    if (fresh.length === 0) return;
    for (const { tp, offset } of await committedOffsets(fresh)) {
      const position = this.of(tp.topic, tp.partition);
      if (offset < 0 || position.consumedOffset >= 0) continue;
      position.committedOffset = offset;
      position.consumedOffset = offset - 1;
    }
  }

  /**
   * A new task's partition starts at this committed offset, whatever was read of it before: the executor skips the
   * records before it, should a batch fetched from an older offset still arrive.
   */
  startAt(topic: string, partition: number, committedOffset: number): void {
    const position = this.of(topic, partition);
    position.committedOffset = committedOffset;
    position.consumedOffset = committedOffset - 1;
  }

  /** Moves the consumed offset forward (never back). */
  consumed(topic: string, partition: number, offset: number, timestamp?: number): void {
    const position = this.of(topic, partition);
    if (offset <= position.consumedOffset) return;
    position.consumedOffset = offset;
    if (timestamp !== undefined) position.consumedTimestamp = timestamp;
  }

  /** The offsets to commit (the next record to read) for these consumed positions, where they moved since the last commit. */
  uncommitted(consumed: Iterable<{ topic: string; partition: number; offset: number }>): OffsetToCommit[] {
    const offsets: OffsetToCommit[] = [];
    for (const p of consumed) {
      if (this.of(p.topic, p.partition).committedOffset !== p.offset + 1) offsets.push({ topic: p.topic, partition: p.partition, offset: p.offset + 1 });
    }
    return offsets;
  }

  markCommitted(offsets: readonly OffsetToCommit[]): void {
    const now = this.clock();
    for (const o of offsets) {
      const position = this.of(o.topic, o.partition);
      position.committedOffset = o.offset;
      position.committedTimestamp = now;
    }
  }

  remove(tp: TopicPartition): void {
    this.positions.delete(tp.topic, tp.partition);
  }

  /** Copies of every position. */
  snapshot(): { topic: string; partition: number; state: PartitionPosition }[] {
    return [...this.positions.entries()].map(([tp, state]) => ({ topic: tp.topic, partition: tp.partition, state: { ...state } }));
  }
}
