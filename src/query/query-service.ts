import { InvalidQuery, NoLocalInstance, UnknownApplication, UnknownStore } from '../errors';
import type { TopicPartition } from '../streams/kafka';
import type { InstanceView } from '../streams/runtime/instance-view';
import type { StreamsMetadata } from '../streams/runtime/streams-metadata';
import { bindQuery, type BoundQuery } from './bind';
import { clauseSpec, pages, placeKind } from './clauses';
import { PageTokens, queryFingerprint } from './page-token';
import { executeLocal, readKeyedHere, schemaInWorkers, staleReadKey, streamLocal } from './execute-local';
import { parseQueryRequest, requestFromPeer, requestToJson, requestToPeer } from './parse';
import { type Plan, planQuery, remoteTarget, type RemoteTarget } from './plan';
import { collectBody, recordsBody, responseBody, wholeResponse, type Paging, type ReadPart, type StreamedPart, type Unanswered } from './response-body';
import { joinChunks } from './chunks';
import { storeReadPart } from './part-spans';
import { drainPart, failedAnswer, type PartEnd, type PartFailureKind, type PartStream, type RecordChunk, replayPart, withFirstChunk } from './parts';
import type { PeerAnswer, PeerQuery, PeerQueryHandler, PeerQueryRequest, PeerTransport } from './peers';
import { retryUntilReady, type Attempt } from './retry';
import { describeSchema, schemaOfDescription, schemaOfStore, type StoreDescription, type StoreSchema } from './schema';
import type { QueryRequest, StoreQueryResponse } from './types';

export interface QueryServiceOptions {
  /** The local instance of an application, if this process runs one. */
  applications: (applicationId: string) => InstanceView | undefined;
  /** This node's application.server (`host:port`): the `server` of responses and of local parts. */
  localServer: string;
  /** How peers are called. */
  peers: PeerTransport;
  /** The cluster secret, which signs continuation tokens so that any node checks any node's; none: see page-token.ts. */
  clusterSecret?: string;
}

export interface ExecuteOptions {
  /** Answer only the records of the success parts, as one list (`.../stores/{name}/records`). */
  recordsOnly?: boolean;
}

/**
 * A store query's answer: its whole body when it was read at once (a keyed query answered here), else JSON text in
 * chunks that together are the body.
 */
export type QueryAnswer =
  | { streamed: false; text: string }
  | {
      /**
       * Whether the answer may be large (a clause that lists records): it is then sent as it is read; a keyed
       * clause or `count` answers a few records, sent in one piece.
       */
      streamed: boolean;
      body: AsyncGenerator<string, void, undefined>;
    };

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
  private readonly tokens: PageTokens;

  constructor(private readonly options: QueryServiceOptions) {
    this.tokens = new PageTokens(options.clusterSecret);
  }

  /**
   * Runs a store query. Throws UnknownApplication or UnknownStore (404), InvalidQuery (400), NoLocalInstance (503);
   * any query that runs answers a response, whatever its status.
   */
  execute(applicationId: string, store: string, body: unknown): Promise<StoreQueryResponse>;
  execute(applicationId: string, store: string, body: unknown, options: { recordsOnly: true }): Promise<unknown[]>;
  execute(applicationId: string, store: string, body: unknown, options?: ExecuteOptions): Promise<StoreQueryResponse | unknown[]>;
  async execute(applicationId: string, store: string, body: unknown, options: ExecuteOptions = {}): Promise<StoreQueryResponse | unknown[]> {
    const answer = await this.stream(applicationId, store, body, options);
    return JSON.parse('text' in answer ? answer.text : await collectBody(answer.body)) as StoreQueryResponse | unknown[];
  }

  /**
   * Runs a store query and answers its body: whole when it was read at once (`text`), else as it is read. Throws UnknownApplication or UnknownStore (404),
   * InvalidQuery (400), NoLocalInstance (503) before the first chunk; from then on, whatever happens is told in the
   * body. A body that is not read to its end must be returned, which ends the reads and calls under way.
   */
  async stream(applicationId: string, store: string, body: unknown, options: ExecuteOptions = {}): Promise<QueryAnswer> {
    const started = Date.now();
    const view = this.viewOf(applicationId, store);
    const request = parseQueryRequest(body);
    this.requireRunning(view);
    const deadline = started + request.options.queryTimeoutMs;
    const spec = clauseSpec(request.type, request.clause);
    const streamed = spec !== undefined && !spec.keyed && request.clause !== 'count';
    const paged = pages(request.type, request.clause);
    // Hashed only for a query that pages: a get does not pay for it.
    const fingerprint = paged ? queryFingerprint(applicationId, store, request) : '';
    if (request.options.next !== undefined) {
      if (!paged) throw new InvalidQuery(`clause '${request.clause}' of ${request.type} stores does not page: it takes no set_options.next`);
      request.positions = this.tokens.decode(request.options.next, fingerprint, placeKind(request.type)).positions;
    }
    const paging: Paging | undefined =
      paged && request.options.limit >= 0 ? { requested: request.positions, encode: (positions) => this.tokens.encode(fingerprint, positions) } : undefined;
    const answer = (parts: StreamedPart[], unanswered?: Unanswered): QueryAnswer => ({
      streamed,
      body: options.recordsOnly
        ? recordsBody(parts)
        : responseBody({ server: this.options.localServer, store, type: request.type, started }, parts, unanswered, paging),
    });

    const schemaHere = this.localSchema(view, store);
    const schema = schemaHere !== undefined ? { ready: true as const, value: schemaHere } : await retryUntilReady(() => this.findSchema(view, applicationId, store, deadline), request.options, deadline);
    if (!schema.ready) return answer([], { status: 'NOT_AVAILABLE', reason: schema.reason });
    const bound = bindQuery(request, schema.value, store);
    const staleKey = staleReadKey(view, store, bound);
    if (staleKey !== undefined) return answer([await this.staleKeyedPart(view, applicationId, store, request, staleKey, deadline)]);

    if (bound.keyBytes !== undefined && !view.isGlobalStore(store)) {
      // A keyed query's few records are answered in one piece, written at once; one that pages (a window or session
      // fetch with a limit) is answered with its token, as any paged query.
      const whole = (part: ReadPart): QueryAnswer => ({
        streamed: false,
        text: wholeResponse({ server: this.options.localServer, store, type: request.type, started }, part, options.recordsOnly === true),
      });
      const here = paging === undefined ? readKeyedHere(view, store, bound) : undefined;
      if (here !== undefined) return whole({ server: this.options.localServer, remote: false, records: here, end: { ok: true } });
      if (paging === undefined || request.options.retries > 0) {
        const keyed = await this.keyedPart(view, applicationId, store, bound, deadline);
        if ('kind' in keyed) return answer([], unansweredOf(keyed));
        if (paging === undefined) return whole(keyed);
        return answer([{ server: keyed.server, remote: keyed.remote, stream: replayPart(keyed.records.count > 0 ? [keyed.records] : [], keyed.end) }]);
      }
    }
    const plan = planQuery(view, store, bound);
    if (plan.kind !== 'parts') return answer([], unansweredOf(plan));
    // Peers' calls start here and run while the local part is read; their chunks wait for their turn.
    let remote = plan.remotes.map((target) => this.remotePart(applicationId, store, request, target, deadline));
    if (request.options.allowStale && !bound.keyed && !view.isGlobalStore(store)) {
      // Stale-allowed, a peer has half the time left to start answering: the other half is for the standbys that
      // stand in for it. One that has started has until the deadline, however late its part is read.
      const answerBy = Date.now() + Math.max(1, Math.floor((deadline - Date.now()) / 2));
      remote = (await Promise.all(remote.map((part) => this.orStandIns(view, applicationId, store, request, part, answerBy, deadline)))).flat();
    }
    const local: StreamedPart[] = plan.local
      ? [{ server: this.options.localServer, remote: false, stream: storeReadPart(store, applicationId, () => streamLocal(view, store, request, deadline)) }]
      : [];
    return answer([...local, ...remote]);
  }

  /** The unary peer call, for callers of the previous version. */
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

  streamPeer(query: PeerQuery, deadline: number): PartStream {
    const view = this.viewOf(query.applicationId, query.store);
    const request = requestFromPeer(query, () => view.storePartitionCount(query.store));
    this.requireRunning(view);
    const here = this.keyedHere(view, query.store, request);
    if (here !== undefined) return replayPart(here.count > 0 ? [here] : [], { ok: true });
    return storeReadPart(query.store, query.applicationId, () => streamLocal(view, query.store, request, deadline));
  }

  describeStore(applicationId: string, store: string): StoreDescription | undefined {
    const schema = this.localSchema(this.viewOf(applicationId, store), store);
    return schema === undefined ? undefined : describeSchema(schema);
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

  /** A keyed query's records read at once here (readKeyedHere), or undefined when the general path must answer. */
  private keyedHere(view: InstanceView, store: string, request: QueryRequest): RecordChunk | undefined {
    const schema = this.localSchema(view, store);
    if (schema === undefined || !clauseSpec(request.type, request.clause)?.keyed || view.isGlobalStore(store)) return undefined;
    try {
      return readKeyedHere(view, store, bindQuery(request, schema, store));
    } catch {
      // What is wrong with the query, the general path says.
      return undefined;
    }
  }

  private localSchema(view: InstanceView, store: string): StoreSchema | undefined {
    // Any partition tells: the first found, without a map of them all, unless it cannot.
    const first = view.queryableStore(store);
    const schema = first === undefined ? undefined : schemaOfStore(first);
    if (schema !== undefined || first === undefined) return schema;
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
    const workers = view.workerStores(store);
    if (workers.length > 0) {
      const inWorkers = await schemaInWorkers(store, workers);
      if (inWorkers.ready) return inWorkers;
    }
    const peers = view.metadataForStore(store).filter((host) => !host.isLocal && host.grpcEndpoint !== undefined);
    const described = await firstAccepted(
      peers.map((host) => this.options.peers.describeStore(host.grpcEndpoint!, applicationId, store, deadline)),
      (description) => description !== undefined,
    );
    if (described === undefined) return { ready: false, reason: `store '${store}' is not queryable on any server right now (rebalancing or restoring)` };
    const schema = schemaOfDescription(described);
    return typeof schema === 'string' ? { ready: false, reason: schema } : { ready: true, value: schema };
  }

  /**
   * A stale-allowed keyed query (KIP-535): the replicas of the key's partition are asked one after the other, the
   * active first, then the standbys (this node's first), until one answers; each but the last gets half the time
   * left, so that an active that does not answer leaves time for a standby. The part says which replica answered
   * and its lag. When none answers, the part fails with what each said.
   */
  private async staleKeyedPart(view: InstanceView, applicationId: string, store: string, request: QueryRequest, keyBytes: Buffer, deadline: number): Promise<StreamedPart> {
    const metadata = view.keyQueryMetadata(store, keyBytes);
    const hosts = metadata === undefined ? [] : [...(metadata.activeHost ? [metadata.activeHost] : []), ...metadata.standbyHosts.filter((h) => h.isLocal), ...metadata.standbyHosts.filter((h) => !h.isLocal)];
    const candidates = hosts.filter((host) => host.isLocal || request.options.remoteAccessAllowed);
    const failures: string[] = [];
    let kind: PartFailureKind = 'NOT_AVAILABLE';
    for (const [index, host] of candidates.entries()) {
      const last = index === candidates.length - 1;
      const until = last ? deadline : Date.now() + Math.max(1, Math.floor((deadline - Date.now()) / 2));
      const part: StreamedPart = host.isLocal
        ? { server: this.options.localServer, remote: false, stream: streamLocal(view, store, request, until) }
        : this.remotePart(applicationId, store, request, remoteTarget(host), until);
      const { chunks, end } = await drainPart(part.stream);
      if (end.ok) return { ...part, stream: replayPart(chunks, end) };
      failures.push(`${part.server}${host === metadata?.activeHost ? ' (active)' : ' (standby)'}: ${end.messages.join('; ')}`);
      if (end.kind === 'INVALID_QUERY' || end.kind === 'UNKNOWN_STORE') {
        kind = end.kind;
        break;
      }
      if (Date.now() >= deadline) break;
    }
    const server = metadata?.activeHost ? remoteTarget(metadata.activeHost).server : this.options.localServer;
    const reason =
      failures.length > 0
        ? `no replica of the key's partition answered: ${failures.join(' | ')}`
        : `no replica of the key's partition${metadata === undefined ? '' : ` ${metadata.partition}`} of store '${store}' can be asked right now`;
    const timedOut = Date.now() >= deadline;
    return { server, remote: server !== this.options.localServer, stream: failed(reason, timedOut ? 'TIMED_OUT' : kind) };
  }

  /**
   * A keyed query, retried as a Kafka Streams client retries InvalidStateStoreException: each attempt routes the key
   * again and asks its owner once, here or on a peer, and while the owner answers NOT_AVAILABLE (rebalancing,
   * restoring, or just moved on) the next attempt follows the partition to wherever the group now says it is. The
   * owner itself never retries: an old owner would wait for a partition that is not coming back. The part is read
   * whole (a few records) and answered in one piece.
   */
  private async keyedPart(view: InstanceView, applicationId: string, store: string, bound: BoundQuery, deadline: number): Promise<ReadPart | Unrouted> {
    const once: QueryRequest = { ...bound.request, options: { ...bound.request.options, retries: 0 } };
    let last: ReadPart | undefined;
    const outcome = await retryUntilReady<ReadPart | Unrouted>(
      async () => {
        last = undefined;
        const plan = planQuery(view, store, bound);
        if (plan.kind === 'no_result') return { ready: true, value: plan };
        if (plan.kind === 'not_available') return { ready: false, reason: plan.reason };
        const part = plan.local
          ? { server: this.options.localServer, remote: false, stream: streamLocal(view, store, once, deadline) }
          : this.remotePart(applicationId, store, once, plan.remotes[0]!, deadline);
        // A keyed part is a few records: read whole, then answered in one piece.
        const { chunks, end } = await drainPart(part.stream);
        const records = joinChunks(chunks);
        last = { server: part.server, remote: part.remote, records, end };
        // A part that answered records is kept, whatever its end: asked again, its records would come twice.
        if (records.count > 0 || end.ok || end.kind !== 'NOT_AVAILABLE') return { ready: true, value: last };
        return { ready: false, reason: end.messages.join('; ') };
      },
      bound.request.options,
      deadline,
    );
    if (outcome.ready) return outcome.value;
    const kind = outcome.timedOut ? 'TIMED_OUT' : 'NOT_AVAILABLE';
    if (last === undefined) return { kind: 'not_available', reason: outcome.reason };
    return { server: last.server, remote: last.remote, records: joinChunks([]), end: failedAnswer(outcome.reason, kind) };
  }

  /**
   * A stale-allowed query over every partition: a peer that cannot answer (unreachable, not available, out of time)
   * is stood in for by the standbys of its active partitions, this node's first, each asked for the partitions it
   * holds. Only when every one of its partitions has a standby to ask: else its failure stands, as without
   * allow_stale. A peer that answers streams on as it came.
   */
  private async orStandIns(
    view: InstanceView,
    applicationId: string,
    store: string,
    request: QueryRequest,
    part: StreamedPart,
    answerBy: number,
    deadline: number,
  ): Promise<StreamedPart[]> {
    const first = await firstWithin(part.stream, answerBy);
    if (first !== undefined && !first.done) return [{ ...part, stream: withFirstChunk(first.value, part.stream) }];
    const end = first?.value ?? failedAnswer('no answer within half the query timeout (query_timeout_ms)', 'TIMED_OUT');
    const asIs = [{ ...part, stream: replayPart([], end) }];
    if (end.ok || !STANDS_IN_FOR.has(end.kind) || Date.now() >= deadline) return asIs;
    const topics = view.sourceTopicsForStore(store) ?? [];
    const partitionsIn = (tps: readonly TopicPartition[]) => new Set(tps.filter((tp) => topics.includes(tp.topic)).map((tp) => tp.partition));
    const hosts = view.allMetadata();
    const gone = hosts.find((host) => !host.isLocal && remoteTarget(host).server === part.server);
    const lost = gone === undefined ? [] : [...partitionsIn(gone.topicPartitions)].sort((a, b) => a - b);
    const candidates = [...hosts.filter((host) => host.isLocal), ...hosts.filter((host) => !host.isLocal && host !== gone && request.options.remoteAccessAllowed)];
    const asked = new Map<StreamsMetadata, number[]>();
    for (const partition of lost) {
      const holder = candidates.find((host) => partitionsIn(host.standbyTopicPartitions).has(partition));
      if (holder === undefined) return asIs;
      asked.set(holder, [...(asked.get(holder) ?? []), partition]);
    }
    if (asked.size === 0) return asIs;
    return [...asked].map(([holder, standInPartitions]) => {
      const standIn = { ...request, standInPartitions };
      return holder.isLocal
        ? { server: this.options.localServer, remote: false, stream: streamLocal(view, store, standIn, deadline) }
        : this.remotePart(applicationId, store, standIn, remoteTarget(holder), deadline);
    });
  }

  private remotePart(applicationId: string, store: string, request: QueryRequest, target: RemoteTarget, deadline: number): StreamedPart {
    const part = { server: target.server, remote: true };
    if (target.grpcEndpoint === undefined) {
      return { ...part, stream: failed(`${target.server} published no gRPC endpoint (grpc.endpoint) to be asked on`) };
    }
    const remaining = Math.max(1, deadline - Date.now());
    const timeoutMs = Math.max(1, Math.floor(remaining - Math.min(PEER_MARGIN_MS, remaining / 10)));
    // Peers read their own partitions only: a query fans out once.
    const legacyJson = () => requestToJson(request, { ...request.options, remoteAccessAllowed: false, queryTimeoutMs: timeoutMs });
    const query = requestToPeer(request, applicationId, store, timeoutMs);
    // A keyed query answers a few records: one message each way on the peer's multiplexed call.
    const stream =
      clauseSpec(request.type, request.clause)?.keyed === true
        ? this.options.peers.keyedQuery(target.grpcEndpoint, query, deadline, legacyJson)
        : this.options.peers.streamQuery(target.grpcEndpoint, query, deadline, legacyJson);
    return { ...part, stream: bounded(stream, deadline) };
  }
}

/** The part's first chunk or its end, if either comes by `until`; else undefined, and the part is let go. */
async function firstWithin(stream: PartStream, until: number): Promise<IteratorResult<RecordChunk, PartEnd> | undefined> {
  const next = stream.next();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, until - Date.now()))));
  try {
    const first = await Promise.race([next, late]);
    if (first === undefined) void next.then(() => stream.return(failedAnswer('let go', 'TIMED_OUT')), () => undefined);
    return first;
  } finally {
    clearTimeout(timer);
  }
}

/** The failures of a peer that its partitions' standbys may stand in for: it is gone, frozen or not ready. */
const STANDS_IN_FOR: ReadonlySet<PartFailureKind> = new Set(['UNREACHABLE', 'NOT_AVAILABLE', 'TIMED_OUT']);

const NO_ANSWER_IN_TIME = { done: true, value: failedAnswer('no answer within the query timeout (query_timeout_ms)', 'TIMED_OUT') } as const;

/** Resolves with NO_ANSWER_IN_TIME at the next turn of the event loop: after whatever is already at hand. */
function afterWhatIsAtHand(): Promise<typeof NO_ANSWER_IN_TIME> {
  return new Promise((resolve) => setImmediate(() => resolve(NO_ANSWER_IN_TIME)));
}

/**
 * A peer's part that has not ended by the deadline ends there as a failure: the answer never waits past it. One
 * timer for the whole part, not one per chunk. A part read after the deadline (the parts before it took the time)
 * still gives what its peer had sent by then, the end included, so that a peer that answered in time is not
 * counted as late.
 */
async function* bounded(stream: PartStream, deadline: number): PartStream {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof NO_ANSWER_IN_TIME>((resolve) => {
    timer = setTimeout(() => resolve(NO_ANSWER_IN_TIME), Math.max(0, deadline - Date.now()));
  });
  try {
    for (;;) {
      const next = await Promise.race([stream.next(), Date.now() < deadline ? expired : afterWhatIsAtHand()]);
      if (next.done) return next.value;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    // Not awaited: a call that does not answer ends at its own deadline, which must not hold the answer back.
    stream.return({ ok: true }).catch(() => undefined);
  }
}

/** Why nobody answers a query. */
type Unrouted = Exclude<Plan, { kind: 'parts' }>;

function unansweredOf(plan: Unrouted): Unanswered {
  return { status: plan.kind === 'not_available' ? 'NOT_AVAILABLE' : 'NO_RESULT', reason: plan.reason };
}

/** A part that fails before any record. */
async function* failed(message: string, kind?: PartFailureKind): PartStream {
  return failedAnswer(message, kind);
}
