/**
 * The query layer's side of the calls between nodes: the query a peer is asked to run, what this node asks of its
 * peers (PeerTransport) and what it answers them (PeerQueryHandler). The cluster layer carries both over gRPC
 * (proto/sluice.proto): its client is a PeerTransport, its server calls a PeerQueryHandler.
 */
import type { PartFailure, PartitionPosition, PartStream } from './parts';
import type { StoreDescription } from './schema';

/**
 * A store query as the calling node parsed and validated it (proto/sluice.proto's PeerQuery); the called node
 * checks its form again, cheaply, since it crosses the network.
 */
export interface PeerQuery {
  applicationId: string;
  store: string;
  /** The store type the request names. */
  type: string;
  clause: string;
  /** Key parameters as JSON text. */
  keysJson: Record<string, string>;
  /** Time parameters, epoch ms. */
  times: Record<string, number>;
  retries: number;
  retryBackoffMs: number;
  /** -1: no limit. */
  limit: number;
  /** What is left of the query's time, in ms. */
  timeoutMs: number;
  /** Where a paged query resumes, per store partition; partitions not listed are read from their start. */
  positions: PartitionPosition[];
  /** A keyed query may be answered from a standby replica within maxLag records (-1: any lag). */
  allowStale: boolean;
  maxLag: number;
  /** With allowStale, a query over every partition asked in place of a node that did not answer: the partitions to read. */
  standInPartitions?: number[];
}

/** A store query as nodes of the previous version send it (the unary call), to be answered from local partitions only. */
export interface PeerQueryRequest {
  applicationId: string;
  store: string;
  /** The query as the HTTP API takes it (`{"type", "query", "set_options"}`), as JSON text. */
  queryJson: string;
  /** What is left of the query's time, in ms. */
  timeoutMs: number;
}

/** One node's part of a query in one piece, as the unary call answers it: its records, or why it has none. */
export type PeerAnswer = { ok: true; records: unknown[] } | PartFailure;

/** How this node asks its peers, addressed by their gRPC endpoint (`host:port`). */
export interface PeerTransport {
  /**
   * The peer's part of a query, its chunks read as the stream is pulled; `legacyJson()` is the query for a peer of
   * the previous version. Never throws: a peer that is down, too slow, or sends what is not records ends the part
   * with a failure; returning it early lets the call go.
   */
  streamQuery(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream;
  /** The same for a keyed query, which answers a few records. */
  keyedQuery(grpcEndpoint: string, query: PeerQuery, deadline: number, legacyJson: () => string): PartStream;
  /** The store's type and key serde as the peer knows them; undefined when it has no queryable partition of it. */
  describeStore(grpcEndpoint: string, applicationId: string, store: string, deadline: number): Promise<StoreDescription | undefined>;
}

/** What this node answers its peers. */
export interface PeerQueryHandler {
  /**
   * Runs the query on the local partitions, never forwarding it; answers by `deadline` (epoch ms). Throws the
   * catalogue's errors for an unknown application or store, or no running instance.
   */
  answerPeer(request: PeerQueryRequest, deadline: number): Promise<PeerAnswer>;
  /**
   * The same, streamed. Throws the catalogue's errors before the first chunk (unknown application or store, an
   * invalid query, no running instance); after that, failures end the stream.
   */
  streamPeer(query: PeerQuery, deadline: number): PartStream | Promise<PartStream>;
  /** Undefined when the node has no queryable partition of the store right now. */
  describeStore(applicationId: string, store: string): StoreDescription | undefined;
}
