import type { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { InvalidQuery, SluiceError, UnknownApplication, type ErrorKind } from '../errors';
import { failedAnswer, failureOf, type PartEnd, type PartFailure, type PartStream } from '../query/parts';
import type { PeerAnswer, PeerQuery, PeerQueryHandler } from '../query/peers';
import { secretInterceptor, serverCredentials, type PeerSecurity } from './peer-security';
import { peerServerSpan } from './peer-spans';
import {
  peerService,
  positionFromMessage,
  type DescribeStoreReplyMessage,
  type DescribeStoreRequestMessage,
  type MultiplexedChunkMessage,
  type MultiplexedQueryMessage,
  type PingReplyMessage,
  type PeerQueryMessage,
  type PingRequestMessage,
  type QueryChunkMessage,
  type QueryReplyMessage,
  type QueryRequestMessage,
  type TimelineReplyMessage,
  type TimelineRequestMessage,
} from './peer-service';

/** A node as Ping shows it. */
export interface NodeInfo {
  /** `application.server` of the node. */
  server: string;
  applications: string[];
}

export interface PeerServerOptions {
  /** Address to listen on, e.g. `0.0.0.0`, `127.0.0.1`, `::`. */
  host: string;
  /** Port to listen on; 0 takes a free one (see `PeerServer.port`). */
  port: number;
  handler: PeerQueryHandler;
  /** What Ping answers; by default the listening address and no application. */
  node?: () => NodeInfo;
  /**
   * What Timeline answers: the node's own timeline of an application, its entries in the HTTP API's JSON shapes.
   * Throws the catalogue's errors (an unknown application). None: the node knows no application.
   */
  timeline?: (applicationId: string) => readonly unknown[];
  /** TLS and the cluster secret; none: plaintext, and any caller is answered. */
  security?: PeerSecurity;
  /** Told of callers refused for a missing or wrong cluster secret. */
  logger?: Logger;
}

export interface PeerServer {
  readonly port: number;
  /** Stops accepting calls, lets running ones finish for up to `graceMs`, then cuts them. */
  close(graceMs?: number): Promise<void>;
}

/** Used when a call carries neither a timeout nor a deadline (only a misbehaving client sends that). */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Answers of `all` on large stores exceed gRPC's default 4 MiB. */
export const UNLIMITED_MESSAGES: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
};

/**
 * The status of a call whose handler failed, by its error's kind; the other kinds are INTERNAL, since callers read
 * DEADLINE_EXCEEDED, UNIMPLEMENTED, UNAUTHENTICATED and PERMISSION_DENIED as what became of the call, not of its query.
 * A node that is up but not ready answers FAILED_PRECONDITION, not UNAVAILABLE: callers read UNAVAILABLE as "the node
 * is gone" and drop its channel.
 */
const GRPC_STATUS: Readonly<Partial<Record<ErrorKind, grpc.status>>> = {
  invalid: grpc.status.INVALID_ARGUMENT,
  'not-found': grpc.status.NOT_FOUND,
  unavailable: grpc.status.FAILED_PRECONDITION,
};

function grpcStatusOf(error: unknown): grpc.status {
  return (error instanceof SluiceError ? GRPC_STATUS[error.kind] : undefined) ?? grpc.status.INTERNAL;
}

function serviceError(error: unknown): grpc.ServerErrorResponse {
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(message), { code: grpcStatusOf(error), details: message });
}

/** The earlier of the request's own timeout and the call's deadline. */
function deadlineOf(call: { getDeadline(): grpc.Deadline; request: { timeoutMs: number } }): number {
  const callDeadline = call.getDeadline();
  const fromCall = callDeadline instanceof Date ? callDeadline.getTime() : callDeadline;
  const fromRequest = call.request.timeoutMs > 0 ? Date.now() + call.request.timeoutMs : Infinity;
  const deadline = Math.min(fromCall, fromRequest);
  return Number.isFinite(deadline) ? deadline : Date.now() + DEFAULT_TIMEOUT_MS;
}

function failureMessage(failure: PartFailure): NonNullable<QueryReplyMessage['failure']> {
  const kind = failure.kind === 'UNREACHABLE' || failure.kind === 'REFUSED' ? 'INTERNAL' : failure.kind;
  return { messages: failure.messages, kind, notAvailable: kind === 'NOT_AVAILABLE', timedOut: failure.timedOut };
}

function toReply(answer: PeerAnswer): QueryReplyMessage {
  if (answer.ok) return { records: { recordsJson: JSON.stringify(answer.records) } };
  return { failure: failureMessage(answer) };
}

function endMessage(end: PartEnd): NonNullable<QueryChunkMessage['end']> {
  if (!end.ok) return { failure: failureMessage(end) };
  const replica = end.replica === undefined ? {} : { replica: end.replica };
  if (end.paging === undefined) return replica;
  const positions = end.paging.positions.map((position) => ({ ...position, afterKey: position.afterKey ?? Buffer.alloc(0) }));
  return { paged: true, positions, complete: end.paging.complete, ...replica };
}

/** Where a part's messages go: a call of its own (StreamQuery), or its id on a multiplexed call. */
interface ChunkSink {
  /** False when the call's buffer is full: wait for `drained` before the next. */
  write(message: QueryChunkMessage): boolean;
  /** Resolves when the call has drained or is cancelled. */
  drained(): Promise<void>;
  /** The caller went away, or the query's time ran out: nothing more is written. */
  cancelled(): boolean;
  /** After the last message. */
  end(): void;
}

/**
 * Of a call that answers parts: whether its caller cancelled it, and a wait for it to drain (or be cancelled). One
 * wait, with one pair of listeners, is shared by all who wait at the same time, and it never rejects: a multiplexed
 * call lives long and waits often, and must not gather listeners.
 */
function flowOf(call: grpc.ServerWritableStream<PeerQueryMessage, QueryChunkMessage> | grpc.ServerDuplexStream<MultiplexedQueryMessage, MultiplexedChunkMessage>): Pick<ChunkSink, 'cancelled' | 'drained'> {
  // Either kind of call, as the event emitter it is.
  const events: EventEmitter = call;
  let cancelled = false;
  let wait: Promise<void> | undefined;
  events.once('cancelled', () => (cancelled = true));
  const drained = (): Promise<void> =>
    cancelled
      ? Promise.resolve()
      : (wait ??= new Promise<void>((resolve) => {
          const done = () => {
            events.off('drain', done);
            events.off('cancelled', done);
            wait = undefined;
            resolve();
          };
          events.on('drain', done);
          events.on('cancelled', done);
        }));
  return { cancelled: () => cancelled, drained };
}

/**
 * Writes a part's chunks, waiting for the call to drain whenever its buffer is full: the caller's flow control paces
 * the store reads. A sink cancelled (its caller went away, or the query's time ran out) ends the part, which
 * releases its store iterators.
 */
async function writePart(sink: ChunkSink, open: () => PartStream | Promise<PartStream>): Promise<void> {
  let part: PartStream;
  try {
    part = await open();
  } catch (error) {
    // The node is up: what its query layer refuses is a typed failure, not a failed call.
    sink.write({ end: { failure: failureMessage(failureOf(error)) } });
    sink.end();
    return;
  }
  try {
    // Each chunk waits for the next one to be read, so that the last travels with the end in one message.
    let held: QueryChunkMessage['records'];
    for (;;) {
      let next: IteratorResult<{ json: string; count: number }, PartEnd>;
      try {
        next = await part.next();
      } catch (error) {
        next = { done: true, value: failureOf(error) };
      }
      if (sink.cancelled()) return;
      if (next.done) {
        sink.write({ ...(held ? { records: held } : {}), end: endMessage(next.value) });
        sink.end();
        return;
      }
      if (held && !sink.write({ records: held })) await sink.drained();
      if (sink.cancelled()) return;
      held = { recordsJson: next.value.json, count: next.value.count };
    }
  } finally {
    await part.return({ ok: true });
  }
}

/** A query as the peer sent it: positions made PartitionPositions, maps and lists copied out of the message. */
function queryOf(message: PeerQueryMessage): PeerQuery {
  return { ...message, keysJson: { ...message.keysJson }, times: { ...message.times }, positions: message.positions.map(positionFromMessage) };
}

/** Queries under way at once on one multiplexed call: past it, the call's next queries are not read until one ends. */
const MAX_MULTIPLEXED_QUERIES = 1024;

/**
 * Answers the queries of a multiplexed call, each as it comes and as a part of its own, its messages under its id,
 * each within its own time (`timeoutMs`): a query whose time runs out, even while it waits for the call to drain,
 * ends there and lets its store iterators go. The call's next queries are not read while its buffer is full or
 * MAX_MULTIPLEXED_QUERIES are under way (HTTP/2 flow control then holds the caller back). Once the server is
 * closing (`finish`), new queries are answered NOT_AVAILABLE at once, so that the caller's retries follow the
 * partition elsewhere, and the call ends when its queries under way have ended. `onEnded` is told when it has.
 */
function answerMultiplexed(call: grpc.ServerDuplexStream<MultiplexedQueryMessage, MultiplexedChunkMessage>, handler: PeerQueryHandler, onEnded: () => void): { finish(): void } {
  const flow = flowOf(call);
  let underWay = 0;
  let finishing = false;
  let ended = false;
  let draining = false;
  const endIfDone = () => {
    if (!finishing || underWay > 0 || ended) return;
    ended = true;
    if (!flow.cancelled()) call.end();
    onEnded();
  };
  // Reading goes on only while the call can take answers and has room for more queries.
  const readIfRoom = () => {
    if (!draining && underWay < MAX_MULTIPLEXED_QUERIES && call.isPaused()) call.resume();
  };
  const write = (message: MultiplexedChunkMessage): boolean => {
    const room = call.write(message);
    if (!room && !draining) {
      draining = true;
      call.pause();
      void flow.drained().then(() => {
        draining = false;
        readIfRoom();
      });
    }
    return room;
  };
  const finish = () => {
    finishing = true;
    endIfDone();
  };
  call.on('end', finish);
  call.on('cancelled', () => {
    ended = true;
    onEnded();
  });
  call.on('data', ({ id, query }: MultiplexedQueryMessage) => {
    if (ended) return;
    if (finishing) {
      write({ id, chunk: { end: { failure: failureMessage(failedAnswer('the node is shutting down', 'NOT_AVAILABLE')) } } });
      return;
    }
    const deadline = Date.now() + (query?.timeoutMs > 0 ? query.timeoutMs : DEFAULT_TIMEOUT_MS);
    const late = () => Date.now() >= deadline;
    const sink: ChunkSink = {
      write: (chunk) => write({ id, chunk }),
      // The wait for the call to drain ends at the query's deadline too.
      drained: () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          void flow.drained().then(() => {
            clearTimeout(timer);
            resolve();
          });
        }),
      cancelled: () => flow.cancelled() || late(),
      end: () => undefined,
    };
    underWay++;
    if (underWay >= MAX_MULTIPLEXED_QUERIES) call.pause();
    void writePart(sink, () => {
      if (query === undefined || query === null) throw new InvalidQuery('a multiplexed query without its query');
      return handler.streamPeer(queryOf(query), deadline);
    })
      .finally(() => {
        underWay--;
        readIfRoom();
        endIfDone();
      })
      // A part whose return() throws has ended all the same: nothing is left to tell.
      .catch(() => undefined);
  });
  return { finish };
}

function formatAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Starts the node's peer service (proto/sluice.proto); resolves once it listens. */
export function startPeerServer(options: PeerServerOptions): Promise<PeerServer> {
  const security = options.security ?? {};
  const server = new grpc.Server({
    ...UNLIMITED_MESSAGES,
    interceptors:
      security.secret === undefined
        ? []
        : [secretInterceptor(security.secret, (peer) => options.logger?.warn({ peer }, 'refused a peer call without the cluster secret (peers.secret differs between nodes?)'))],
  });
  const { handler } = options;
  let boundPort = options.port;
  /** Multiplexed calls under way, to be ended when the server closes: they would keep it open until forced. */
  const multiplexed = new Set<{ finish(): void }>();
  let closing = false;
  const implementation: grpc.UntypedServiceImplementation = {
    Query(call: grpc.ServerUnaryCall<QueryRequestMessage, QueryReplyMessage>, callback: grpc.sendUnaryData<QueryReplyMessage>) {
      const { applicationId, store, queryJson, timeoutMs } = call.request;
      handler.answerPeer({ applicationId, store, queryJson, timeoutMs }, deadlineOf(call)).then(
        (answer) => callback(null, toReply(answer)),
        // The node is up: what its query layer refuses is a typed failure, not a failed call.
        (error: unknown) => callback(null, toReply(failureOf(error))),
      );
    },
    StreamQuery(call: grpc.ServerWritableStream<PeerQueryMessage, QueryChunkMessage>) {
      const sink: ChunkSink = { ...flowOf(call), write: (message) => call.write(message), end: () => call.end() };
      const query = queryOf(call.request);
      const traced = peerServerSpan('StreamQuery', call.metadata, query);
      if (traced === undefined) {
        void writePart(sink, () => handler.streamPeer(query, deadlineOf(call))).catch(() => undefined);
        return;
      }
      // The store reads' spans are made as the part opens, under the call's.
      void writePart(sink, () => context.with(traced.context, () => handler.streamPeer(query, deadlineOf(call))))
        .catch(() => undefined)
        .finally(() => traced.span.end());
    },
    Multiplexed(call: grpc.ServerDuplexStream<MultiplexedQueryMessage, MultiplexedChunkMessage>) {
      const answering = answerMultiplexed(call, handler, () => multiplexed.delete(answering));
      multiplexed.add(answering);
      // A call that reached its handler after close() began is finished at once too.
      if (closing) answering.finish();
    },
    DescribeStore(
      call: grpc.ServerUnaryCall<DescribeStoreRequestMessage, DescribeStoreReplyMessage>,
      callback: grpc.sendUnaryData<DescribeStoreReplyMessage>,
    ) {
      try {
        const description = handler.describeStore(call.request.applicationId, call.request.store);
        callback(null, description ? { available: true, ...description } : { available: false, type: '', keySerde: '' });
      } catch (error) {
        callback(serviceError(error));
      }
    },
    Timeline(call: grpc.ServerUnaryCall<TimelineRequestMessage, TimelineReplyMessage>, callback: grpc.sendUnaryData<TimelineReplyMessage>) {
      const { applicationId } = call.request;
      try {
        if (options.timeline === undefined) throw new UnknownApplication(applicationId);
        callback(null, { entries: { entriesJson: JSON.stringify(options.timeline(applicationId)) } });
      } catch (error) {
        // The node is up: an application it does not run is a typed failure, not a failed call.
        callback(null, { failure: failureMessage(failureOf(error)) });
      }
    },
    Ping(_call: grpc.ServerUnaryCall<PingRequestMessage, PingReplyMessage>, callback: grpc.sendUnaryData<PingReplyMessage>) {
      try {
        callback(null, options.node ? options.node() : { server: formatAddress(options.host, boundPort), applications: [] });
      } catch (error) {
        callback(serviceError(error));
      }
    },
  };
  server.addService(peerService() as unknown as grpc.ServiceDefinition, implementation);
  return new Promise((resolve, reject) => {
    server.bindAsync(formatAddress(options.host, options.port), serverCredentials(security), (error, port) => {
      if (error) {
        server.forceShutdown();
        reject(new Error(`The peer service cannot listen on ${formatAddress(options.host, options.port)}: ${error.message}`, { cause: error }));
        return;
      }
      boundPort = port;
      resolve({
        port,
        close: (graceMs = 2000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => {
              server.forceShutdown();
              done();
            }, graceMs);
            closing = true;
            for (const answering of multiplexed) answering.finish();
            server.tryShutdown(() => {
              clearTimeout(force);
              done();
            });
          }),
      });
    });
  });
}
