import type { TopicPartition } from '../kafka';
import { changelogTopicName } from '../topology/internal-topics';
import type { Subtopology, Topology } from '../topology/topology';
import { parseTaskId, type TaskId } from './task-id';

/** A store of a sub-topology and its changelog topic (undefined when the store is not logged). */
export interface StoreMetadata {
  readonly name: string;
  readonly changelog: string | undefined;
}

/** A sub-topology with the application's real topic names. */
export interface SubtopologyMetadata {
  readonly id: number;
  readonly definition: Subtopology;
  /** Named source topics, real names (internal topics carry the application id). */
  readonly sourceTopics: readonly string[];
  /** Topics matching these are sources too, bound as they are assigned. */
  readonly sourcePatterns: readonly RegExp[];
  readonly stores: readonly StoreMetadata[];
}

/**
 * A topology resolved once for an application (Kafka Streams' TopologyMetadata): real topic names, which
 * sub-topology reads a topic (named or matching a pattern), each store's changelog. Everything in the runtime
 * that maps a topic to a task or a store to its changelog asks here.
 */
export class TopologyMetadata {
  readonly subtopologies: readonly SubtopologyMetadata[];
  /** By id: ids have gaps where global stores took their numbers, so a sub-topology is never found by its index. */
  private readonly byId = new Map<number, SubtopologyMetadata>();
  /** Topic → the sub-topology reading it; null: read by none (remembered for patterns, tested once per topic). */
  private readonly readers = new Map<string, SubtopologyMetadata | null>();
  private readonly changelogs = new Map<string, string>();

  constructor(
    readonly topology: Topology,
    readonly applicationId: string,
  ) {
    this.subtopologies = topology.subtopologies().map((definition) => ({
      id: definition.id,
      definition,
      sourceTopics: definition.sourceTopics.map((t) => this.topicName(t)),
      sourcePatterns: definition.sourcePatterns,
      stores: definition.stores.map((name) => {
        const changelog = topology.store(name)?.loggingEnabled ? changelogTopicName(applicationId, name) : undefined;
        if (changelog !== undefined) this.changelogs.set(name, changelog);
        return { name, changelog };
      }),
    }));
    for (const sub of this.subtopologies) {
      this.byId.set(sub.id, sub);
      for (const topic of sub.sourceTopics) this.readers.set(topic, sub);
    }
  }

  /** The sub-topology of a task id's number, or undefined (a global store's number, or none of this topology). */
  subtopology(id: number): SubtopologyMetadata | undefined {
    return this.byId.get(id);
  }

  /** The real name of a topic as written in the topology: internal (repartition) topics get the application id. */
  topicName(topic: string): string {
    return this.topology.isInternalTopic(topic) ? `${this.applicationId}-${topic}` : topic;
  }

  /** The changelog of a store, or undefined when the store is not logged (or unknown). */
  changelogTopic(store: string): string | undefined {
    return this.changelogs.get(store);
  }

  get hasPatterns(): boolean {
    return this.subtopologies.some((s) => s.sourcePatterns.length > 0);
  }

  /** What the consumer subscribes to: every named source topic, and the source patterns. */
  subscription(): { topics: string[]; patterns: RegExp[] } {
    return {
      topics: [...new Set(this.subtopologies.flatMap((s) => s.sourceTopics))],
      patterns: this.subtopologies.flatMap((s) => s.sourcePatterns),
    };
  }

  /** The sub-topology that reads a (real) topic, named or through a pattern. */
  readerOf(topic: string): SubtopologyMetadata | undefined {
    let reader = this.readers.get(topic);
    if (reader === undefined) {
      reader = this.subtopologies.find((s) => s.sourcePatterns.some((p) => p.test(topic))) ?? null;
      this.readers.set(topic, reader);
    }
    return reader ?? undefined;
  }

  /** The task that processes a consumed partition, or undefined for a topic no source reads. */
  taskOf(tp: TopicPartition): TaskId | undefined {
    const reader = this.readerOf(tp.topic);
    return reader && { subtopology: reader.id, partition: tp.partition };
  }

  /** A sub-topology's source topics among `topics` (the topics a group's members subscribed to): named and matched. */
  sourceTopicsAmong(sub: SubtopologyMetadata, topics: Iterable<string>): string[] {
    const result = [...sub.sourceTopics];
    for (const topic of topics) {
      if (!result.includes(topic) && this.readerOf(topic) === sub) result.push(topic);
    }
    return result;
  }

  /** A task's input partitions: partition p of each source topic of its sub-topology that has one. */
  partitionsOfTask(taskId: string, partitionCounts: ReadonlyMap<string, number>): TopicPartition[] {
    const id = parseTaskId(taskId);
    const sub = id && this.subtopology(id.subtopology);
    if (!id || !sub) return [];
    return this.sourceTopicsAmong(sub, partitionCounts.keys())
      .filter((topic) => id.partition < (partitionCounts.get(topic) ?? 0))
      .map((topic) => ({ topic, partition: id.partition }));
  }

  /** Topics among `topics` that only a source pattern reads. */
  patternMatches(topics: Iterable<string>): string[] {
    return [...topics].filter((t) => this.readerOf(t) !== undefined && !this.subtopologies.some((s) => s.sourceTopics.includes(t)));
  }

  /** The sub-topology that holds a store. */
  subtopologyOfStore(store: string): SubtopologyMetadata | undefined {
    return this.subtopologies.find((s) => s.stores.some((st) => st.name === store));
  }
}
