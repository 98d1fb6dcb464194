/**
 * Every route the client calls, as data: the client builds each request from this table, and
 * `openapi-contract.test.ts` checks each entry against the server's `/openapi.json` (path, method, parameters,
 * body, answer's media type) and each answer's type against the route's JSON schema.
 */

import type {
  Application,
  ApplicationInstance,
  ConsumerOffsets,
  DeployRequest,
  LagHistory,
  Deployed,
  HealthReport,
  Instance,
  InstanceAction,
  InstanceStatus,
  MetricGroup,
  StopRequest,
  StorePartitionStatus,
  StoreQueryRequest,
  StoreQueryResult,
  StoreRecord,
  Timeline,
  TopologyDag,
  TopologyInfo,
} from './types';

export type Method = 'GET' | 'POST' | 'DELETE';

/** What the route answers with: JSON, plain text, or a server-sent-events stream. */
export type Answer = 'json' | 'text' | 'sse';

export interface RouteSpec {
  readonly method: Method;
  /** OpenAPI's form: parameters as `{name}`. */
  readonly path: string;
  readonly answer: Answer;
  /** Query-string parameters the client may send. */
  readonly query?: readonly string[];
  /** Whether the client sends a JSON body. */
  readonly body?: boolean;
  /** Statuses besides 200 whose body is the answer, not an error body. */
  readonly answeredWith?: readonly number[];
}

export const ROUTES = {
  instances: { method: 'GET', path: '/api/v1/streams', answer: 'json' },
  deploy: { method: 'POST', path: '/api/v1/streams', answer: 'json', body: true },
  instance: { method: 'GET', path: '/api/v1/streams/{applicationId}', answer: 'json' },
  remove: { method: 'DELETE', path: '/api/v1/streams/{applicationId}', answer: 'json' },
  status: { method: 'GET', path: '/api/v1/streams/{applicationId}/status', answer: 'json' },
  config: { method: 'GET', path: '/api/v1/streams/{applicationId}/config', answer: 'json' },
  offsets: { method: 'GET', path: '/api/v1/streams/{applicationId}/offsets', answer: 'json' },
  lagHistory: { method: 'GET', path: '/api/v1/streams/{applicationId}/offsets/history', answer: 'json', query: ['range'] },
  timeline: { method: 'GET', path: '/api/v1/streams/{applicationId}/timeline', answer: 'json', query: ['scope'] },
  metrics: { method: 'GET', path: '/api/v1/streams/{applicationId}/metrics', answer: 'json', query: ['filter_empty'] },
  metricsOfGroup: { method: 'GET', path: '/api/v1/streams/{applicationId}/metrics/group/{group}', answer: 'json', query: ['filter_empty'] },
  metricsNamed: {
    method: 'GET',
    path: '/api/v1/streams/{applicationId}/metrics/group/{group}/name/{name}',
    answer: 'json',
    query: ['filter_empty'],
  },
  metricValue: { method: 'GET', path: '/api/v1/streams/{applicationId}/metrics/group/{group}/name/{name}/value', answer: 'text' },
  prometheus: { method: 'GET', path: '/api/v1/streams/{applicationId}/metrics', answer: 'text', query: ['format', 'filter_empty'] },
  restart: { method: 'POST', path: '/api/v1/streams/{applicationId}/restart', answer: 'json' },
  stop: { method: 'DELETE', path: '/api/v1/streams/{applicationId}/stop', answer: 'json', body: true },
  instanceTopology: { method: 'GET', path: '/api/v1/streams/{applicationId}/topology', answer: 'json' },
  stores: { method: 'GET', path: '/api/v1/streams/{applicationId}/stores', answer: 'json' },
  metadata: { method: 'GET', path: '/api/v1/streams/{applicationId}/metadata', answer: 'json' },
  subscriptions: { method: 'GET', path: '/api/v1/streams/{applicationId}/subscriptions', answer: 'json' },
  subscribe: { method: 'GET', path: '/api/v1/streams/{applicationId}/subscribe/{eventType}', answer: 'sse' },
  applications: { method: 'GET', path: '/api/v1/applications', answer: 'json' },
  application: { method: 'GET', path: '/api/v1/applications/{applicationId}', answer: 'json' },
  topology: { method: 'GET', path: '/api/v1/applications/{applicationId}/topology', answer: 'json' },
  query: { method: 'POST', path: '/api/v1/applications/{applicationId}/stores/{name}', answer: 'json', body: true },
  queryRecords: { method: 'POST', path: '/api/v1/applications/{applicationId}/stores/{name}/records', answer: 'json', body: true },
  topologies: { method: 'GET', path: '/api/v1/topologies', answer: 'json' },
  // DOWN is a 503 whose body is the report itself.
  health: { method: 'GET', path: '/health', answer: 'json', answeredWith: [503] },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** The JSON answer of each JSON route (text routes answer a string, the SSE route a stream). */
export interface JsonAnswers {
  instances: string[];
  deploy: Deployed;
  instance: Instance;
  remove: InstanceAction;
  status: InstanceStatus;
  config: Record<string, string | number | boolean>;
  offsets: ConsumerOffsets;
  lagHistory: LagHistory;
  timeline: Timeline;
  metrics: MetricGroup[];
  metricsOfGroup: MetricGroup[];
  metricsNamed: MetricGroup[];
  restart: InstanceAction;
  stop: InstanceAction;
  instanceTopology: TopologyDag;
  stores: StorePartitionStatus[];
  metadata: ApplicationInstance;
  subscriptions: string[];
  applications: string[];
  application: Application;
  topology: TopologyDag;
  query: StoreQueryResult;
  queryRecords: StoreRecord[];
  topologies: TopologyInfo[];
  health: HealthReport;
}

/** The JSON body of each route that takes one. */
export interface JsonBodies {
  deploy: DeployRequest;
  stop: StopRequest;
  query: StoreQueryRequest;
  queryRecords: StoreQueryRequest;
}

/** Path parameter names of a path template, e.g. `{applicationId}`. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
}

/** The path with its parameters filled in, each encoded as one path segment. */
export function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params[name]!));
}
