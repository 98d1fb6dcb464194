/** The management API as the console uses it: JSON over fetch (the browser sends the node's credentials), SSE. */

// Type-only: esbuild erases these imports, so the bundle takes nothing of the server or of the client (which is on undici).
import type { EventData } from '../../src/client/types';

export type StateEvent = EventData['state'];

export type { ConsoleModel } from '../../src/server/console/model';
export type { LagHistoryResource as LagHistory, LagRange } from '../../src/server/lag-history';
export type {
  Application,
  ConsumerOffsets,
  Instance,
  InstanceStatus as StreamsStatus,
  MetricGroup,
  StorePartitionStatus,
  StoreQueryResult,
  Timeline,
  TimelineEntry,
  TopologyDag,
  TopologyNode,
} from '../../src/client/types';

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

/** Listens to one built-in event type of an instance; the returned function closes the stream. */
export function subscribe<T extends keyof EventData>(id: string, type: T, onEvent: (data: EventData[T]) => void): () => void {
  const source = new EventSource(`${streamPath(id)}/subscribe/${type}`);
  source.addEventListener(type, (event) => onEvent(JSON.parse((event as MessageEvent<string>).data) as EventData[T]));
  return () => source.close();
}

/** Epoch ms of a zoned timestamp (`2026-11-22T01:30:00.123Z[UTC]`). */
export function zonedToMillis(zoned: string): number {
  return Date.parse(zoned.replace(/\[.*\]$/, ''));
}
