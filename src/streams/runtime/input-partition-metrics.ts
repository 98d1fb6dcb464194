import { TopicPartitionMap, type TopicPartition } from '../kafka';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import { createPartitionLagMetrics, type PartitionLagMetrics } from '../metrics/streams-metrics';

/** Per input partition of a thread: the consumer's lag (Kafka's `records-lag`). */
export class InputPartitionMetrics {
  private readonly lags = new TopicPartitionMap<PartitionLagMetrics>();

  constructor(
    private readonly registry: MetricsRegistry,
    private readonly threadName: string,
  ) {}

  /** The partition's lag after a batch whose last record is at `lastOffset`, fetched when the partition ended at `highWatermark`. */
  recordLag(tp: TopicPartition, lastOffset: number, highWatermark: number, now: number): void {
    const metrics = this.lags.getOrCreate(tp.topic, tp.partition, () => createPartitionLagMetrics(this.registry, `${this.threadName}-consumer`, tp.topic, tp.partition));
    metrics.lag.record(Math.max(0, highWatermark - lastOffset - 1), now);
  }

  release(tp: TopicPartition): void {
    this.lags.get(tp.topic, tp.partition)?.unregister();
    this.lags.delete(tp.topic, tp.partition);
  }
}
