import type { PeerClient } from '../cluster/peer-client';
import { failedAnswer, type PeerAnswer, type PeerQueryHandler, type PeerQueryRequest, type StoreDescription } from '../cluster/peer-protocol';
import { InvalidQuery, NoLocalInstance, UnknownApplication, UnknownStore } from '../errors';
import type { InstanceView } from '../streams/runtime/instance-view';
import { bindQuery } from './bind';
import { executeLocal } from './execute-local';
import { mergeParts } from './merge';
import { parseQueryRequest, requestToJson } from './parse';
import { planQuery, type RemoteTarget } from './plan';
import { beforeDeadline, retryUntilReady, type Attempt } from './retry';
import { describeSchema, schemaOfDescription, schemaOfStore, type StoreSchema } from './schema';
import type { Part, QueryRequest, StoreQueryResponse } from './types';

export interface QueryServiceOptions {
  /** The local instance of an application, if this process runs one. */
  applications: (applicationId: string) => InstanceView | undefined;
  /** This node's application.server (`host:port`): the `server` of responses and of local parts. */
  localServer: string;
  /** How peers are called. */
  peers: Pick<PeerClient, 'query' | 'describeStore'>;
}

export interface ExecuteOptions {
  /** Answer only the records of the success parts, as one list (`.../stores/{name}/records`). */
  recordsOnly?: boolean;
}

/** A peer is asked to answer this much before the query's deadline, so that its answer arrives in time. */
const PEER_MARGIN_MS = 100;

/** States in which an instance serves queries (compatibility file: otherwise 503). */
function isRunning(view: InstanceView): boolean {
  return view.state === 'RUNNING' || view.state === 'REBALANCING';
}

/** Resolves with the first value `pick` accepts, or undefined once every promise has settled without one. */
function firstAccepted<T>(promises: readonly Promise<T>[], pick: (value: T) => boolean): Promise<T | undefined> {
  if (promises.length === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let pending = promises.length;
    for (const promise of promises) {
      promise.then(
        (value) => {
          if (pick(value)) resolve(value);
          if (--pending === 0) resolve(undefined);
        },
        () => {
          if (--pending === 0) resolve(undefined);
        },
      );
    }
  });
}

/**
 * Interactive queries over the whole cluster (compatibility file, section 5): validates a query, routes it to the
 * servers that hold its data, reads the local part here, asks the others over gRPC, and merges the parts. It is
 * also what answers peers (PeerQueryHandler): their queries are read here only, never forwarded.
 */
export class QueryService implements PeerQueryHandler {
  constructor(private readonly options: QueryServiceOptions) {}

  /**
   * Runs a store query. Throws UnknownApplication or UnknownStore (404), InvalidQuery (400), NoLocalInstance (503);
   * any query that runs answers a response, whatever its status.
   */
  execute(applicationId: string, store: string, body: unknown): Promise<StoreQueryResponse>;
  execute(applicationId: string, store: string, body: unknown, options: { recordsOnly: true }): Promise<unknown[]>;
  execute(applicationId: string, store: string, body: unknown, options?: ExecuteOptions): Promise<StoreQueryResponse | unknown[]>;
  async execute(applicationId: string, store: string, body: unknown, options: ExecuteOptions = {}): Promise<StoreQueryResponse | unknown[]> {
    const response = await this.run(applicationId, store, body);
    return options.recordsOnly ? response.result.success.flatMap((part) => part.records) : response;
  }

  async answerPeer(request: PeerQueryRequest, deadline: number): Promise<PeerAnswer> {
    const view = this.viewOf(request.applicationId, request.store);
    let body: unknown;
    try {
      body = JSON.parse(request.queryJson);
    } catch (error) {
      throw new InvalidQuery(`the forwarded query is not JSON: ${(error as Error).message}`);
    }
    const query = parseQueryRequest(body);
    this.requireRunning(view);
    return executeLocal(view, request.store, query, deadline);
  }

  describeStore(applicationId: string, store: string): StoreDescription | undefined {
    const schema = this.localSchema(this.viewOf(applicationId, store), store);
    return schema === undefined ? undefined : describeSchema(schema);
  }

  private async run(applicationId: string, store: string, body: unknown): Promise<StoreQueryResponse> {
    const started = Date.now();
    const view = this.viewOf(applicationId, store);
    const request = parseQueryRequest(body);
    this.requireRunning(view);
    const deadline = started + request.options.queryTimeoutMs;
    const base = { server: this.options.localServer, store, type: request.type, started };

    const schema = await retryUntilReady(() => this.findSchema(view, applicationId, store, deadline), request.options, deadline);
    if (!schema.ready) return mergeParts({ ...base, parts: [], unanswered: { status: 'NOT_AVAILABLE', reason: schema.reason } });
    const bound = bindQuery(request, schema.value, store);

    const plan = planQuery(view, store, bound);
    if (plan.kind !== 'parts') {
      return mergeParts({ ...base, parts: [], unanswered: { status: plan.kind === 'not_available' ? 'NOT_AVAILABLE' : 'NO_RESULT', reason: plan.reason } });
    }
    // Peers first: their calls run while the local part is read.
    const remote = plan.remotes.map((target) => this.remotePart(applicationId, store, request, target, deadline));
    const local = plan.local ? [this.bounded({ server: this.options.localServer, remote: false }, executeLocal(view, store, request, deadline), deadline)] : [];
    return mergeParts({ ...base, parts: await Promise.all([...local, ...remote]) });
  }

  private viewOf(applicationId: string, store: string): InstanceView {
    const view = this.options.applications(applicationId);
    if (view === undefined) throw new UnknownApplication(applicationId);
    if (!view.hasStore(store)) throw new UnknownStore(applicationId, store);
    return view;
  }

  private requireRunning(view: InstanceView): void {
    if (!isRunning(view)) throw new NoLocalInstance(view.applicationId, view.state);
  }

  private localSchema(view: InstanceView, store: string): StoreSchema | undefined {
    for (const partition of view.queryableStores(store).values()) {
      const schema = schemaOfStore(partition);
      if (schema !== undefined) return schema;
    }
    return undefined;
  }

  /**
   * The store's type and key serde, needed to validate the query and find a key's partition: from a local
   * partition, else from a peer that hosts one (this node may host none, or have them all restoring).
   */
  private async findSchema(view: InstanceView, applicationId: string, store: string, deadline: number): Promise<Attempt<StoreSchema>> {
    const local = this.localSchema(view, store);
    if (local !== undefined) return { ready: true, value: local };
    const peers = view.metadataForStore(store).filter((host) => !host.isLocal && host.grpcEndpoint !== undefined);
    const described = await firstAccepted(
      peers.map((host) => this.options.peers.describeStore(host.grpcEndpoint!, applicationId, store, deadline)),
      (description) => description !== undefined,
    );
    if (described === undefined) return { ready: false, reason: `store '${store}' is not queryable on any server right now (rebalancing or restoring)` };
    const schema = schemaOfDescription(described);
    return typeof schema === 'string' ? { ready: false, reason: schema } : { ready: true, value: schema };
  }

  private remotePart(applicationId: string, store: string, request: QueryRequest, target: RemoteTarget, deadline: number): Promise<Part> {
    const part = { server: target.server, remote: true };
    if (target.grpcEndpoint === undefined) {
      return Promise.resolve({ ...part, answer: failedAnswer(`${target.server} published no gRPC endpoint (grpc.endpoint) to be asked on`) });
    }
    const remaining = Math.max(1, deadline - Date.now());
    const timeoutMs = Math.max(1, Math.floor(remaining - Math.min(PEER_MARGIN_MS, remaining / 10)));
    // Peers read their own partitions only: a query fans out once.
    const queryJson = requestToJson(request, { ...request.options, remoteAccessAllowed: false, queryTimeoutMs: timeoutMs });
    return this.bounded(part, this.options.peers.query(target.grpcEndpoint, { applicationId, store, queryJson, timeoutMs }, deadline), deadline);
  }

  /** A part that has not answered by the deadline is a failure part: the response never waits past it. */
  private async bounded(part: Omit<Part, 'answer'>, answer: Promise<PeerAnswer>, deadline: number): Promise<Part> {
    const settled = await beforeDeadline(answer, deadline, () =>
      failedAnswer('no answer within the query timeout (query_timeout_ms)', 'TIMED_OUT'),
    );
    return { ...part, answer: settled };
  }
}
