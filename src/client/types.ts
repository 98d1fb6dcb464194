/**
 * The resources of the management API as the client sees them (compatibility file, sections 2 to 6). Written out so
 * that they read well in an editor; `openapi-contract.test.ts` proves each one equal to the server's JSON schema of
 * the route, so the two cannot drift apart.
 */

export type InstanceState = 'CREATED' | 'REBALANCING' | 'RUNNING' | 'PENDING_SHUTDOWN' | 'NOT_RUNNING' | 'PENDING_ERROR' | 'ERROR' | 'STOPPED';

/** The error body of every 4xx and 5xx answer. */
export interface ErrorBody {
  error_code: number;
  message: string;
  /** Stable name from Sluice's error catalogue, e.g. `UnknownApplication`. */
  exception: string;
  path: string;
}

export type ConfigValue = string | number | boolean;

export interface Endpoint {
  address: string;
  port: number;
}

export interface Instance {
  id: string;
  /** Name of the topology. */
  name: string;
  /** Version of the topology. */
  version: string;
  description: string | null;
  /** ISO-8601 with offset and bracketed zone, e.g. `2026-11-22T01:30:00.123Z[UTC]`. */
  since: string;
  state: { state: InstanceState; since: string };
  config: Record<string, ConfigValue>;
  endpoint?: Endpoint;
  /** The last fatal error, when there was one. */
  exception?: string;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TaskStatus {
  task_id: string;
  topic_partitions: TopicPartition[];
  /** Standby tasks only: records their stores are behind their changelogs (-1 until first read). */
  lag?: number;
}

export interface InstanceStatus {
  id: string;
  state: InstanceState;
  threads: {
    name: string;
    state: string;
    active_tasks: TaskStatus[];
    standby_tasks: TaskStatus[];
    clients: {
      consumer_client_id: string;
      producer_client_ids: string[];
      restore_consumer_client_id: string;
      admin_client_id: string;
    };
  }[];
}

export interface ConsumerPosition {
  topic: string;
  partition: number;
  consumed_offset: number;
  /** Epoch ms. */
  consumed_timestamp: number;
  committed_offset: number;
  committed_timestamp: number;
  log_end_offset: number;
  log_start_offset: number;
  /** -1 when unknown. */
  lag: number;
}

export interface ConsumerOffsets {
  group: string;
  consumers: { client_id: string; stream_thread: string; positions: ConsumerPosition[] }[];
}

/** One sample of the lag history: records behind, and how long ago the log end passed the position (null: unknown). */
export interface LagPoint {
  time: number;
  lag: number;
  time_lag_ms: number | null;
}

/** The instance's lag over a time range, kept by the node: the group's total and each topic's, oldest first. */
export interface LagHistory {
  group: string;
  range: '15m' | '1h' | '24h';
  step_ms: number;
  total: LagPoint[];
  topics: { topic: string; points: LagPoint[] }[];
}

/** Why a rebalance happened, as far as the node knows: its own reasons, or a change it read in the group's membership. */
export interface RebalanceCause {
  type:
    | 'instance_started'
    | 'thread_added'
    | 'thread_removed'
    | 'thread_failed'
    | 'thread_replaced'
    | 'probing_rebalance'
    | 'new_topics'
    | 'shutdown_requested'
    | 'dropped_from_group'
    | 'member_joined'
    | 'member_left'
    | 'member_rejoined'
    | 'members_changed'
    | 'unknown';
  /** The cause in a line. */
  description: string;
  thread?: string;
  replacement?: string;
  error?: string;
  tasks?: string[];
  topics?: string[];
  /** member_*: the process, and its application.server. */
  process_id?: string;
  application_server?: string | null;
  members?: number;
  before?: number;
  after?: number;
}

export interface MovedTask {
  task_id: string;
  role: 'active' | 'standby' | 'warmup';
  /** A gained active task: records its stores restored after the rebalance. */
  restored_records?: number;
  restore_done?: boolean;
}

/** A rebalance the node took part in. `id` numbers the entry on its node's timeline; an update has the same. */
export interface RebalanceTimelineEntry {
  id: number;
  type: 'rebalance';
  process_id: string;
  application_server: string | null;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  generation: number | null;
  causes: RebalanceCause[];
  tasks_gained: MovedTask[];
  tasks_lost: MovedTask[];
}

/** A restore of one store partition from its changelog. */
export interface RestoreTimelineEntry {
  id: number;
  type: 'restore';
  process_id: string;
  application_server: string | null;
  task_id: string;
  store: string;
  topic: string;
  partition: number;
  start_offset: number;
  end_offset: number;
  restored: number;
  remaining: number;
  /** Records per second. */
  rate: number;
  estimated_remaining_ms: number | null;
  done: boolean;
  started_at: string;
  ended_at: string | null;
  duration_ms: number;
}

export type TimelineEntry = RebalanceTimelineEntry | RestoreTimelineEntry;

/** A node of the application as the cluster's timeline names it: application.server, else gRPC endpoint, else process id. */
export interface TimelineNode {
  server: string;
  /** null for the answering node before its first assignment. */
  process_id: string | null;
  /** false for the node that answered the request. */
  remote: boolean;
}

/**
 * The node's rebalances and restores, oldest first; with scope `cluster`, those of every node of the application that
 * answered, merged by start time, with which nodes answered (`success`) and which did not, and why (`failure`).
 */
export interface Timeline {
  application_id: string;
  entries: TimelineEntry[];
  success?: (TimelineNode & { total: number })[];
  failure?: (TimelineNode & { errors: { message: string }[] })[];
}

export interface Metric {
  name: string;
  description: string;
  tags: Record<string, string>;
  value: number;
}

export interface MetricGroup {
  name: string;
  metrics: Metric[];
}

/** The data of the built-in event types (compatibility file, section 6). */
export interface EventData {
  state: { state: InstanceState; previous: InstanceState; since: string; reason?: string };
  rebalance: { generation: number; active_tasks: string[]; standby_tasks: string[] };
  restore: { store: string; topic: string; partition: number; restored: number; total: number; remaining?: number; done: boolean };
  metrics: MetricGroup[];
  /** Sluice's: each entry of the node's timeline as it is added or updated. */
  timeline: TimelineEntry;
  /** Sent in place of events a slow subscriber lost: how many. */
  dropped: { dropped: number };
}

/** A topology's own event type publishes records. */
export interface RecordEventData {
  record: { key: unknown; value: unknown; timestamp: number };
}

export interface InstanceAction {
  id: string;
  /** The state at the moment of the answer: restart and stop go on after it. */
  state: InstanceState;
}

export interface StorePartitionStatus {
  store: string;
  partition: number;
  changelog: string | null;
  current_offset: number;
  log_end_offset: number;
  lag: number;
  last_restoration?: {
    topic: string;
    partition: number;
    starting_offset: number;
    ending_offset: number;
    total_restored: number;
    duration_ms: number;
  };
  /** While its changelog is being restored (`current_offset` is how far); Sluice's. */
  restoring?: { starting_offset: number; ending_offset: number | null };
  /** Bytes on disk; absent for a store held in memory; Sluice's. */
  size_bytes?: number;
}

export interface TopicAssignment {
  /** The topic. */
  name: string;
  partitions: number[];
}

export interface ApplicationInstance {
  /** The local instance id; null for other processes. */
  id: string | null;
  endpoint?: Endpoint;
  isLocal: boolean;
  metadata: {
    stores: string[];
    assignments: TopicAssignment[];
    standbyStateStores: string[];
    standbyAssignments: TopicAssignment[];
  };
}

export interface Application {
  id: string;
  instances: ApplicationInstance[];
}

export interface TopologyNode {
  type: 'SOURCE' | 'PROCESSOR' | 'SINK';
  name: string;
  predecessors: string[];
  successors: string[];
  /** Sources: topic names, or a pattern as `/regex/`. */
  topics?: string[];
  /** Sinks: the topic, or `<dynamic>`. */
  topic?: string;
  /** Processors: the connected stores. */
  stores?: string[];
}

export interface TopologyDag {
  subTopologies: { id: number; nodes: TopologyNode[] }[];
  globalStores: { id: number; source: TopologyNode; processor: TopologyNode }[];
}

export interface TopologyInfo {
  name: string;
  version: string;
  description: string;
  aliases: string[];
}

export type HealthStatus = 'UP' | 'DOWN' | 'UNKNOWN';

export interface HealthReport {
  status: HealthStatus;
  details: {
    applications: {
      name: 'applications';
      status: HealthStatus;
      details: Record<string, { status: HealthStatus; details: { state: string } }>;
    };
  };
}

export interface DeployRequest {
  /** Topology name or alias. */
  type: string;
  /** A version, or `latest` (the default). */
  version?: string;
  /** Application id of the new instance, unless config sets application.id. */
  name?: string;
  description?: string;
  config?: Record<string, ConfigValue>;
}

export interface Deployed {
  id: string;
}

export interface StopRequest {
  /** Remove the local state directory after closing; default false. */
  cleanup?: boolean;
  /** Static members leave the consumer group once stopped, so that their partitions move at once; default false. */
  leaveGroup?: boolean;
}

export type StoreType = 'key_value' | 'timestamped_key_value' | 'window' | 'timestamped_window' | 'session' | 'versioned_key_value';

export type ClauseName =
  | 'get'
  | 'range'
  | 'all'
  | 'count'
  | 'prefix_scan'
  | 'reverse_range'
  | 'reverse_all'
  | 'fetch'
  | 'fetch_key_range'
  | 'fetch_time_range'
  | 'fetch_all';

/** `set_options` as sent: the contract's snake_case names. A type, not an interface: it is also a map of options. */
export type SetOptions = {
  retries?: number;
  retry_backoff_ms?: number;
  query_timeout_ms?: number;
  remote_access_allowed?: boolean;
  /** -1: no limit; else the most records of each part. */
  limit?: number;
  /** The `next` of the previous page's result. */
  next?: string;
  /** A keyed query may be answered by a standby replica when its active is unreachable or restoring. */
  allow_stale?: boolean;
  /** With allow_stale: the most records a standby may be behind its changelog to answer. */
  max_lag?: number;
};

/** The store query body. Keys are JSON values, decoded by the store's key serde; times are epoch ms. */
export interface StoreQueryRequest {
  type: StoreType;
  set_options?: SetOptions;
  query: Partial<Record<ClauseName, Record<string, unknown>>>;
}

/** One record of a store, in the JSON the server answers; the store handles narrow it (records.ts). */
export interface StoreRecord {
  key: unknown;
  value: unknown;
  timestamp?: number;
  /** A past version of a versioned store: when it stopped being valid. */
  valid_to?: number;
}

export type QueryStatus = 'SUCCESS' | 'PARTIAL' | 'ERROR' | 'NO_RESULT' | 'NOT_AVAILABLE';

export interface SuccessPart<R = StoreRecord> {
  server: string;
  remote: boolean;
  total: number;
  records: R[];
  /** With allow_stale: whether a standby replica answered. */
  standby?: boolean;
  /** With allow_stale: records the replica that answered is behind its changelog (0 for an active). */
  lag?: number;
}

export interface FailurePart {
  server: string;
  remote: boolean;
  errors: { message: string }[];
}

/** The store query result: every part that answered, and every part that failed (none is dropped). */
export interface StoreQueryResult<R = StoreRecord> {
  /** Milliseconds. */
  took: number;
  timeout: boolean;
  /** host:port of the answering server. */
  server: string;
  status: QueryStatus;
  /** A paged query (`limit` on a key-value, window or session scan, docs/queries.md, "Paging") that has more: send it back as set_options.next. */
  next?: string;
  result: {
    store?: string;
    type?: string;
    total: number;
    success: SuccessPart<R>[];
    failure: FailurePart[];
    error?: string;
  };
}
