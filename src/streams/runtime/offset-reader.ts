import { fetchTopicOffsets, type KafkaAdmin, type TopicPartition } from '../kafka';

const END_OFFSETS_TTL_MS = 1000;

/** What an instance reads of offsets through its admin client: topics' watermarks, cached briefly, and its group's commits. */
export class OffsetReader {
  private readonly endOffsetCache = new Map<string, { at: number; offsets: Map<number, { low: number; high: number }> }>();

  /** `admin()` is undefined until the instance connects: nothing is read before. */
  constructor(
    private readonly groupId: string,
    private readonly admin: () => KafkaAdmin | undefined,
  ) {}

  /** Low and high watermark per partition of a topic, cached briefly. */
  async endOffsets(topic: string): Promise<Map<number, { low: number; high: number }>> {
    const cached = this.endOffsetCache.get(topic);
    if (cached && Date.now() - cached.at < END_OFFSETS_TTL_MS) return cached.offsets;
    const admin = this.admin();
    if (!admin) return new Map();
    const offsets = new Map((await fetchTopicOffsets(admin, topic)).map((p) => [p.partition, { low: p.earliest, high: p.latest }]));
    this.endOffsetCache.set(topic, { at: Date.now(), offsets });
    return offsets;
  }

  /** The group's committed offsets of those partitions that have one. */
  async committedOffsets(partitions: readonly TopicPartition[]): Promise<{ tp: TopicPartition; offset: number }[]> {
    const admin = this.admin();
    if (!admin) return [];
    const topics = [...new Set(partitions.map((tp) => tp.topic))];
    const result: { tp: TopicPartition; offset: number }[] = [];
    for (const t of await admin.fetchOffsets({ groupId: this.groupId, topics })) {
      for (const p of t.partitions) {
        if (partitions.some((tp) => tp.topic === t.topic && tp.partition === p.partition)) result.push({ tp: { topic: t.topic, partition: p.partition }, offset: Number(p.offset) });
      }
    }
    return result;
  }
}
