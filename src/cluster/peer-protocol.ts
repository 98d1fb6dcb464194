/**
 * What travels between Sluice nodes (proto/sluice.proto), as the rest of Sluice sees it: plain objects, records
 * already in the JSON shapes of the query API.
 */

/** A store query sent to a peer, to be answered from the peer's local partitions only. */
export interface PeerQueryRequest {
  applicationId: string;
  store: string;
  /** The query as the HTTP API takes it (`{"type", "query", "set_options"}`), as JSON text. */
  queryJson: string;
  /** What is left of the query's time, in ms. */
  timeoutMs: number;
}

/**
 * Why a node has no part: the kinds of proto/sluice.proto's FailureKind, and two that only the caller sees (the call
 * itself failed): UNREACHABLE, the node is down or cut off; REFUSED, it refused the caller (TLS, cluster secret).
 */
export type PeerFailureKind = 'NOT_AVAILABLE' | 'UNKNOWN_STORE' | 'INVALID_QUERY' | 'TIMED_OUT' | 'INTERNAL' | 'UNREACHABLE' | 'REFUSED';

/** Why a node has no part, or why its part ended before its last record. */
export interface PeerFailure {
  ok: false;
  messages: string[];
  kind: PeerFailureKind;
  /** The query's time ran out (also for a store that was not available until then). */
  timedOut: boolean;
}

/** One node's part of a query: its records, or why it has none. */
export type PeerAnswer = { ok: true; records: unknown[] } | PeerFailure;

/**
 * A store query as the calling node parsed and validated it (proto/sluice.proto's PeerQuery); the called node
 * checks its form again, cheaply, since it crosses the network.
 */
export interface PeerQuery {
  applicationId: string;
  store: string;
  /** The store type the request names. */
  type: string;
  clause: string;
  /** Key parameters as JSON text. */
  keysJson: Record<string, string>;
  /** Time parameters, epoch ms. */
  times: Record<string, number>;
  retries: number;
  retryBackoffMs: number;
  /** -1: no limit. */
  limit: number;
  /** What is left of the query's time, in ms. */
  timeoutMs: number;
  /** Where a paged query resumes, per store partition; partitions not listed are read from their start. */
  positions: PartitionPosition[];
  /** A keyed query may be answered from a standby replica within maxLag records (-1: any lag). */
  allowStale: boolean;
  maxLag: number;
  /** With allowStale, a query over every partition asked in place of a node that did not answer: the partitions to read. */
  standInPartitions?: number[];
}

/**
 * Where reading one store partition stopped: done, or after the record whose serialized key is `afterKey` (key-value
 * scans), or after the entry at `afterEntry` (window and session scans: the entry's position, see PositionedEntry).
 */
export interface PartitionPosition {
  partition: number;
  done: boolean;
  afterKey?: Buffer;
  afterEntry?: Buffer;
}

/** Records already serialized: `count` JSON values joined by commas, without the enclosing brackets. */
export interface RecordChunk {
  json: string;
  count: number;
}

/**
 * How a part ends: read to its end or to its limit, or failed (possibly after some chunks). A paged read also says
 * where each partition it read stopped, and whether all of its partitions are done.
 */
export type PartEnd = { ok: true; paging?: { positions: PartitionPosition[]; complete: boolean }; replica?: Replica } | PeerFailure;

/** Which replica answered a part of a stale-allowed query, and how many records it is behind its changelog. */
export interface Replica {
  standby: boolean;
  lag: number;
}

/**
 * A part as it is read: chunks of records, pulled one at a time (so the reader paces the store and the network),
 * then how it ended. It never throws: what goes wrong ends it with a failure. Returning it early releases what it
 * holds (store iterators, the peer call).
 */
export type PartStream = AsyncGenerator<RecordChunk, PartEnd, undefined>;

/** What a node that has no queryable partition of a store needs to validate and route a query on it. */
export interface StoreDescription {
  type: string;
  /** Name of the key serde, as `serdeByName` resolves it. */
  keySerde: string;
}

/** A node as Ping shows it. */
export interface NodeInfo {
  /** `application.server` of the node. */
  server: string;
  applications: string[];
}

/** What the peer server asks of the node it runs in (the query layer implements it). */
export interface PeerQueryHandler {
  /**
   * Runs the query on the local partitions, never forwarding it; answers by `deadline` (epoch ms). Throws the
   * catalogue's errors for an unknown application or store, or no running instance.
   */
  answerPeer(request: PeerQueryRequest, deadline: number): Promise<PeerAnswer>;
  /**
   * The same, streamed. Throws the catalogue's errors before the first chunk (unknown application or store, an
   * invalid query, no running instance); after that, failures end the stream.
   */
  streamPeer(query: PeerQuery, deadline: number): PartStream | Promise<PartStream>;
  /** Undefined when the node has no queryable partition of the store right now. */
  describeStore(applicationId: string, store: string): StoreDescription | undefined;
}

/** A part read to its end: every chunk, and how it ended. */
export async function drainPart(stream: PartStream): Promise<{ chunks: RecordChunk[]; end: PartEnd }> {
  const chunks: RecordChunk[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) return { chunks, end: next.value };
    chunks.push(next.value);
  }
}

/** A part whose first chunk was read already, whole again. */
export async function* withFirstChunk(first: RecordChunk, rest: PartStream): PartStream {
  yield first;
  return yield* rest;
}

/** A part already read, given again. */
export async function* replayPart(chunks: readonly RecordChunk[], end: PartEnd): PartStream {
  for (const chunk of chunks) yield chunk;
  return end;
}

/** A failure part's answer. */
export function failedAnswer(message: string, kind: PeerFailureKind = 'INTERNAL', timedOut = kind === 'TIMED_OUT'): PeerFailure {
  return { ok: false, messages: [message], kind, timedOut };
}

/** The kind of failure an error of the catalogue stands for, by its HTTP status. */
export function failureKindOf(error: unknown): PeerFailureKind {
  const status = (error as { statusCode?: unknown }).statusCode;
  if (status === 503) return 'NOT_AVAILABLE';
  if (status === 404) return 'UNKNOWN_STORE';
  if (status === 400) return 'INVALID_QUERY';
  return 'INTERNAL';
}
