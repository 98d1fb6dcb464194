import type { TopologyDescription } from '../topology/description';
import type { StreamsMetadata, KeyQueryMetadata } from './streams-metadata';
import type { StateChange, StreamsState } from './streams-state';
import type { StreamsConfig } from './streams-config';
import type { RestoreProgress } from './changelog-restorer';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import type { QueryableStores } from './queryable-stores';
import type { TimelineEntry } from './rebalance-timeline';
import type { MemoryPressure } from './memory-budget';

/** Kafka Streams' thread states. */
export type ThreadState =
  | 'CREATED'
  | 'STARTING'
  | 'PARTITIONS_REVOKED'
  | 'PARTITIONS_ASSIGNED'
  | 'RUNNING'
  | 'PENDING_SHUTDOWN'
  | 'DEAD';

export interface TaskMetadata {
  taskId: string;
  topicPartitions: { topic: string; partition: number }[];
  /** Standby tasks: records its stores are behind their changelogs (-1 until first fetched). */
  lag?: number;
}

export interface ThreadMetadata {
  name: string;
  state: ThreadState;
  activeTasks: TaskMetadata[];
  standbyTasks: TaskMetadata[];
  clients: {
    consumerClientId: string;
    producerClientIds: string[];
    restoreConsumerClientId: string;
    adminClientId: string;
  };
}

/** One consumed partition, for the offsets resource. */
export interface PartitionPosition {
  topic: string;
  partition: number;
  consumedOffset: number;
  consumedTimestamp: number;
  committedOffset: number;
  committedTimestamp: number;
  logEndOffset: number;
  logStartOffset: number;
  lag: number;
}

export interface ConsumerOffsets {
  group: string;
  consumers: { clientId: string; streamThread: string; positions: PartitionPosition[] }[];
}

/** A store partition of this instance, for the stores resource. */
export interface StorePartitionStatus {
  store: string;
  partition: number;
  changelog: string | undefined;
  currentOffset: number;
  logEndOffset: number;
  lag: number;
  lastRestoration?: LastRestoration;
  /** While its changelog is being restored (`currentOffset` is how far). */
  restoring?: RestoringSpan;
  /** Bytes on disk; absent for a store with none (in memory). */
  sizeBytes?: number;
}

/** A restore under way: where it began, and the end its first fetch found (undefined until then). */
export interface RestoringSpan {
  startingOffset: number;
  endingOffset: number | undefined;
}

/** The last restoration of a store partition. */
export interface LastRestoration {
  topic: string;
  partition: number;
  startingOffset: number;
  endingOffset: number;
  totalRestored: number;
  durationMs: number;
}

export interface RebalanceEvent {
  generation: number;
  activeTasks: string[];
  standbyTasks: string[];
}

export type RestoreEvent = RestoreProgress & { store: string };

/**
 * A stream thread's life beyond the rebalances: `failed` (with the handler's response), `replaced` (by
 * `replacement`), `added` and `removed` (addStreamThread and removeStreamThread).
 */
export interface ThreadEvent {
  thread: string;
  action: 'failed' | 'replaced' | 'added' | 'removed';
  replacement?: string;
  /** The failure's message (failed). */
  error?: string;
  /** What the uncaught-exception handler decided (failed). */
  response?: string;
}

/** A record a processor published to one of the topology's event types. */
export interface TopologyEvent {
  type: string;
  key: unknown;
  value: unknown;
  timestamp: number;
}

export interface StreamsEvents {
  state: [StateChange];
  rebalance: [RebalanceEvent];
  restore: [RestoreEvent];
  /** A timeline entry added or updated (a restore's progress at most once a second). */
  timeline: [TimelineEntry];
  topologyEvent: [TopologyEvent];
  thread: [ThreadEvent];
  /** A part of the node's memory budget stayed at its bound (MemoryBudget). */
  memory: [MemoryPressure];
  error: [Error];
}

/** What the layers above (cluster, query, server, host) read of a running instance. */
export interface InstanceView extends QueryableStores {
  readonly applicationId: string;
  readonly config: StreamsConfig;
  readonly state: StreamsState;
  /** Epoch ms of the last state change. */
  readonly stateSince: number;
  /** Epoch ms the instance was created. */
  readonly createdAt: number;
  /** The last fatal error, if any. */
  readonly lastError: Error | undefined;
  readonly metrics: MetricsRegistry;
  describe(): TopologyDescription;
  threads(): ThreadMetadata[];
  offsets(): Promise<ConsumerOffsets>;
  storeStatus(): Promise<StorePartitionStatus[]>;
  /** The rebalances this node took part in and its restores, oldest first. */
  timeline(): TimelineEntry[];
  /** Host map. */
  allMetadata(): StreamsMetadata[];
  metadataForStore(store: string): StreamsMetadata[];
  keyQueryMetadata(store: string, keyBytes: Buffer): KeyQueryMetadata | undefined;
  /** Source topics (real names) of the sub-topology that holds the store: its partitions are theirs. */
  sourceTopicsForStore(store: string): string[] | undefined;
  /** How many partitions the store has (its widest source topic's); undefined for a global store or before the first assignment. */
  storePartitionCount(store: string): number | undefined;
}
