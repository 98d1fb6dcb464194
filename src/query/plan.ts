import type { InstanceView } from '../streams/runtime/instance-view';
import type { StreamsMetadata } from '../streams/runtime/streams-metadata';
import type { BoundQuery } from './bind';

/** A server the query goes to over gRPC. */
export interface RemoteTarget {
  /** The name of its part: its application.server. */
  server: string;
  /** Where its peer service listens; undefined when it did not publish one. */
  grpcEndpoint: string | undefined;
}

/** Who answers a query, or why nobody does. */
export type Plan =
  | { kind: 'parts'; local: boolean; remotes: RemoteTarget[] }
  /** Nobody can answer right now: the status is NOT_AVAILABLE. */
  | { kind: 'not_available'; reason: string }
  /** Nobody is to be asked: the status is NO_RESULT. */
  | { kind: 'no_result'; reason: string };

export function remoteTarget(host: StreamsMetadata): RemoteTarget {
  return { server: host.endpoint ?? host.grpcEndpoint ?? host.processId, grpcEndpoint: host.grpcEndpoint };
}

/**
 * Routing (compatibility file, section 5): a keyed clause goes to the server whose active task owns the key's
 * partition; any other clause to every server that hosts a partition of the store; any clause on a global store to
 * this server alone. Remote servers are only asked when remote access is allowed.
 */
export function planQuery(view: InstanceView, store: string, bound: BoundQuery): Plan {
  // A global store is whole on every node: answered here, never fanned out.
  if (view.isGlobalStore(store)) return { kind: 'parts', local: true, remotes: [] };
  const { remoteAccessAllowed } = bound.request.options;
  if (bound.keyed && bound.keyBytes !== undefined) {
    const metadata = view.keyQueryMetadata(store, bound.keyBytes);
    if (metadata === undefined) return { kind: 'not_available', reason: `the partitions of store '${store}' are not known yet (rebalancing)` };
    const owner = metadata.activeHost;
    if (owner === undefined) {
      return { kind: 'not_available', reason: `no server owns partition ${metadata.partition} of store '${store}' right now` };
    }
    if (owner.isLocal) return { kind: 'parts', local: true, remotes: [] };
    if (!remoteAccessAllowed) {
      const server = remoteTarget(owner).server;
      return { kind: 'no_result', reason: `the key belongs to ${server} and remote access is not allowed (remote_access_allowed=false)` };
    }
    return { kind: 'parts', local: false, remotes: [remoteTarget(owner)] };
  }
  const hosts = view.metadataForStore(store);
  if (hosts.length === 0) return { kind: 'not_available', reason: `no server hosts a partition of store '${store}' right now` };
  const local = hosts.some((host) => host.isLocal);
  const remotes = remoteAccessAllowed ? hosts.filter((host) => !host.isLocal).map(remoteTarget) : [];
  if (!local && remotes.length === 0) {
    return { kind: 'no_result', reason: `this server hosts no partition of store '${store}' and remote access is not allowed (remote_access_allowed=false)` };
  }
  return { kind: 'parts', local, remotes };
}
