import { SerdeNotReady } from '../../errors';
import type { EachBatchPayload, FetchedRecordList, TopicPartition } from '../kafka';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import type { ThreadMetrics } from '../metrics/streams-metrics';
import { InputPartitionMetrics } from './input-partition-metrics';
import type { PartitionPositions } from './partition-positions';
import type { ProduceBuffer } from './produce-buffer';
import type { LookupOutages } from './serde-lookups';
import type { ActiveTask } from './task-manager';

/** Records processed between two looks at the producer's backlog. */
const PROCESS_CHUNK = 500;

type FetchedBatch = EachBatchPayload['batch'];

/**
 * Runs fetched batches through their tasks (Kafka Streams' TaskExecutor): in chunks, each followed by sending what
 * the task produced, and while the thread's producer buffer is full (`buffer.memory` bytes produced and not yet
 * acknowledged) processing waits until half of it is free, as the Java producer blocks `send`. A record whose serde looks something up waits for it, an outage of
 * what it asks told in the thread's log. Moves the thread's consumed positions and records its metrics.
 */
export class TaskExecutor {
  private readonly inputMetrics: InputPartitionMetrics;

  constructor(
    private readonly positions: PartitionPositions,
    private readonly metrics: ThreadMetrics,
    registry: MetricsRegistry,
    threadName: string,
    private readonly outages: LookupOutages,
    private readonly buffer: ProduceBuffer,
  ) {
    this.inputMetrics = new InputPartitionMetrics(registry, threadName);
  }

  /**
   * Processes a batch in its task. After a re-join kafkajs fetches again from the committed offset: records this
   * thread already processed are skipped, so a task kept through a rebalance never counts a record twice. Answers
   * false when `stopped` cut processing short (the batch is then not done).
   */
  async execute(active: ActiveTask, batch: FetchedBatch, stopped: () => boolean): Promise<boolean> {
    const { topic, partition } = batch;
    const pollStart = performance.now();
    const records = consumedRecords(batch, this.positions.of(topic, partition).consumedOffset);
    if (records.length === 0) return true;
    const task = active.task;
    const collector = active.created.output.collector;
    task.addRecords(records);
    this.metrics.poll.record(performance.now() - pollStart);
    this.metrics.pollRecords.record(records.length);
    let processed = 0;
    let elapsed = 0;
    let waitingSince: number | undefined;
    let outage = false;
    for (;;) {
      const chunkStart = performance.now();
      let n: number;
      try {
        n = task.process(PROCESS_CHUNK);
      } catch (error) {
        if (!(error instanceof SerdeNotReady)) throw error;
        // A serde looks something up (a schema): what was processed goes out meanwhile, and the record is tried again.
        elapsed += performance.now() - chunkStart;
        collector.sendBuffered();
        waitingSince ??= Date.now();
        if (error.cause !== undefined) outage = true;
        this.outages.waiting(error, waitingSince);
        await error.ready;
        if (stopped()) return false;
        continue;
      }
      if (outage) this.outages.answered();
      waitingSince = undefined;
      outage = false;
      elapsed += performance.now() - chunkStart;
      processed += n;
      if (n < PROCESS_CHUNK) break;
      collector.sendBuffered();
      if (this.buffer.full) await this.buffer.drained();
      if (stopped()) return false;
    }
    this.metrics.processRecords.record(processed);
    if (processed > 0) {
      this.metrics.processLatency.record(elapsed / processed);
      this.metrics.processRate.record(processed);
    }
    const now = Date.now();
    const last = records.length - 1;
    active.created.metrics.processed(task.sourceNodeName(topic), records, processed, elapsed, now);
    this.inputMetrics.recordLag(batch, records.offsetAt(last), Number(batch.highWatermark), now);
    this.positions.consumed(topic, partition, records.offsetAt(last), records.timestampAt(last));
    this.skipHidden(active, batch);
    collector.sendBuffered();
    // Across batches too: a fetch of small batches would otherwise never find the buffer full within one.
    if (this.buffer.full) await this.buffer.drained();
    return true;
  }

  /**
   * Past the transaction markers and aborted records that end a fetched batch (the consumer hides them), once the
   * task has processed what precedes them: committing past them leaves no lag after a transaction.
   */
  skipHidden(active: ActiveTask, batch: FetchedBatch): void {
    const consumed = active.task.skipHiddenTo(batch.topic, batch.partition, Number(batch.lastOffset()));
    if (consumed !== undefined) this.positions.consumed(batch.topic, batch.partition, consumed);
  }

  /**
   * Runs the wall-clock punctuations that are due and sends what they produced. Answers whether a task asked for a
   * commit (a processor's `context.commit()`).
   */
  punctuate(tasks: readonly ActiveTask[], now: number): boolean {
    let commitRequested = false;
    for (const active of tasks) {
      if (active.task.punctuateWallClock(now)) this.metrics.punctuate.record(0);
      if (active.task.takeCommitRequest()) commitRequested = true;
      active.created.output.collector.sendBuffered();
    }
    return commitRequested;
  }

  /** Drops what the thread tracks of partitions it no longer reads. */
  forget(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      this.positions.remove(tp);
      this.inputMetrics.release(tp);
    }
  }
}

/** A batch's records past `consumedOffset`: the fetched records themselves, as the tasks take them. */
function consumedRecords(batch: FetchedBatch, consumedOffset: number): FetchedRecordList {
  const records = batch.records;
  let first = 0;
  while (first < records.length && records.offsetAt(first) <= consumedOffset) first++;
  return first === 0 ? records : records.skip(first);
}
