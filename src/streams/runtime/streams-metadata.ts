import { partitionForKey } from '../kafka/murmur2';
import { describeGroup, type KafkaAdmin, type TopicPartition } from '../kafka';
import { decodeAssignment } from './assignment/assignment-info';
import { decodeSubscription, type SubscriptionInfo } from './assignment/subscription-info';
import type { TopologyMetadata } from './topology-metadata';
import { parseEndpoint } from './streams-config';

/** One process of the application, as the group shows it (Kafka Streams' `StreamsMetadata`). */
export interface StreamsMetadata {
  processId: string;
  /** `application.server` (`host:port`), or undefined when the process set none. */
  endpoint: string | undefined;
  host: string | undefined;
  port: number | undefined;
  grpcEndpoint: string | undefined;
  stateStoreNames: string[];
  topicPartitions: TopicPartition[];
  standbyStateStoreNames: string[];
  standbyTopicPartitions: TopicPartition[];
  isLocal: boolean;
}

/** Who answers for a key of a store (Kafka Streams' `KeyQueryMetadata`). */
export interface KeyQueryMetadata {
  /** Undefined: no process owns the key's partition right now. */
  activeHost: StreamsMetadata | undefined;
  standbyHosts: StreamsMetadata[];
  partition: number;
}

export interface GroupMemberView {
  memberId: string;
  info: SubscriptionInfo;
  partitions: TopicPartition[];
  /** The input partitions of the standby tasks of the member's process (each member of a process carries them all). */
  standbyPartitions?: TopicPartition[];
}

/** A member of the group as the last read found it: the thread's consumer and its process. */
export interface GroupMemberSummary {
  readonly memberId: string;
  readonly processId: string;
  /** `application.server`, when the process set one. */
  readonly endpoint: string | undefined;
}

/** What a read of the group tells this process beside the host map. */
export interface GroupNews {
  /** This process's standby tasks; undefined when the group has no member of this process. */
  readonly localStandbyTasks?: readonly string[];
  /** Which of those are warm-ups. */
  readonly localWarmupTasks?: readonly string[];
  /** The process id of a node that asked the application to shut down (SHUTDOWN_APPLICATION). */
  readonly shutdownRequestedBy?: string;
}

/**
 * The host map: for every process of the application, its endpoints, partitions and stores, rebuilt from the
 * consumer group after each rebalance. Before the first rebalance it is not initialized.
 */
export class StreamsMetadataState {
  private hosts: StreamsMetadata[] = [];
  private groupMembers: GroupMemberSummary[] = [];
  private initialized = false;
  private partitionCounts = new Map<string, number>();
  private readonly globalStores: readonly string[];

  constructor(
    private readonly metadata: TopologyMetadata,
    private readonly localProcessId: string,
  ) {
    this.globalStores = metadata.topology.globalStores().map((g) => g.storeName);
  }

  get isInitialized(): boolean {
    return this.initialized;
  }

  /**
   * Rebuilds the host map from the group once it is stable. Answers what the group tells this process: its
   * standby tasks, which reach a node only this way (kafkajs drops assignment userData), or that a node asked the
   * application to shut down (the host map is then left as it was); undefined while the group rebalances.
   */
  async refresh(admin: KafkaAdmin, groupId: string, partitionCounts: ReadonlyMap<string, number>): Promise<GroupNews | undefined> {
    const group = await describeGroup(admin, groupId);
    if (group.state !== 'Stable') return undefined;
    const assignments = group.members.map((m) => decodeAssignment(m.assignmentUserData));
    const shutdownRequestedBy = assignments.find((a) => a.shutdownRequestedBy !== undefined)?.shutdownRequestedBy;
    if (shutdownRequestedBy !== undefined) return { shutdownRequestedBy };
    const members = group.members.map((m, i) => {
      const standbyTasks = assignments[i]!.standbyTasks;
      return {
        memberId: m.memberId,
        info: decodeSubscription(m.userData, m.memberId),
        partitions: m.partitions,
        standbyPartitions: standbyTasks.flatMap((t) => this.metadata.partitionsOfTask(t, partitionCounts)),
        standbyTasks,
        warmupTasks: assignments[i]!.warmupTasks ?? [],
      };
    });
    this.update(members, partitionCounts);
    const local = members.find((m) => m.info.processId === this.localProcessId);
    return local ? { localStandbyTasks: local.standbyTasks, localWarmupTasks: local.warmupTasks } : {};
  }

  update(members: readonly GroupMemberView[], partitionCounts: ReadonlyMap<string, number>): void {
    this.partitionCounts = new Map(partitionCounts);
    this.groupMembers = members.map((m) => ({ memberId: m.memberId, processId: m.info.processId, endpoint: m.info.endpoint || undefined }));
    const byProcess = new Map<string, { info: SubscriptionInfo; partitions: TopicPartition[]; standbyPartitions: TopicPartition[] }>();
    for (const member of members) {
      const entry = byProcess.get(member.info.processId) ?? { info: member.info, partitions: [], standbyPartitions: [...(member.standbyPartitions ?? [])] };
      entry.partitions.push(...member.partitions);
      byProcess.set(member.info.processId, entry);
    }
    this.hosts = [...byProcess.entries()].map(([processId, { info, partitions, standbyPartitions }]) => {
      const endpoint = info.endpoint || undefined;
      const parsed = endpoint ? parseEndpoint('application.server', endpoint) : undefined;
      partitions.sort(comparePartitions);
      standbyPartitions.sort(comparePartitions);
      return {
        processId,
        endpoint,
        host: parsed?.host,
        port: parsed?.port,
        grpcEndpoint: info.grpcEndpoint || undefined,
        // Every process holds every global store whole, as Kafka Streams lists them.
        stateStoreNames: [...this.storesOf(partitions), ...this.globalStores].sort(),
        topicPartitions: partitions,
        standbyStateStoreNames: this.storesOf(standbyPartitions),
        standbyTopicPartitions: standbyPartitions,
        isLocal: processId === this.localProcessId,
      };
    });
    this.hosts.sort((a, b) => (a.host ?? '').localeCompare(b.host ?? '') || (a.port ?? 0) - (b.port ?? 0) || a.processId.localeCompare(b.processId));
    this.initialized = true;
  }

  /** The group's members at the last read. */
  members(): readonly GroupMemberSummary[] {
    return this.groupMembers;
  }

  /** Forgets the map (the instance stopped). */
  reset(): void {
    this.hosts = [];
    this.groupMembers = [];
    this.initialized = false;
  }

  allMetadata(): StreamsMetadata[] {
    return this.hosts.map((h) => ({ ...h }));
  }

  localMetadata(): StreamsMetadata | undefined {
    return this.hosts.find((h) => h.isLocal);
  }

  /** Processes that host at least one active partition of the store (the query planner's fan-out; standbys answer no queries yet). */
  metadataForStore(store: string): StreamsMetadata[] {
    return this.hosts.filter((h) => h.stateStoreNames.includes(store));
  }

  /** Source topics (real names) of the sub-topology that holds the store; undefined for an unknown store. */
  sourceTopicsForStore(store: string): string[] | undefined {
    const sub = this.metadata.subtopologyOfStore(store);
    return sub && this.metadata.sourceTopicsAmong(sub, this.partitionCounts.keys());
  }

  /**
   * How many partitions the store has: as many as its widest source topic (its tasks). Undefined for an unknown or
   * global store or before initialization.
   */
  partitionCount(store: string): number | undefined {
    const topics = this.sourceTopicsForStore(store);
    if (!topics || !this.initialized) return undefined;
    const maxPartitions = Math.max(0, ...topics.map((t) => this.partitionCounts.get(t) ?? 0));
    return maxPartitions === 0 ? undefined : maxPartitions;
  }

  /**
   * The partition and owner of a serialized key: murmur2 over the store's partition count, as Kafka Streams'
   * `queryMetadataForKey`. Undefined for an unknown store or before initialization.
   */
  keyQueryMetadata(store: string, keyBytes: Buffer): KeyQueryMetadata | undefined {
    const topics = this.sourceTopicsForStore(store);
    const maxPartitions = this.partitionCount(store);
    if (!topics || maxPartitions === undefined) return undefined;
    const partition = partitionForKey(keyBytes, maxPartitions);
    const holds = (list: readonly TopicPartition[]): boolean => list.some((tp) => tp.partition === partition && topics.includes(tp.topic));
    const activeHost = this.hosts.find((h) => h.stateStoreNames.includes(store) && holds(h.topicPartitions));
    const standbyHosts = this.hosts.filter((h) => h.standbyStateStoreNames.includes(store) && holds(h.standbyTopicPartitions));
    return { activeHost, standbyHosts, partition };
  }

  private storesOf(partitions: readonly TopicPartition[]): string[] {
    const stores = new Set<string>();
    for (const tp of partitions) for (const store of this.metadata.readerOf(tp.topic)?.stores ?? []) stores.add(store.name);
    return [...stores].sort();
  }
}

function comparePartitions(a: TopicPartition, b: TopicPartition): number {
  return a.topic.localeCompare(b.topic) || a.partition - b.partition;
}
