import * as grpc from '@grpc/grpc-js';
import NodeCache from 'node-cache';
import type { Logger } from 'pino';
import { spanningPart } from '../query/part-spans';
import { failedAnswer, type PartEnd, type PartFailure, type PartStream, type RecordChunk } from '../query/parts';
import type { PeerAnswer, PeerQuery, PeerQueryRequest, PeerTransport } from '../query/peers';
import type { StoreDescription } from '../query/schema';
import { startedAtMs, type PeerTimeline, type TimelineEntryJson, type TimelinePeers } from './cluster-timeline';
import { MultiplexedCall, MultiplexedCallEnded } from './multiplexed-call';
import { isTraced, peerCallSpan } from './peer-spans';
import { callMetadata, channelCredentials, type PeerSecurity } from './peer-security';
import { UNLIMITED_MESSAGES, type NodeInfo } from './peer-server';
import { peerService, positionFromMessage, type QueryChunkMessage, type QueryReplyMessage } from './peer-service';

export interface PeerClientOptions {
  /** How long a channel to a peer is kept after its last use, in seconds (default 300). */
  channelTtlSeconds?: number;
  /** TLS and the cluster secret, as the peers' servers expect them; none: plaintext without credentials. */
  security?: PeerSecurity;
  /** Told of failed calls: refusals as warnings, the rest (which the query's answer reports) at debug. */
  logger?: Logger;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  ...UNLIMITED_MESSAGES,
  // Kept alive between queries: an idle channel pings every 30 s, so a connection a peer or a middlebox dropped
  // silently is noticed (after 10 s without an answer) and redone before a query needs it, not during one.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  // A peer that restarts is back within seconds; grpc's default backoff (up to 120 s) would keep it failed.
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2000,
};

/** A failed call, as grpc-js rejects it. */
function isServiceError(error: unknown): error is grpc.ServiceError {
  return error instanceof Error && typeof (error as Partial<grpc.ServiceError>).code === 'number';
}

/**
 * Calls the peer service of other nodes, addressed by their gRPC endpoint (`host:port`). Channels are reused
 * between queries and closed once unused for `channelTtlSeconds`, or at once when the peer cannot be reached (so
 * that the next query connects afresh instead of waiting out the channel's reconnection backoff). Every call has
 * the deadline it is given, but the long-lived multiplexed call, where each query keeps its own.
 */
export class PeerClient implements PeerTransport, TimelinePeers {
  private readonly channels: NodeCache;
  private readonly ttlSeconds: number;
  private readonly security: PeerSecurity;
  private readonly metadata: grpc.Metadata;
  private readonly logger: Logger | undefined;
  /** Peers of the previous version, which answer StreamQuery UNIMPLEMENTED: asked with Query until their channel goes. */
  private readonly legacy = new Set<string>();
  /** Peers that answer Multiplexed UNIMPLEMENTED: keyed queries go by StreamQuery until their channel goes. */
  private readonly unmultiplexed = new Set<string>();
  /** The open multiplexed call to each peer that has one. */
  private readonly multiplexedCalls = new Map<string, MultiplexedCall>();

  constructor(options: PeerClientOptions = {}) {
    this.ttlSeconds = options.channelTtlSeconds ?? 300;
    this.security = options.security ?? {};
    this.metadata = callMetadata(this.security);
    this.logger = options.logger;
    // useClones false: the cache holds live clients, which must not be deep-copied.
    this.channels = new NodeCache({ stdTTL: this.ttlSeconds, checkperiod: Math.max(1, Math.ceil(this.ttlSeconds / 5)), useClones: false });
    // Expiry deletes too, so this closes every channel that leaves the cache.
    this.channels.on('del', (endpoint: string, client: grpc.Client) => {
      this.legacy.delete(endpoint);
      this.unmultiplexed.delete(endpoint);
      this.multiplexedCalls.get(endpoint)?.end();
      this.multiplexedCalls.delete(endpoint);
      client.close();
    });
  }

  /**
   * The peer's part of a query. Never rejects: a peer that is down, too slow or answers an error gives a failed
   * answer that says so.
   */
  async query(grpcEndpoint: string, request: PeerQueryRequest, deadline: number): Promise<PeerAnswer> {
    let reply;
    try {
      reply = await this.call(grpcEndpoint, peerService().Query, request, deadline);
    } catch (error) {
      return this.failure(grpcEndpoint, error);
    }
    if (reply.failure) return this.peerFailure(reply.failure);
    if (!reply.records) return failedAnswer('the peer answered neither records nor a failure');
    try {
      const records: unknown = JSON.parse(reply.records.recordsJson);
      if (!Array.isArray(records)) return failedAnswer('the peer answered records that are not a JSON array');
      return { ok: true, records };
    } catch (error) {
      return failedAnswer(`the peer answered records that are not JSON: ${(error as Error).message}`);
    }
  }

  /**
   * The peer's part of a query as a stream of record chunks (StreamQuery). The call starts at once; its chunks are
   * read as the stream is pulled, and gRPC's flow control holds the peer back meanwhile. A peer of the previous
   * version is asked with Query and `legacyJson()` instead. The stream never throws: a peer that is down, too slow,
   * or sends what is not records ends it with a failure; returning it early cancels the call.
   */
  streamQuery(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    if (this.legacy.has(grpcEndpoint)) return this.legacyPart(grpcEndpoint, query, deadline, legacyJson);
    const method = peerService().StreamQuery;
    const client = this.channel(grpcEndpoint);
    const metadata = this.metadata.clone();
    const span = peerCallSpan('StreamQuery', grpcEndpoint, query, metadata);
    const call = withoutCallerStack(() => client.makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, query, metadata, { deadline }));
    // Errors surface through the iteration below; this keeps an unread failed call from being an unhandled error.
    call.on('error', () => undefined);
    const part = this.readPart(grpcEndpoint, call, query, deadline, legacyJson);
    return span === undefined ? part : spanningPart(part, span);
  }

  /**
   * The part of a keyed query (a get: a few records), asked on the peer's multiplexed call: a message each way, no
   * call of its own. Otherwise as streamQuery: never throws, ends with a failure that says why. A peer that does
   * not know Multiplexed is asked with StreamQuery, from then on until its channel goes; so is a traced query, whose
   * context travels in its call's metadata, which the multiplexed call's queries share.
   */
  keyedQuery(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    if (this.unmultiplexed.has(grpcEndpoint) || this.legacy.has(grpcEndpoint) || isTraced()) return this.streamQuery(grpcEndpoint, query, deadline, legacyJson);
    return this.multiplexedPart(grpcEndpoint, query, deadline, legacyJson);
  }

  private async *multiplexedPart(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    let chunks = 0;
    try {
      for await (const message of this.multiplexedCall(grpcEndpoint).ask(query, deadline)) {
        if (message.records) {
          const chunk = checkedChunk(message.records.recordsJson, message.records.count);
          if (typeof chunk === 'string') return failedAnswer(chunk);
          chunks++;
          yield chunk;
        }
        if (message.end) return this.endOf(message.end);
      }
      return failedAnswer('the peer ended its part without saying whether it was complete');
    } catch (error) {
      if (chunks === 0 && isServiceError(error) && error.code === grpc.status.UNIMPLEMENTED) {
        this.unmultiplexed.add(grpcEndpoint);
        return yield* this.streamQuery(grpcEndpoint, query, deadline, legacyJson);
      }
      if (error instanceof MultiplexedCallEnded) return failedAnswer(error.message, 'NOT_AVAILABLE');
      return this.failure(grpcEndpoint, error);
    }
  }

  /** The peer's open multiplexed call, made when it has none. */
  private multiplexedCall(grpcEndpoint: string): MultiplexedCall {
    // Asked first in any case: it keeps the channel (and so the call) from expiring while in use.
    const client = this.channel(grpcEndpoint);
    const open = this.multiplexedCalls.get(grpcEndpoint);
    if (open?.open) return open;
    const method = peerService().Multiplexed;
    // No deadline: the call lives as long as the channel; each query keeps its own.
    const call = withoutCallerStack(() => client.makeBidiStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, this.metadata.clone(), {}));
    const made = new MultiplexedCall(call, () => {
      if (this.multiplexedCalls.get(grpcEndpoint) === made) this.multiplexedCalls.delete(grpcEndpoint);
    });
    this.multiplexedCalls.set(grpcEndpoint, made);
    return made;
  }

  private async *readPart(
    grpcEndpoint: string,
    call: grpc.ClientReadableStream<QueryChunkMessage>,
    query: PeerQuery,
    deadline: number,
    legacyJson: () => string,
  ): PartStream {
    let chunks = 0;
    try {
      // A call that ends by itself is never cancelled: a call cancelled before its status is a RST_STREAM, and Node's
      // HTTP/2 server closes a session whose client resets streams at a high rate (its rapid-reset guard), which
      // fails every call on the channel. So the part ends at the peer's end message, and the call's status, which
      // follows it, is read in the background.
      const messages = (call as AsyncIterable<QueryChunkMessage>)[Symbol.asyncIterator]();
      for (let next = await messages.next(); !next.done; next = await messages.next()) {
        const message = next.value;
        if (message.records) {
          const chunk = checkedChunk(message.records.recordsJson, message.records.count);
          if (typeof chunk === 'string') {
            call.cancel();
            return failedAnswer(chunk);
          }
          chunks++;
          let resumed = false;
          try {
            yield chunk;
            resumed = true;
          } finally {
            // The reader stopped early: a call still running is cancelled; one that has ended is read to its status.
            if (!resumed && message.end) void drainRest(messages);
            else if (!resumed) call.cancel();
          }
        }
        if (message.end) {
          void drainRest(messages);
          return this.endOf(message.end);
        }
      }
      return failedAnswer('the peer ended its part without saying whether it was complete');
    } catch (error) {
      if (chunks === 0 && isServiceError(error) && error.code === grpc.status.UNIMPLEMENTED) {
        this.legacy.add(grpcEndpoint);
        return yield* this.legacyPart(grpcEndpoint, query, deadline, legacyJson);
      }
      return this.failure(grpcEndpoint, error);
    }
  }

  private endOf({ failure, paged, positions, complete, replica }: NonNullable<QueryChunkMessage['end']>): PartEnd {
    if (failure) return this.peerFailure(failure);
    const answered = replica ? { replica: { standby: replica.standby, lag: Number(replica.lag) } } : {};
    if (!paged) return { ok: true, ...answered };
    const read = (positions ?? []).map(positionFromMessage);
    return { ok: true, paging: { positions: read, complete: complete === true }, ...answered };
  }

  private async *legacyPart(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream {
    const answer = await this.query(grpcEndpoint, { applicationId: query.applicationId, store: query.store, queryJson: legacyJson(), timeoutMs: query.timeoutMs }, deadline);
    if (!answer.ok) return answer;
    if (answer.records.length > 0) yield { json: JSON.stringify(answer.records).slice(1, -1), count: answer.records.length };
    return { ok: true };
  }

  /** The store's type and key serde as the peer knows them; undefined when it has no queryable partition of it. */
  async describeStore(grpcEndpoint: string, applicationId: string, store: string, deadline: number): Promise<StoreDescription | undefined> {
    const reply = await this.guarded(grpcEndpoint, () => this.call(grpcEndpoint, peerService().DescribeStore, { applicationId, store }, deadline));
    return reply.available ? { type: reply.type, keySerde: reply.keySerde } : undefined;
  }

  /** Rejects when the peer does not answer by the deadline. */
  async ping(grpcEndpoint: string, deadline: number): Promise<NodeInfo> {
    const reply = await this.guarded(grpcEndpoint, () => this.call(grpcEndpoint, peerService().Ping, {}, deadline));
    return { server: reply.server, applications: [...reply.applications] };
  }

  /**
   * The peer's own timeline of an application. Never rejects: a peer that is down, too slow, of the previous version
   * (UNIMPLEMENTED) or answers what is not a timeline gives a failure that says so.
   */
  async timeline(grpcEndpoint: string, applicationId: string, deadline: number): Promise<PeerTimeline> {
    let reply;
    try {
      reply = await this.call(grpcEndpoint, peerService().Timeline, { applicationId }, deadline);
    } catch (error) {
      if (isServiceError(error) && error.code === grpc.status.UNIMPLEMENTED) {
        return failedAnswer('the node runs an earlier version of Sluice, which does not tell its timeline to other nodes', 'NOT_AVAILABLE');
      }
      const failure = this.failure(grpcEndpoint, error);
      // The classification speaks of a query's timeout, which the timeline has not.
      return failure.kind === 'TIMED_OUT' ? failedAnswer('no answer in time', 'TIMED_OUT') : failure;
    }
    if (reply.failure) return this.peerFailure(reply.failure);
    if (!reply.entries) return failedAnswer('the peer answered neither a timeline nor a failure');
    return checkedTimeline(reply.entries.entriesJson);
  }

  /** Closes every channel. */
  close(): void {
    this.channels.del(this.channels.keys());
    this.channels.close();
  }

  private call<Req, Res>(grpcEndpoint: string, method: grpc.MethodDefinition<Req, Res>, request: Req, deadline: number): Promise<Res> {
    const client = this.channel(grpcEndpoint);
    return new Promise((resolve, reject) => {
      withoutCallerStack(() =>
        client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, request, this.metadata.clone(), { deadline }, (error, reply) => {
          if (error) reject(error);
          else if (reply === undefined) reject(new Error(`${method.path} answered nothing`));
          else resolve(reply);
        }),
      );
    });
  }

  private channel(grpcEndpoint: string): grpc.Client {
    const cached = this.channels.get<grpc.Client>(grpcEndpoint);
    if (cached) {
      this.channels.ttl(grpcEndpoint, this.ttlSeconds);
      return cached;
    }
    const { credentials, options } = channelCredentials(this.security, grpcEndpoint);
    const client = new grpc.Client(grpcEndpoint, credentials, { ...CHANNEL_OPTIONS, ...options });
    this.channels.set(grpcEndpoint, client);
    return client;
  }

  /** Runs a call, dropping the channel when the peer could not be reached. */
  private async guarded<T>(grpcEndpoint: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isServiceError(error) && isPeerGone(error.code)) this.channels.del(grpcEndpoint);
      throw error;
    }
  }

  private peerFailure(failure: NonNullable<QueryReplyMessage['failure']>): PartEnd & { ok: false } {
    const { messages, kind, notAvailable, timedOut } = failure;
    const legacy = notAvailable ? 'NOT_AVAILABLE' : timedOut ? 'TIMED_OUT' : 'INTERNAL';
    return { ok: false, messages: messages.length > 0 ? messages : ['the peer failed without a message'], kind: kind === 'FAILURE_KIND_UNSPECIFIED' ? legacy : kind, timedOut };
  }

  private failure(grpcEndpoint: string, error: unknown): PartFailure {
    const failure = this.classify(grpcEndpoint, error);
    if (failure.kind === 'REFUSED') this.logger?.warn({ peer: grpcEndpoint, reason: failure.messages[0] }, 'a peer refused this node (peers.secret or peers.tls differ between nodes?)');
    else this.logger?.debug({ peer: grpcEndpoint, kind: failure.kind, reason: failure.messages[0] }, 'a call to a peer failed');
    return failure;
  }

  private classify(grpcEndpoint: string, error: unknown): PartFailure {
    if (!isServiceError(error)) return failedAnswer(error instanceof Error ? error.message : String(error));
    switch (error.code) {
      case grpc.status.DEADLINE_EXCEEDED:
        return failedAnswer('no answer within the query timeout (query_timeout_ms)', 'TIMED_OUT');
      case grpc.status.UNAVAILABLE:
      case grpc.status.CANCELLED:
        this.channels.del(grpcEndpoint);
        return failedAnswer(`unreachable: ${error.details}`, 'UNREACHABLE');
      case grpc.status.UNAUTHENTICATED:
      case grpc.status.PERMISSION_DENIED:
        return failedAnswer(`refused by the peer: ${error.details}`, 'REFUSED');
      default:
        return failedAnswer(error.details || error.message);
    }
  }
}

/**
 * The peer went away: refused or dropped connection (UNAVAILABLE), or a call on a reused channel cut short
 * because the peer shut down (CANCELLED; Sluice itself never cancels a call, its deadlines end as
 * DEADLINE_EXCEEDED).
 */
function isPeerGone(code: grpc.status): boolean {
  return code === grpc.status.UNAVAILABLE || code === grpc.status.CANCELLED;
}

/** Reads what is left of a call (its status) without holding up its part. */
async function drainRest(messages: AsyncIterator<QueryChunkMessage>): Promise<void> {
  try {
    while (!(await messages.next()).done);
  } catch {
    // The part already ended with the peer's own end message: a failing status after it changes nothing.
  }
}

/**
 * Runs `start` without stack traces: grpc-js captures one on every call (`new Error()`, to append to the stack of a
 * failure), about a tenth of a forwarded get's time here, for stacks that Sluice never shows (a failed call is a
 * failure part with the call's status).
 */
function withoutCallerStack<T>(start: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A peer's chunk, checked before it is spliced into an answer: it must be exactly `count` JSON values, so that a
 * broken or hostile peer cannot break the answer's JSON or escape its part. A message when it is not.
 */
function checkedChunk(json: string, count: number): RecordChunk | string {
  let values: unknown;
  try {
    values = JSON.parse(`[${json}]`);
  } catch (error) {
    return `the peer sent records that are not JSON: ${(error as Error).message}`;
  }
  if (!Array.isArray(values) || values.length !== count || count === 0) return `the peer sent a chunk of ${count} records that holds ${Array.isArray(values) ? values.length : 0}`;
  return { json, count };
}

/** Whether a peer's value has what the merge reads of an entry: a broken or hostile peer cannot break the answer. */
function isEntry(value: unknown): value is TimelineEntryJson {
  if (typeof value !== 'object' || value === null) return false;
  const { process_id: processId, id, started_at: startedAt } = value as Record<string, unknown>;
  if (typeof processId !== 'string' || typeof id !== 'number' || typeof startedAt !== 'string') return false;
  return !Number.isNaN(startedAtMs({ process_id: processId, id, started_at: startedAt }));
}

/** A peer's timeline, checked: a JSON array of entries; a failure that says why when it is not. */
function checkedTimeline(json: string): PeerTimeline {
  let entries: unknown;
  try {
    entries = JSON.parse(json);
  } catch (error) {
    return failedAnswer(`the peer answered a timeline that is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(entries)) return failedAnswer('the peer answered a timeline that is not a JSON array');
  if (!entries.every(isEntry)) return failedAnswer('the peer answered timeline entries without their node, number or start time');
  return { ok: true, entries };
}
