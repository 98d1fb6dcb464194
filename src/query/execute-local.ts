import { failedAnswer, failureKindOf, type PeerAnswer } from '../cluster/peer-protocol';
import { InvalidStateStore, SluiceError } from '../errors';
import type { InstanceView } from '../streams/runtime/instance-view';
import { parseTaskId } from '../streams/runtime/task-id';
import type { StateStore } from '../streams/state/store';
import { bindQuery, type BoundQuery } from './bind';
import { readStores } from './read-store';
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

function attempt(view: InstanceView, store: string, request: QueryRequest): Attempt<unknown[]> {
  const queryable = view.queryableStores(store);
  const first = queryable.values().next();
  if (first.done) return notReady(`no partition of store '${store}' is queryable on this server (rebalancing or restoring)`);
  const schema = schemaOfStore(first.value);
  if (schema === undefined) throw new InvalidStateStore(`store '${store}' has no key serde, so it cannot be queried`);
  const bound = bindQuery(request, schema, store);
  const partitions = partitionsToRead(view, store, bound, queryable);
  if (!partitions.ready) return partitions;
  try {
    return { ready: true, value: readStores(partitions.value.map((p) => queryable.get(p)!), bound) };
  } catch (error) {
    // A store closed under the read: its task moved or is being closed by a rebalance.
    if (error instanceof SluiceError && error.exception === InvalidStateStore.exception) return notReady(error.message);
    throw error;
  }
}

/**
 * This server's part of a query, read from its local store partitions, retried while they are not queryable yet.
 * Never rejects: what goes wrong is a failed answer that says why.
 */
export async function executeLocal(view: InstanceView, store: string, request: QueryRequest, deadline: number): Promise<PeerAnswer> {
  try {
    const outcome = await retryUntilReady(() => attempt(view, store, request), request.options, deadline);
    if (outcome.ready) return { ok: true, records: outcome.value };
    return failedAnswer(outcome.reason, 'NOT_AVAILABLE', outcome.timedOut);
  } catch (error) {
    return failedAnswer(error instanceof Error ? error.message : String(error), failureKindOf(error));
  }
}
