import { InvalidStateStore, SluiceError } from '../errors';
import type { InstanceView } from '../streams/runtime/instance-view';
import { GLOBAL_STORE_PARTITION, type StandbyReplica, type WorkerStorePartitions } from '../streams/runtime/queryable-stores';
import { parseTaskId } from '../streams/runtime/task-id';
import type { StateStore } from '../streams/state/store';
import { storeReadNow } from './part-spans';
import { bindQuery, type BoundQuery } from './bind';
import { drainPart, failedAnswer, failureOf, type PartEnd, type PartFailure, type PartStream, type RecordChunk, type Replica } from './parts';
import type { PeerAnswer } from './peers';
import { readRecords, type StoreRead } from './read-store';
import { retryUntilReady, type Attempt } from './retry';
import { schemaOfDescription, schemaOfStore, type StoreDescription, type StoreSchema } from './schema';
import { CHUNK_RECORDS, chunkOf, chunksOf, take } from './chunks';
import { revivePositions, THREAD_PART_MODULE } from './thread-part';
import type { QueryRequest } from './types';

/** Partitions a stream thread in a worker holds: read there (thread-part.ts). */
class InWorker {
  constructor(readonly worker: WorkerStorePartitions) {}
}

/** A store partition this node holds: on this thread, or in a worker's. */
type Held = StateStore | InWorker;

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
function partitionsToRead(view: InstanceView, store: string, bound: BoundQuery, queryable: ReadonlyMap<number, Held>): Attempt<number[]> {
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
  queryable: ReadonlyMap<number, Held>,
  standbys: ReadonlyMap<number, StandbyReplica>,
  maxLag: number,
): Attempt<{ partition: number; store: Held; replica: Replica }> {
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
  queryable: ReadonlyMap<number, Held>,
  standbys: ReadonlyMap<number, StandbyReplica>,
  maxLag: number,
): Attempt<{ stores: [number, Held][]; replica: Replica }> {
  const stores: [number, Held][] = [];
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


/** A read under way: its first chunk, read while the partitions were checked, and the rest, not read yet. */
interface Reading {
  first: unknown[];
  rest: Iterator<unknown, void, undefined>;
  paging: StoreRead['paging'];
  /** A stale-allowed query: the replica read. */
  replica: Replica | undefined;
  /** The partitions read in workers' stream threads, after this thread's, per worker. */
  inWorkers: [WorkerStorePartitions, number[]][];
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
function replicasToRead(view: InstanceView, store: string, bound: BoundQuery, queryable: ReadonlyMap<number, Held>, standbys: ReadonlyMap<number, StandbyReplica> | undefined): Attempt<{ stores: [number, Held][]; replica: Replica | undefined }> {
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

/** The store's key serde and type from one of its partitions in the workers' stream threads (the first that has one). */
export async function schemaInWorkers(store: string, workers: readonly WorkerStorePartitions[]): Promise<Attempt<StoreSchema>> {
  for (const worker of workers) {
    const asked = await worker.run(THREAD_PART_MODULE, 'describeThreadStore', [store]).next();
    const description = asked.done ? (asked.value as StoreDescription | undefined) : undefined;
    if (description === undefined) continue;
    const schema = schemaOfDescription(description);
    return typeof schema === 'string' ? notReady(schema) : { ready: true, value: schema };
  }
  return notReady(`no partition of store '${store}' is queryable on this server (rebalancing or restoring)`);
}

async function attempt(view: InstanceView, store: string, request: QueryRequest): Promise<Attempt<Reading>> {
  const queryable = view.queryableStores(store);
  const workers = view.workerStores(store);
  const standbys = request.options.allowStale ? view.standbyReplicas(store) : undefined;
  const any = queryable.values().next().value ?? standbys?.values().next().value?.store;
  const described = any === undefined ? await schemaInWorkers(store, workers) : undefined;
  if (described?.ready === false) return described;
  const schema = described?.value ?? schemaOfStore(any!);
  if (schema === undefined) throw new InvalidStateStore(`store '${store}' has no key serde, so it cannot be queried`);
  const bound = bindQuery(request, schema, store);
  const held = new Map<number, Held>(queryable);
  for (const worker of workers) for (const partition of worker.partitions) if (!held.has(partition)) held.set(partition, new InWorker(worker));
  const chosen = replicasToRead(view, store, bound, held, standbys);
  if (!chosen.ready) return chosen;
  const here: [number, StateStore][] = [];
  const inWorkers = new Map<WorkerStorePartitions, number[]>();
  for (const [partition, at] of chosen.value.stores) {
    if (at instanceof InWorker) inWorkers.set(at.worker, [...(inWorkers.get(at.worker) ?? []), partition]);
    else here.push([partition, at]);
  }
  const { records, paging } = readRecords(here, bound);
  try {
    // The first chunk is read here, so that a store closed before anything was answered is retried.
    return { ready: true, value: { first: take(records, CHUNK_RECORDS), rest: records, paging, replica: chosen.value.replica, inWorkers: [...inWorkers] } };
  } catch (error) {
    records.return?.();
    if (isClosedStore(error)) return notReady(error.message);
    throw error;
  }
}

async function startReading(view: InstanceView, store: string, request: QueryRequest, deadline: number): Promise<Reading | PartFailure> {
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

/** The end of a part read in pieces (this thread's partitions, then each worker's): the first failure, or where each stopped. */
function mergedEnd(ends: readonly PartEnd[]): PartEnd {
  const [first, ...others] = ends;
  const failure = ends.find((end) => !end.ok);
  if (failure !== undefined || others.length === 0) return failure ?? first!;
  if (!first!.ok || first!.paging === undefined) return first!;
  const pagings = ends.map((end) => (end.ok ? end.paging : undefined));
  return {
    ...first!,
    paging: {
      positions: pagings.flatMap((paging) => revivePositions(paging?.positions ?? [])),
      complete: pagings.every((paging) => paging?.complete !== false),
    },
  };
}

/**
 * The records of this node's partitions in workers' stream threads, each worker asked for its own after this
 * thread's were read, with what is left of the limit. Their ends are added to `ends`.
 */
async function* fromWorkers(reading: Reading, store: string, request: QueryRequest, deadline: number, answered: number, ends: PartEnd[]): AsyncGenerator<RecordChunk, void, undefined> {
  let count = answered;
  for (const [worker, partitions] of reading.inWorkers) {
    const { limit } = request.options;
    // A count answers one record whatever the limit: each piece counts all of its partitions.
    const options = limit < 0 || request.clause === 'count' ? request.options : { ...request.options, limit: Math.max(0, limit - count) };
    const part = worker.run(THREAD_PART_MODULE, 'readThreadPart', [store, { ...request, options }, partitions, deadline]) as PartStream;
    try {
      for (let next = await part.next(); ; next = await part.next()) {
        if (next.done) {
          ends.push(next.value);
          break;
        }
        count += next.value.count;
        yield next.value;
      }
    } finally {
      // Read to its end or let go early (the answer was returned): either way the worker closes its reader.
      await part.return({ ok: true });
    }
  }
}

/** `count` over partitions read in pieces: one record, the sum of the pieces' counts. */
function summedCount(chunks: readonly RecordChunk[]): RecordChunk {
  const counts = chunks.flatMap((chunk) => JSON.parse(`[${chunk.json}]`) as { key: string; value: number }[]);
  return chunkOf([{ key: 'count', value: counts.reduce((sum, c) => sum + c.value, 0) }]);
}

/**
 * This server's part of a query, read from its local store partitions as the stream is pulled, CHUNK_RECORDS
 * records at a time, and retried while they are not queryable yet; the partitions that stream threads in workers
 * hold are read there after this thread's (see thread-part.ts). The query's deadline bounds the whole read.
 * Never throws: what goes wrong ends the part with a failure that says why; returning early closes the store
 * iterators.
 */
export async function* streamLocal(view: InstanceView, store: string, request: QueryRequest, deadline: number): PartStream {
  const reading = await startReading(view, store, request, deadline);
  if (!('rest' in reading)) return reading;
  const counting = request.clause === 'count' && reading.inWorkers.length > 0;
  const counted: RecordChunk[] = [];
  let answered = 0;
  try {
    const chunks = chunksOf(reading.rest, deadline, reading.first);
    let next = chunks.next();
    for (; !next.done; next = chunks.next()) {
      const chunk = chunkOf(next.value);
      answered += chunk.count;
      if (counting) counted.push(chunk);
      else yield chunk;
    }
    if (next.value !== undefined) return next.value;
  } catch (error) {
    return failureOf(error);
  } finally {
    reading.rest.return?.();
  }
  const ends = [endOf(reading)];
  try {
    for await (const chunk of fromWorkers(reading, store, request, deadline, answered, ends)) {
      if (counting) counted.push(chunk);
      else yield chunk;
    }
  } catch (error) {
    return failureOf(error);
  }
  const end = mergedEnd(ends);
  if (counting && end.ok) yield summedCount(counted);
  return end;
}

/**
 * A keyed query's records when its key's partition is active on this thread and queryable now: read at once, with
 * no wait, no retry and no stream, as most keyed queries are. Undefined whenever that is not so (the partition on a
 * peer, in a worker, restoring, closed under the read, more than a chunk of records or a read that fails): the
 * query then takes the general path, which waits, retries and says why it failed.
 */
export function readKeyedHere(view: InstanceView, store: string, bound: BoundQuery): RecordChunk | undefined {
  if (bound.keyBytes === undefined || bound.request.options.allowStale) return undefined;
  const metadata = view.keyQueryMetadata(store, bound.keyBytes);
  if (metadata?.activeHost?.isLocal !== true) return undefined;
  const partition = view.queryableStore(store, metadata.partition);
  if (partition === undefined) return undefined;
  return storeReadNow(store, view.applicationId, () => {
    const { records, paging } = readRecords([[metadata.partition, partition]], bound);
    try {
      const read = take(records, CHUNK_RECORDS);
      return paging === undefined && read.length < CHUNK_RECORDS && partition.isOpen() ? chunkOf(read) : undefined;
    } catch {
      return undefined;
    } finally {
      records.return?.();
    }
  });
}

/**
 * This server's part of a query in one piece, for callers of the unary peer call (nodes of the previous version).
 * Never rejects: what goes wrong is a failed answer that says why.
 */
export async function executeLocal(view: InstanceView, store: string, request: QueryRequest, deadline: number): Promise<PeerAnswer> {
  const { chunks, end } = await drainPart(streamLocal(view, store, request, deadline));
  if (!end.ok) return end;
  const json = chunks.filter((chunk) => chunk.count > 0).map((chunk) => chunk.json);
  return { ok: true, records: JSON.parse(`[${json.join(',')}]`) as unknown[] };
}
