/**
 * This node's part of a query on the partitions a stream thread in a worker holds, read in that worker (where the
 * stores and their caches are) as the main thread reads its own: the main thread chose the partitions, and pulls the
 * chunks one at a time, as from a peer. The functions run in the worker (ThreadStoreReaders, see
 * WorkerStorePartitions.run).
 */
import { InvalidStateStore } from '../errors';
import type { ThreadStores } from '../streams/runtime/queryable-stores';
import { bindQuery } from './bind';
import { chunkOf, chunksOf } from './chunks';
import { failedAnswer, failureOf, type PartitionPosition, type PartStream } from './parts';
import { readRecords } from './read-store';
import { describeSchema, schemaOfStore, type StoreDescription } from './schema';
import type { QueryRequest } from './types';

/** This module, for the worker to load. */
export const THREAD_PART_MODULE = __filename;

/** Positions as they arrive from another thread: their Buffers are Uint8Arrays after structured cloning. */
export function revivePositions(positions: readonly PartitionPosition[]): PartitionPosition[] {
  return positions.map((p) => ({
    partition: p.partition,
    done: p.done,
    ...(p.afterKey !== undefined ? { afterKey: Buffer.from(p.afterKey) } : {}),
    ...(p.afterEntry !== undefined ? { afterEntry: Buffer.from(p.afterEntry) } : {}),
  }));
}

/** The store's description, from one of the thread's partitions: its one answer is its return value. */
export function* describeThreadStore(stores: ThreadStores, store: string): Generator<never, StoreDescription | undefined, undefined> {
  for (const partition of stores.queryableStores(store).values()) {
    const schema = schemaOfStore(partition);
    if (schema !== undefined) return describeSchema(schema);
  }
  return undefined;
}

/**
 * The records of `partitions` for `request`, at most its limit, in chunks; the end says where a paged read stopped.
 * A partition no longer queryable here (its task moved or closed since the main thread looked) fails the part.
 */
export async function* readThreadPart(stores: ThreadStores, store: string, request: QueryRequest, partitions: number[], deadline: number): PartStream {
  const queryable = stores.queryableStores(store);
  const missing = partitions.filter((p) => !queryable.has(p));
  if (missing.length > 0) return failedAnswer(`partition ${missing.join(', ')} of store '${store}' is no longer queryable in its stream thread (rebalancing)`, 'NOT_AVAILABLE');
  let read;
  try {
    const schema = schemaOfStore(queryable.get(partitions[0]!)!);
    if (schema === undefined) throw new InvalidStateStore(`store '${store}' has no key serde, so it cannot be queried`);
    read = readRecords(
      partitions.map((p) => [p, queryable.get(p)!]),
      bindQuery({ ...request, positions: revivePositions(request.positions) }, schema, store),
    );
  } catch (error) {
    return failureOf(error);
  }
  try {
    const chunks = chunksOf(read.records, deadline);
    let next = chunks.next();
    for (; !next.done; next = chunks.next()) yield chunkOf(next.value);
    return next.value ?? (read.paging === undefined ? { ok: true } : { ok: true, paging: read.paging() });
  } catch (error) {
    return failureOf(error);
  } finally {
    read.records.return?.();
  }
}
