/** Schemas of `/api/v1/applications` (compatibility file, sections 3 and 5). */

import { applicationIdParam, stringArray } from './common';
import { endpoint } from './streams';

const assignments = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'partitions'],
    properties: { name: { type: 'string', description: 'Topic' }, partitions: { type: 'array', items: { type: 'integer' } } },
  },
} as const;

export const applicationInstance = {
  type: 'object',
  required: ['id', 'isLocal', 'metadata'],
  properties: {
    id: { type: ['string', 'null'], description: 'The local instance id, null for other processes' },
    endpoint,
    isLocal: { type: 'boolean' },
    metadata: {
      type: 'object',
      required: ['stores', 'assignments', 'standbyStateStores', 'standbyAssignments'],
      properties: { stores: stringArray, assignments, standbyStateStores: stringArray, standbyAssignments: assignments },
    },
  },
} as const;

export const application = {
  type: 'object',
  required: ['id', 'instances'],
  properties: { id: { type: 'string' }, instances: { type: 'array', items: applicationInstance } },
} as const;

export const storeParams = {
  type: 'object',
  required: ['applicationId', 'name'],
  properties: { applicationId: applicationIdParam, name: { type: 'string', description: 'Store name' } },
} as const;

export const storeQueryBody = {
  type: 'object',
  description: 'Checked in full by the query engine, which names what is wrong; type and query are required',
  properties: {
    type: {
      type: 'string',
      description: 'key_value, timestamped_key_value, window, timestamped_window, session or versioned_key_value (any case)',
    },
    set_options: {
      type: 'object',
      description:
        'retries, retry_backoff_ms, query_timeout_ms, remote_access_allowed, limit, next (the continuation token a paged answer gave: ' +
        'opaque, URL-safe, valid for an hour and for the same application, store, clause and parameters; anything else is a 400 InvalidQuery), ' +
        'allow_stale (boolean: a keyed query whose active replica is unreachable or restoring is answered by a standby replica, and a query ' +
        'over every partition reads the partitions of a node that does not answer from their standbys; success parts then carry standby and lag) and max_lag (records, with allow_stale only: the most a standby may be behind its changelog to answer)',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
    query: {
      type: 'object',
      description:
        'Exactly one clause: its name maps to its parameters. key_value and timestamped_key_value: get{key}, range{key_from,key_to}, all{}, count{}, ' +
        'prefix_scan{prefix}, reverse_range{key_from,key_to}, reverse_all{}; window and timestamped_window: fetch{key,time}, ' +
        'fetch_key_range{key_from,key_to,time_from,time_to}, fetch_time_range{key,time_from,time_to}, fetch_all{time_from,time_to}, all{}; ' +
        'session: fetch{key}, fetch_key_range{key_from,key_to}; versioned_key_value: get{key, as_of?} (the latest version, or with as_of, ' +
        'epoch ms, the version valid then; records carry timestamp, the version\'s start, and valid_to unless it is the latest; ' +
        'a key_value get of a versioned store answers its latest value)',
      additionalProperties: { type: 'object' },
    },
  },
} as const;

const storeRecord = {
  type: 'object',
  required: ['key', 'value'],
  properties: {
    key: {},
    value: {},
    timestamp: { type: 'integer' },
    valid_to: { type: 'integer', description: 'versioned_key_value: when the version stopped being valid (absent for the latest)' },
  },
} as const;

export const storeQueryResult = {
  type: 'object',
  required: ['took', 'timeout', 'server', 'status', 'result'],
  properties: {
    took: { type: 'integer', description: 'Milliseconds' },
    timeout: { type: 'boolean' },
    server: { type: 'string', description: 'host:port of the answering server' },
    status: { type: 'string', enum: ['SUCCESS', 'PARTIAL', 'ERROR', 'NO_RESULT', 'NOT_AVAILABLE'] },
    next: {
      type: 'string',
      description:
        'Paging (limit set on a key-value all, reverse_all, range or reverse_range, a window fetch_key_range, fetch_time_range, fetch_all or all, ' +
        'a session fetch or fetch_key_range): present while records remain; send the same query with ' +
        'set_options.next set to it for the next page. It holds a position per store partition, so pages stay right whichever ' +
        'servers hold the partitions; each part still answers at most limit records, and a failed part is read again from where it was.',
    },
    result: {
      type: 'object',
      required: ['total', 'success', 'failure'],
      properties: {
        store: { type: 'string' },
        type: { type: 'string' },
        total: { type: 'integer' },
        success: {
          type: 'array',
          items: {
            type: 'object',
            required: ['server', 'remote', 'total', 'records'],
            properties: {
              server: { type: 'string' },
              remote: { type: 'boolean' },
              total: { type: 'integer' },
              records: { type: 'array', items: storeRecord },
              standby: { type: 'boolean', description: 'With set_options.allow_stale only: whether a standby replica answered this part (any of its partitions)' },
              lag: {
                type: 'integer',
                description: 'With set_options.allow_stale only: records of its changelog the replica that answered had not read yet (0 for an active; the largest among the part\'s partitions)',
              },
            },
          },
        },
        failure: {
          type: 'array',
          items: {
            type: 'object',
            required: ['server', 'remote', 'errors'],
            properties: {
              server: { type: 'string' },
              remote: { type: 'boolean' },
              errors: {
                type: 'array',
                items: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
              },
            },
          },
        },
        error: { type: 'string' },
      },
    },
  },
} as const;

export const storeRecords = { type: 'array', items: storeRecord } as const;
