/** The management API as the console uses it: JSON over fetch (the browser sends the node's credentials), SSE. */

export interface Model {
  version: string;
  user: string | null;
  role: 'viewer' | 'operator' | null;
  headless: boolean;
  canChange: boolean;
  applications: { id: string; stores: { name: string; type: string | null }[] }[];
  storeTypes: { type: string; clauses: { name: string; params: string[] }[] }[];
  options: string[];
}

export interface Instance {
  id: string;
  name: string;
  version: string;
  description: string | null;
  since: string;
  state: { state: string; since: string };
  config: Record<string, string | number | boolean>;
  endpoint?: { address: string; port: number };
  exception?: string;
}

export interface Position {
  topic: string;
  partition: number;
  consumed_offset: number;
  committed_offset: number;
  log_end_offset: number;
  lag: number;
}

export interface Offsets {
  group: string;
  consumers: { client_id: string; stream_thread: string; positions: Position[] }[];
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

export interface DagNode {
  type: 'SOURCE' | 'PROCESSOR' | 'SINK';
  name: string;
  predecessors: string[];
  successors: string[];
  topics?: string[];
  topic?: string;
  stores?: string[];
}

export interface Topology {
  subTopologies: { id: number; nodes: DagNode[] }[];
  globalStores: { id: number; source: DagNode; processor: DagNode }[];
}

export interface ApplicationHost {
  id: string | null;
  endpoint?: { address: string; port: number };
  isLocal: boolean;
  metadata: {
    stores: string[];
    assignments: { name: string; partitions: number[] }[];
    standbyStateStores: string[];
    standbyAssignments: { name: string; partitions: number[] }[];
  };
}

export interface Application {
  id: string;
  instances: ApplicationHost[];
}

export interface QueryResult {
  took: number;
  timeout: boolean;
  server: string;
  status: string;
  result: {
    store?: string;
    type?: string;
    total: number;
    success: { server: string; remote: boolean; total: number; records: { key: unknown; value: unknown; timestamp?: number }[] }[];
    failure: { server: string; remote: boolean; errors: { message: string }[] }[];
    error?: string;
  };
}

export interface StateEvent {
  state: string;
  previous: string;
  since: string;
}

/** An answer with the API's error body: its message is what the console shows. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json: unknown = text === '' ? null : JSON.parse(text);
  if (!response.ok) {
    const message = (json as { message?: string } | null)?.message ?? `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
  delete: <T>(path: string, body?: unknown) => call<T>('DELETE', path, body),
};

export const streamPath = (id: string) => `/api/v1/streams/${encodeURIComponent(id)}`;

/** Listens to one event type of an instance; the returned function closes the stream. */
export function subscribe<T>(id: string, type: string, onEvent: (data: T) => void): () => void {
  const source = new EventSource(`${streamPath(id)}/subscribe/${type}`);
  source.addEventListener(type, (event) => onEvent(JSON.parse((event as MessageEvent<string>).data) as T));
  return () => source.close();
}

/** Epoch ms of a zoned timestamp (`2026-11-22T01:30:00.123Z[UTC]`). */
export function zonedToMillis(zoned: string): number {
  return Date.parse(zoned.replace(/\[.*\]$/, ''));
}
