/** The store query of the API (compatibility file, section 5): the request once checked, and the response. */
import type { StoreType } from '../streams/state/store';
import type { PartitionPosition } from './parts';

export type ClauseName =
  | 'get'
  | 'range'
  | 'all'
  | 'count'
  | 'prefix_scan'
  | 'reverse_range'
  | 'reverse_all'
  | 'fetch'
  | 'fetch_key_range'
  | 'fetch_time_range'
  | 'fetch_all';

export type KeyParam = 'key' | 'key_from' | 'key_to' | 'prefix';
export type TimeParam = 'time' | 'time_from' | 'time_to' | 'as_of';
export type ParamName = KeyParam | TimeParam;

/** `set_options`, with the defaults filled in. */
export interface QueryOptions {
  retries: number;
  retryBackoffMs: number;
  queryTimeoutMs: number;
  remoteAccessAllowed: boolean;
  /** -1: no limit. */
  limit: number;
  /** The continuation token of the page before, as the client handed it back. */
  next: string | undefined;
  /**
   * A keyed query may be answered by a standby replica when the active is unreachable or restoring (Kafka
   * Streams' stale stores, KIP-535); success parts then say which replica answered and how far behind it is.
   */
  allowStale: boolean;
  /** With allowStale: the most records a standby may be behind its changelog to answer; -1: no bound. */
  maxLag: number;
}

/**
 * A request whose shape is valid: the type and clause are known and go together, every parameter is there, times
 * are epoch ms. Keys are still JSON: they are decoded once the store's key serde is known.
 */
export interface QueryRequest {
  /** The type the request names; a plain type may query the timestamped store of the same kind. */
  type: StoreType;
  clause: ClauseName;
  keys: Partial<Record<KeyParam, unknown>>;
  times: Partial<Record<TimeParam, number>>;
  options: QueryOptions;
  /** Where a paged query resumes, per store partition: from `options.next`, or from the peer that forwarded it. */
  positions: PartitionPosition[];
  /**
   * A stale-allowed query over every partition, asked of this node in place of one that did not answer: the
   * partitions it reads, each from its active replica if queryable, else from its standby. Undefined: its own actives.
   */
  standInPartitions?: number[];
}

export type QueryStatus = 'SUCCESS' | 'PARTIAL' | 'ERROR' | 'NO_RESULT' | 'NOT_AVAILABLE';

export interface SuccessPart {
  server: string;
  remote: boolean;
  total: number;
  records: unknown[];
  /** With allow_stale: whether a standby replica answered. */
  standby?: boolean;
  /** With allow_stale: records the replica that answered is behind its changelog (0 for an active). */
  lag?: number;
}

export interface FailurePart {
  server: string;
  remote: boolean;
  errors: { message: string }[];
}

export interface StoreQueryResponse {
  took: number;
  timeout: boolean;
  server: string;
  status: QueryStatus;
  /** Present when a paged query has more: hand it back as set_options.next for the next page. */
  next?: string;
  result: {
    store: string;
    type: string;
    total: number;
    success: SuccessPart[];
    failure: FailurePart[];
    error?: string;
  };
}
