/** Schemas of `/api/v1/streams` and everything under it (compatibility file, section 2). */

import { DEPLOYABLE_CLIENT_KEYS, DEPLOYABLE_CLIENT_PREFIXES, DEPLOYABLE_STREAMS_KEYS, DEPLOYABLE_TOPIC_KEYS } from '../deploy-config';
import { applicationIdParam, configMap, stringArray, zonedTimestamp } from './common';

export const INSTANCE_STATES = [
  'CREATED',
  'REBALANCING',
  'RUNNING',
  'PENDING_SHUTDOWN',
  'NOT_RUNNING',
  'PENDING_ERROR',
  'ERROR',
  'STOPPED',
] as const;

const instanceState = { type: 'string', enum: INSTANCE_STATES } as const;

export const endpoint = {
  type: 'object',
  required: ['address', 'port'],
  properties: { address: { type: 'string' }, port: { type: 'integer' } },
} as const;

export const applicationIds = { ...stringArray, description: 'Application ids of the instances of this process' } as const;

export const instance = {
  type: 'object',
  required: ['id', 'since', 'state', 'version', 'description', 'config', 'name'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string', description: 'Name of the topology' },
    version: { type: 'string', description: 'Version of the topology' },
    description: { type: ['string', 'null'] },
    since: zonedTimestamp,
    state: {
      type: 'object',
      required: ['state', 'since'],
      properties: { state: instanceState, since: zonedTimestamp },
    },
    config: configMap,
    endpoint: { ...endpoint, description: 'From application.server; absent when unset' },
    exception: { type: 'string', description: 'The last fatal error; absent when none' },
  },
} as const;

const topicPartition = {
  type: 'object',
  required: ['topic', 'partition'],
  properties: { topic: { type: 'string' }, partition: { type: 'integer' } },
} as const;

const task = {
  type: 'object',
  required: ['task_id', 'topic_partitions'],
  properties: {
    task_id: { type: 'string' },
    topic_partitions: { type: 'array', items: topicPartition },
    lag: { type: 'integer', description: 'Standby tasks only: records their stores are behind their changelogs (-1 until first read)' },
  },
} as const;

export const status = {
  type: 'object',
  required: ['id', 'state', 'threads'],
  properties: {
    id: { type: 'string' },
    state: instanceState,
    threads: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'state', 'active_tasks', 'standby_tasks', 'clients'],
        properties: {
          name: { type: 'string' },
          state: { type: 'string' },
          active_tasks: { type: 'array', items: task },
          standby_tasks: { type: 'array', items: task },
          clients: {
            type: 'object',
            required: ['consumer_client_id', 'producer_client_ids', 'restore_consumer_client_id', 'admin_client_id'],
            properties: {
              consumer_client_id: { type: 'string' },
              producer_client_ids: stringArray,
              restore_consumer_client_id: { type: 'string' },
              admin_client_id: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;

export const config = { ...configMap, description: 'Keys sorted; secret values shown as [hidden]' } as const;

const position = {
  type: 'object',
  required: [
    'topic',
    'partition',
    'consumed_offset',
    'consumed_timestamp',
    'committed_offset',
    'committed_timestamp',
    'log_end_offset',
    'log_start_offset',
    'lag',
  ],
  properties: {
    topic: { type: 'string' },
    partition: { type: 'integer' },
    consumed_offset: { type: 'integer' },
    consumed_timestamp: { type: 'integer', description: 'Epoch ms' },
    committed_offset: { type: 'integer' },
    committed_timestamp: { type: 'integer', description: 'Epoch ms' },
    log_end_offset: { type: 'integer' },
    log_start_offset: { type: 'integer' },
    lag: { type: 'integer', description: 'max(log_end_offset - consumed_offset - 1, 0); -1 when unknown' },
  },
} as const;

export const offsets = {
  type: 'object',
  required: ['group', 'consumers'],
  properties: {
    group: { type: 'string' },
    consumers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['client_id', 'stream_thread', 'positions'],
        properties: {
          client_id: { type: 'string' },
          stream_thread: { type: 'string' },
          positions: { type: 'array', items: position },
        },
      },
    },
  },
} as const;

const lagPoint = {
  type: 'object',
  required: ['time', 'lag', 'time_lag_ms'],
  properties: {
    time: { type: 'integer', description: 'Epoch ms of the sample (per minute: of its last sample)' },
    lag: { type: 'integer', description: 'Records behind, summed over the partitions (per minute: the largest)' },
    time_lag_ms: {
      type: ['integer', 'null'],
      description:
        "How long ago the log end passed the consumer's position, the largest over the partitions, estimated from the end offsets' history (at least the history's span when it does not reach back that far); null while unknown",
    },
  },
} as const;

export const lagHistoryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    range: { type: 'string', enum: ['15m', '1h', '24h'], default: '1h', description: '15m and 1h: every sample (10 s); 24h: one per minute' },
  },
} as const;

export interface LagHistoryQuery {
  range: '15m' | '1h' | '24h';
}

export const lagHistory = {
  type: 'object',
  required: ['group', 'range', 'step_ms', 'total', 'topics'],
  properties: {
    group: { type: 'string', description: 'The consumer group (the application id)' },
    range: { type: 'string', enum: ['15m', '1h', '24h'] },
    step_ms: { type: 'integer', description: 'Time between samples: 10 000, or 60 000 per minute' },
    total: { type: 'array', items: lagPoint, description: "The group's lag on this node's partitions, oldest first" },
    topics: {
      type: 'array',
      description: 'Per topic (at most 32, by name), oldest first',
      items: { type: 'object', required: ['topic', 'points'], properties: { topic: { type: 'string' }, points: { type: 'array', items: lagPoint } } },
    },
  },
} as const;

const nullableTimestamp = { ...zonedTimestamp, type: ['string', 'null'] } as const;

const timelineNode = {
  id: { type: 'integer', description: "The entry's number on this node's timeline: an update of an entry (an SSE event) has the same" },
  process_id: { type: 'string', description: "The node's process id: with the time, what merges several nodes' timelines" },
  application_server: { type: ['string', 'null'], description: "The node's application.server" },
} as const;

const movedTask = {
  type: 'object',
  required: ['task_id', 'role'],
  properties: {
    task_id: { type: 'string' },
    role: { type: 'string', enum: ['active', 'standby', 'warmup'], description: 'warmup: a standby the assignor gave to catch up before the task moves (KIP-441)' },
    restored_records: { type: 'integer', description: 'A gained active task: records its stores restored after this rebalance' },
    restore_done: { type: 'boolean', description: 'Whether those restores ended' },
  },
} as const;

const rebalanceCause = {
  type: 'object',
  required: ['type', 'description'],
  properties: {
    type: {
      type: 'string',
      enum: [
        'instance_started',
        'thread_added',
        'thread_removed',
        'thread_failed',
        'thread_replaced',
        'probing_rebalance',
        'new_topics',
        'shutdown_requested',
        'dropped_from_group',
        'member_joined',
        'member_left',
        'member_rejoined',
        'members_changed',
        'unknown',
      ],
      description:
        "This node's own reasons (instance_started to dropped_from_group), or what its reads of the group before and after show of another process (member_*: member_left is a LeaveGroup or a session timeout, which the group does not tell apart); unknown: neither explains it",
    },
    description: { type: 'string', description: 'The cause in a line' },
    thread: { type: 'string', description: 'The stream thread added, removed, failed or replaced' },
    replacement: { type: 'string', description: 'thread_replaced: the new thread' },
    error: { type: 'string', description: "thread_failed, shutdown_requested: the failure's message" },
    tasks: stringArray,
    topics: stringArray,
    process_id: { type: 'string', description: 'member_*: the process' },
    application_server: { type: ['string', 'null'], description: "member_*: the process's application.server" },
    members: { type: 'integer', description: "member_joined, member_left, member_rejoined: the process's members (its stream threads)" },
    before: { type: 'integer', description: "members_changed: the process's members before" },
    after: { type: 'integer', description: 'members_changed: and after' },
  },
} as const;

const rebalanceEntry = {
  type: 'object',
  required: ['id', 'type', 'process_id', 'application_server', 'started_at', 'ended_at', 'duration_ms', 'generation', 'causes', 'tasks_gained', 'tasks_lost'],
  properties: {
    type: { type: 'string', enum: ['rebalance'] },
    ...timelineNode,
    started_at: { ...zonedTimestamp, description: 'When this node began to join: a thread revoked its partitions, or a new thread joined' },
    ended_at: { ...nullableTimestamp, description: 'When the assignment was applied (by the last of its threads); null while this node waits for it' },
    duration_ms: { type: ['integer', 'null'] },
    generation: { type: ['integer', 'null'], description: "The group's generation; null until the assignment" },
    causes: { type: 'array', items: rebalanceCause },
    tasks_gained: { type: 'array', items: movedTask },
    tasks_lost: { type: 'array', items: movedTask },
  },
} as const;

const restoreEntry = {
  type: 'object',
  required: [
    'id',
    'type',
    'process_id',
    'application_server',
    'task_id',
    'store',
    'topic',
    'partition',
    'start_offset',
    'end_offset',
    'restored',
    'remaining',
    'rate',
    'estimated_remaining_ms',
    'done',
    'started_at',
    'ended_at',
    'duration_ms',
  ],
  properties: {
    type: { type: 'string', enum: ['restore'] },
    ...timelineNode,
    task_id: { type: 'string' },
    store: { type: 'string' },
    topic: { type: 'string', description: 'The changelog' },
    partition: { type: 'integer' },
    start_offset: { type: 'integer', description: 'Where the restore began: the checkpoint, or the log start' },
    end_offset: { type: 'integer', description: "Where it ends: the changelog's end when first read" },
    restored: { type: 'integer', description: 'Records restored so far' },
    remaining: { type: 'integer', description: 'Offsets still to read' },
    rate: { type: 'number', description: 'Records per second, over the restore so far' },
    estimated_remaining_ms: { type: ['integer', 'null'], description: 'The time left at that rate while it runs; null once done' },
    done: { type: 'boolean' },
    started_at: zonedTimestamp,
    ended_at: nullableTimestamp,
    duration_ms: { type: 'integer', description: 'So far, while it runs' },
  },
} as const;

export const timelineEntry = { oneOf: [rebalanceEntry, restoreEntry] } as const;

export const TIMELINE_SCOPES = ['local', 'cluster'] as const;

export const timelineQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scope: {
      type: 'string',
      enum: TIMELINE_SCOPES,
      default: 'local',
      description: "local: this node's timeline; cluster: every node's of the application (the host map), merged by start time, and which nodes answered",
    },
  },
} as const;

export interface TimelineQuery {
  scope: (typeof TIMELINE_SCOPES)[number];
}

const timelineNodeName = {
  server: { type: 'string', description: "The node's application.server (else its gRPC endpoint, else its process id)" },
  process_id: { type: ['string', 'null'], description: "The node's process id; null for this node before its first assignment" },
  remote: { type: 'boolean', description: 'false for the node that answers' },
} as const;

export const timeline = {
  type: 'object',
  required: ['application_id', 'entries'],
  properties: {
    application_id: { type: 'string' },
    entries: {
      type: 'array',
      description:
        "The rebalances and restores, oldest first: this node's last 200, empty while the instance is stopped; with scope=cluster, those of every node that answered, merged by start time",
      items: timelineEntry,
    },
    success: {
      type: 'array',
      description: 'scope=cluster only: the nodes whose entries are in the answer, this node first',
      items: {
        type: 'object',
        required: ['server', 'process_id', 'remote', 'total'],
        properties: { ...timelineNodeName, total: { type: 'integer', description: "The node's entries" } },
      },
    },
    failure: {
      type: 'array',
      description: "scope=cluster only: the other nodes of the application that did not answer in time (5 s), and why, as a query's failure parts",
      items: {
        type: 'object',
        required: ['server', 'process_id', 'remote', 'errors'],
        properties: {
          ...timelineNodeName,
          errors: { type: 'array', items: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } },
        },
      },
    },
  },
} as const;

export const metricGroups = {
  type: 'array',
  description: 'Metric groups sorted by name, metrics by name then tags',
  items: {
    type: 'object',
    required: ['name', 'metrics'],
    properties: {
      name: { type: 'string' },
      metrics: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'description', 'tags', 'value'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            tags: { type: 'object', additionalProperties: { type: 'string' } },
            value: { type: 'number' },
          },
        },
      },
    },
  },
} as const;

export const metricsQuery = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['json', 'prometheus'], description: 'prometheus: text exposition format 0.0.4' },
    filter_empty: { type: 'string', description: 'Present (with any value): leave out metrics with no measurement or zero' },
  },
} as const;

export interface MetricsQuery {
  format?: 'json' | 'prometheus';
  filter_empty?: string;
}

export const metricGroupParams = {
  type: 'object',
  required: ['applicationId', 'group'],
  properties: { applicationId: applicationIdParam, group: { type: 'string' } },
} as const;

export const metricNameParams = {
  type: 'object',
  required: ['applicationId', 'group', 'name'],
  properties: { applicationId: applicationIdParam, group: { type: 'string' }, name: { type: 'string' } },
} as const;

export const action = {
  type: 'object',
  required: ['id', 'state'],
  properties: { id: { type: 'string' }, state: { ...instanceState, description: 'State at the moment of the answer' } },
} as const;

export const stopBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cleanup: { type: 'boolean', default: false, description: 'Remove the local state directory after closing' },
    leaveGroup: {
      type: 'boolean',
      default: false,
      description:
        "With group.instance.id (static membership): once its threads have stopped, remove them from the consumer group, so that their partitions move to the other nodes at once instead of after session.timeout.ms (Kafka Streams' close with leaveGroup). For a node that is going away for good.",
    },
  },
} as const;

export interface StopBody {
  cleanup?: boolean;
  leaveGroup?: boolean;
}

export const storeStatus = {
  type: 'array',
  items: {
    type: 'object',
    required: ['store', 'partition', 'changelog', 'current_offset', 'log_end_offset', 'lag'],
    properties: {
      store: { type: 'string' },
      partition: { type: 'integer' },
      changelog: { type: ['string', 'null'] },
      current_offset: { type: 'integer' },
      log_end_offset: { type: 'integer' },
      lag: { type: 'integer' },
      last_restoration: {
        type: 'object',
        required: ['topic', 'partition', 'starting_offset', 'ending_offset', 'total_restored', 'duration_ms'],
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          starting_offset: { type: 'integer' },
          ending_offset: { type: 'integer' },
          total_restored: { type: 'integer' },
          duration_ms: { type: 'integer' },
        },
      },
      restoring: {
        type: 'object',
        description: "While the store's changelog is being restored (current_offset is how far); absent otherwise. Sluice's, beyond the contract",
        required: ['starting_offset', 'ending_offset'],
        properties: {
          starting_offset: { type: 'integer' },
          ending_offset: { type: ['integer', 'null'], description: "The changelog's end found by the restore's first fetch; null until then" },
        },
      },
      size_bytes: { type: 'integer', description: "Bytes the store takes on disk; absent for a store held in memory. Sluice's, beyond the contract" },
    },
  },
} as const;

export const deployBody = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', minLength: 1, description: 'Topology name or alias' },
    version: { type: 'string', minLength: 1, description: 'A version, or latest (the default)' },
    name: { type: 'string', minLength: 1, description: 'Application id of the new instance, unless config sets application.id' },
    description: { type: 'string' },
    config: {
      ...configMap,
      description:
        "Settings of the new instance over the node's own. Only these keys (others are a 400 ConfigKeyNotAllowed): " +
        `${[...DEPLOYABLE_STREAMS_KEYS, ...DEPLOYABLE_TOPIC_KEYS].join(', ')}; ` +
        `and ${DEPLOYABLE_CLIENT_KEYS.join(', ')} under the prefixes ${DEPLOYABLE_CLIENT_PREFIXES.join(', ')}`,
    },
  },
} as const;

export const deployed = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', description: 'Application id of the new instance' } },
} as const;

export const eventParams = {
  type: 'object',
  required: ['applicationId', 'eventType'],
  properties: { applicationId: applicationIdParam, eventType: { type: 'string' } },
} as const;
