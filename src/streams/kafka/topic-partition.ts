/** One partition of one topic: Kafka's TopicPartition. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Items grouped by their topic, in the order their topics first come. */
export function groupByTopic<T extends { readonly topic: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(item.topic);
    if (list) list.push(item);
    else groups.set(item.topic, [item]);
  }
  return groups;
}

/** A map keyed by topic-partition (a map of maps: no key is built by joining strings). */
export class TopicPartitionMap<V> {
  private readonly byTopic = new Map<string, Map<number, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(topic: string, partition: number): V | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  has(topic: string, partition: number): boolean {
    return this.byTopic.get(topic)?.has(partition) ?? false;
  }

  set(topic: string, partition: number, value: V): this {
    let partitions = this.byTopic.get(topic);
    if (!partitions) {
      partitions = new Map();
      this.byTopic.set(topic, partitions);
    }
    if (!partitions.has(partition)) this.count++;
    partitions.set(partition, value);
    return this;
  }

  /** The value of a topic-partition, created by `create` when there is none yet. */
  getOrCreate(topic: string, partition: number, create: () => V): V {
    const existing = this.get(topic, partition);
    if (existing !== undefined) return existing;
    const value = create();
    this.set(topic, partition, value);
    return value;
  }

  delete(topic: string, partition: number): boolean {
    const partitions = this.byTopic.get(topic);
    if (!partitions?.delete(partition)) return false;
    this.count--;
    if (partitions.size === 0) this.byTopic.delete(topic);
    return true;
  }

  clear(): void {
    this.byTopic.clear();
    this.count = 0;
  }

  *entries(): IterableIterator<[TopicPartition, V]> {
    for (const [topic, partitions] of this.byTopic) {
      for (const [partition, value] of partitions) yield [{ topic, partition }, value];
    }
  }

  *values(): IterableIterator<V> {
    for (const partitions of this.byTopic.values()) yield* partitions.values();
  }

  [Symbol.iterator](): IterableIterator<[TopicPartition, V]> {
    return this.entries();
  }
}
