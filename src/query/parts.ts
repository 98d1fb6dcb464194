/**
 * A part of a query's answer: what one server reads of the query (this thread, a stream thread in a worker, a peer),
 * as record chunks pulled one at a time, then how it ended. Records are already in the JSON shapes of the query API.
 */

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
 * Why a server has no part: the kinds of proto/sluice.proto's FailureKind, and two that only a peer's caller sees
 * (the call itself failed): UNREACHABLE, the node is down or cut off; REFUSED, it refused the caller (TLS, cluster
 * secret).
 */
export type PartFailureKind = 'NOT_AVAILABLE' | 'UNKNOWN_STORE' | 'INVALID_QUERY' | 'TIMED_OUT' | 'INTERNAL' | 'UNREACHABLE' | 'REFUSED';

/** Why a server has no part, or why its part ended before its last record. */
export interface PartFailure {
  ok: false;
  messages: string[];
  kind: PartFailureKind;
  /** The query's time ran out (also for a store that was not available until then). */
  timedOut: boolean;
}

/** Which replica answered a part of a stale-allowed query, and how many records it is behind its changelog. */
export interface Replica {
  standby: boolean;
  lag: number;
}

/**
 * How a part ends: read to its end or to its limit, or failed (possibly after some chunks). A paged read also says
 * where each partition it read stopped, and whether all of its partitions are done.
 */
export type PartEnd = { ok: true; paging?: { positions: PartitionPosition[]; complete: boolean }; replica?: Replica } | PartFailure;

/**
 * A part as it is read: chunks of records, pulled one at a time (so the reader paces the store and the network),
 * then how it ended. It never throws: what goes wrong ends it with a failure. Returning it early releases what it
 * holds (store iterators, the peer call).
 */
export type PartStream = AsyncGenerator<RecordChunk, PartEnd, undefined>;

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
export function failedAnswer(message: string, kind: PartFailureKind = 'INTERNAL', timedOut = kind === 'TIMED_OUT'): PartFailure {
  return { ok: false, messages: [message], kind, timedOut };
}

/** The kind of failure an error of the catalogue stands for, read as a field: an error rebuilt from a worker keeps it. */
function failureKindOf(error: unknown): PartFailureKind {
  const kind = (error as { kind?: unknown }).kind;
  if (kind === 'unavailable') return 'NOT_AVAILABLE';
  if (kind === 'not-found') return 'UNKNOWN_STORE';
  if (kind === 'invalid') return 'INVALID_QUERY';
  return 'INTERNAL';
}

/** The failure part of an error thrown while a part was opened or read. */
export function failureOf(error: unknown): PartFailure {
  return failedAnswer(error instanceof Error ? error.message : String(error), failureKindOf(error));
}
