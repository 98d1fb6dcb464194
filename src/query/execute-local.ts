import { failedAnswer, failureKindOf, type PartEnd, type PartStream, type PeerAnswer, type PeerFailure, type Replica } from '../cluster/peer-protocol';
import { InvalidStateStore, SluiceError } from '../errors';
import { GLOBAL_STORE_PARTITION, type InstanceView } from '../streams/runtime/instance-view';
import type { StandbyReplica } from '../streams/runtime/standby-task';
import { parseTaskId } from '../streams/runtime/task-id';
import type { StateStore } from '../streams/state/store';
import { bindQuery, type BoundQuery } from './bind';
import { readRecords, type StoreRead } from './read-store';
import { retryUntilReady, type Attempt } from './retry';
import { schemaOfStore } from './schema';
import type { QueryRequest } from './types';

function notReady<T>(reason: string): Attempt<T> {
  return { ready: false, reason };
}

/** Partitions of the store that this instance's active tasks hold, restoring or not. */
function activePartitions(view: InstanceView, store: string): number[] | undefined {
  const subtopology = view.describe().subTopologies.find((sub) => sub.nodes.some((node) => node.stores?.includes(store)));
  if (subtopology === undefined) return undefined;
  const partitions = new Set<number>();
  for (const thread of view.threads()) {
    for (const task of thread.activeTasks) {
      const id = parseTaskId(task.taskId);
      if (id !== undefined && id.subtopology === subtopology.id) partitions.add(id.partition);
    }
  }
  return [...partitions].sort((a, b) => a - b);
}

/**
 * The partitions a query reads here. A keyed query reads the key's partition. Any other reads every partition of
 * the store that this instance holds, and only once all of them are queryable: during a rebalance or while a
 * partition restores, reading the others would answer a part with records missing and nothing to say so.
 */
function partitionsToRead(view: InstanceView, store: string, bound: BoundQuery, queryable: ReadonlyMap<number, StateStore>): Attempt<number[]> {
  if (view.isGlobalStore(store)) {
    return queryable.has(GLOBAL_STORE_PARTITION) ? { ready: true, value: [GLOBAL_STORE_PARTITION] } : notReady(`global store '${store}' is restoring`);
  }
  if (bound.keyed && bound.keyBytes !== undefined) {
    const metadata = view.keyQueryMetadata(store, bound.keyBytes);
    if (metadata === undefined) return notReady(`the partitions of store '${store}' are not known yet (rebalancing)`);
    if (!queryable.has(metadata.partition)) {
      return notReady(`partition ${metadata.partition} of store '${store}' is not queryable on this server (rebalancing, restoring, or moved)`);
    }
    return { ready: true, value: [metadata.partition] };
  }
  if (view.state !== 'RUNNING') return notReady(`store '${store}' is not queryable while the application is ${view.state}`);
  const active = activePartitions(view, store) ?? [...queryable.keys()].sort((a, b) => a - b);
  const restoring = active.filter((partition) => !queryable.has(partition));
  if (restoring.length > 0) {
    return notReady(`partition${restoring.length > 1 ? 's' : ''} ${restoring.join(', ')} of store '${store}' ${restoring.length > 1 ? 'are' : 'is'} restoring`);
  }
  return { ready: true, value: active };
}

/**
 * The replica of a partition a stale-allowed query reads here: the active partition when this server has it
 * queryable, else its standby of the partition when that is at most `maxLag` records behind (-1: any lag).
 */
function replicaOf(
  store: string,
  partition: number,
  queryable: ReadonlyMap<number, StateStore>,
  standbys: ReadonlyMap<number, StandbyReplica>,
  maxLag: number,
): Attempt<{ partition: number; store: StateStore; replica: Replica }> {
  const active = queryable.get(partition);
  if (active !== undefined) return { ready: true, value: { partition, store: active, replica: { standby: false, lag: 0 } } };
  const standby = standbys.get(partition);
  if (standby === undefined) return notReady(`partition ${partition} of store '${store}' is not queryable on this server, which holds no standby of it`);
  if (standby.lag < 0) return notReady(`the standby of partition ${partition} of store '${store}' has not read its changelog's end yet: its lag is not known`);
  if (maxLag >= 0 && standby.lag > maxLag) {
    return notReady(`the standby of partition ${partition} of store '${store}' is ${standby.lag} records behind, more than max_lag=${maxLag}`);
  }
  return { ready: true, value: { partition, store: standby.store, replica: { standby: true, lag: standby.lag } } };
}

/** The replicas a stand-in query reads here, one per partition asked; the part is standby if any is, as far behind as the furthest. */
function standInReplicas(
  store: string,
  partitions: readonly number[],
  queryable: ReadonlyMap<number, StateStore>,
  standbys: ReadonlyMap<number, StandbyReplica>,
  maxLag: number,
): Attempt<{ stores: [number, StateStore][]; replica: Replica }> {
  const stores: [number, StateStore][] = [];
  const replica: Replica = { standby: false, lag: 0 };
  for (const partition of [...partitions].sort((a, b) => a - b)) {
    const chosen = replicaOf(store, partition, queryable, standbys, maxLag);
    if (!chosen.ready) return chosen;
    stores.push([partition, chosen.value.store]);
    replica.standby ||= chosen.value.replica.standby;
    replica.lag = Math.max(replica.lag, chosen.value.replica.lag);
  }
  return { ready: true, value: { stores, replica } };
}

/** Records per chunk of a local part: enough that per-chunk costs vanish, few enough to keep memory flat. */
export const CHUNK_RECORDS = 1000;

/** A read under way: its first chunk, read while the partitions were checked, and the rest, not read yet. */
interface Reading {
  first: unknown[];
  rest: Iterator<unknown, void, undefined>;
  paging: StoreRead['paging'];
  /** A stale-allowed query: the replica read. */
  replica: Replica | undefined;
}

function take(records: Iterator<unknown, void, undefined>, count: number): unknown[] {
  const chunk: unknown[] = [];
  while (chunk.length < count) {
    const next = records.next();
    if (next.done) break;
    chunk.push(next.value);
  }
  return chunk;
}

/** A store closed under the read: its task moved or is being closed by a rebalance. */
function isClosedStore(error: unknown): error is Error {
  return error instanceof SluiceError && error.exception === InvalidStateStore.exception;
}

/**
 * The key of a query that a standby replica may answer: allow_stale, one key, and not a global store (which every
 * node holds whole, so it is read here). Undefined for any other query.
 */
export function staleReadKey(view: InstanceView, store: string, bound: BoundQuery): Buffer | undefined {
  return bound.request.options.allowStale && bound.keyed && !view.isGlobalStore(store) ? bound.keyBytes : undefined;
}

/** The store partitions a query reads here, and with allow_stale the replica they are. */
function replicasToRead(view: InstanceView, store: string, bound: BoundQuery, queryable: ReadonlyMap<number, StateStore>, standbys: ReadonlyMap<number, StandbyReplica> | undefined): Attempt<{ stores: [number, StateStore][]; replica: Replica | undefined }> {
  const { maxLag } = bound.request.options;
  const standIn = bound.request.standInPartitions;
  if (standbys !== undefined && standIn !== undefined && !bound.keyed) return standInReplicas(store, standIn, queryable, standbys, maxLag);
  const staleKey = standbys === undefined ? undefined : staleReadKey(view, store, bound);
  if (standbys !== undefined && staleKey !== undefined) {
    const metadata = view.keyQueryMetadata(store, staleKey);
    if (metadata === undefined) return notReady(`the partitions of store '${store}' are not known yet (rebalancing)`);
    const chosen = replicaOf(store, metadata.partition, queryable, standbys, maxLag);
    return chosen.ready ? { ready: true, value: { stores: [[chosen.value.partition, chosen.value.store]], replica: chosen.value.replica } } : chosen;
  }
  const partitions = partitionsToRead(view, store, bound, queryable);
  if (!partitions.ready) return partitions;
  const replica = standbys === undefined ? undefined : { standby: false, lag: 0 };
  return { ready: true, value: { stores: partitions.value.map((p) => [p, queryable.get(p)!]), replica } };
}

function attempt(view: InstanceView, store: string, request: QueryRequest): Attempt<Reading> {
  const queryable = view.queryableStores(store);
  const standbys = request.options.allowStale ? view.standbyReplicas(store) : undefined;
  const any = queryable.values().next().value ?? standbys?.values().next().value?.store;
  if (any === undefined) return notReady(`no partition of store '${store}' is queryable on this server (rebalancing or restoring)`);
  const schema = schemaOfStore(any);
  if (schema === undefined) throw new InvalidStateStore(`store '${store}' has no key serde, so it cannot be queried`);
  const bound = bindQuery(request, schema, store);
  const chosen = replicasToRead(view, store, bound, queryable, standbys);
  if (!chosen.ready) return chosen;
  const { records, paging } = readRecords(chosen.value.stores, bound);
  try {
    // The first chunk is read here, so that a store closed before anything was answered is retried.
    return { ready: true, value: { first: take(records, CHUNK_RECORDS), rest: records, paging, replica: chosen.value.replica } };
  } catch (error) {
    records.return?.();
    if (isClosedStore(error)) return notReady(error.message);
    throw error;
  }
}

function failureOf(error: unknown): PeerFailure {
  return failedAnswer(error instanceof Error ? error.message : String(error), failureKindOf(error));
}

async function startReading(view: InstanceView, store: string, request: QueryRequest, deadline: number): Promise<Reading | PeerFailure> {
  try {
    const outcome = await retryUntilReady(() => attempt(view, store, request), request.options, deadline);
    return outcome.ready ? outcome.value : failedAnswer(outcome.reason, 'NOT_AVAILABLE', outcome.timedOut);
  } catch (error) {
    return failureOf(error);
  }
}

function endOf(reading: Reading): PartEnd {
  const replica = reading.replica === undefined ? {} : { replica: reading.replica };
  return reading.paging === undefined ? { ok: true, ...replica } : { ok: true, paging: reading.paging(), ...replica };
}

function chunkOf(records: unknown[]): { json: string; count: number } {
  // One JSON.stringify per chunk, its brackets cut: the records are spliced into the answer.
  return { json: JSON.stringify(records).slice(1, -1), count: records.length };
}

/**
 * This server's part of a query, read from its local store partitions as the stream is pulled, CHUNK_RECORDS
 * records at a time, and retried while they are not queryable yet. The query's deadline bounds the whole read.
 * Never throws: what goes wrong ends the part with a failure that says why; returning early closes the store
 * iterators.
 */
export async function* streamLocal(view: InstanceView, store: string, request: QueryRequest, deadline: number): PartStream {
  const reading = await startReading(view, store, request, deadline);
  if (!('rest' in reading)) return reading;
  try {
    let chunk = reading.first;
    for (;;) {
      if (chunk.length > 0) yield chunkOf(chunk);
      if (chunk.length < CHUNK_RECORDS) return endOf(reading);
      if (Date.now() >= deadline) return failedAnswer('the query timeout (query_timeout_ms) ran out while the part was read', 'TIMED_OUT');
      chunk = take(reading.rest, CHUNK_RECORDS);
    }
  } catch (error) {
    return failureOf(error);
  } finally {
    reading.rest.return?.();
  }
}

/**
 * This server's part of a query in one piece, for callers of the unary peer call (nodes of the previous version).
 * Never rejects: what goes wrong is a failed answer that says why.
 */
export async function executeLocal(view: InstanceView, store: string, request: QueryRequest, deadline: number): Promise<PeerAnswer> {
  const reading = await startReading(view, store, request, deadline);
  if (!('rest' in reading)) return reading;
  try {
    const records = reading.first;
    for (let next = reading.rest.next(); !next.done; next = reading.rest.next()) records.push(next.value);
    return { ok: true, records };
  } catch (error) {
    return failureOf(error);
  } finally {
    reading.rest.return?.();
  }
}
