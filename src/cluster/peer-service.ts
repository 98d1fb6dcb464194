/**
 * The peer service of proto/sluice.proto, loaded at run time with @grpc/proto-loader, and the shapes its messages
 * take in JavaScript (camelCase fields, defaults filled in, `outcome` naming the field its oneof holds).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MethodDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { PartitionPosition } from '../query/parts';

export interface QueryRequestMessage {
  applicationId: string;
  store: string;
  queryJson: string;
  timeoutMs: number;
}

/** proto/sluice.proto's FailureKind, by name. */
export type WireFailureKind = 'FAILURE_KIND_UNSPECIFIED' | 'NOT_AVAILABLE' | 'UNKNOWN_STORE' | 'INVALID_QUERY' | 'TIMED_OUT' | 'INTERNAL';

export interface QueryReplyMessage {
  outcome?: 'records' | 'failure';
  records?: { recordsJson: string };
  failure?: { messages: string[]; notAvailable: boolean; timedOut: boolean; kind: WireFailureKind };
}

export interface PeerQueryMessage {
  applicationId: string;
  store: string;
  type: string;
  clause: string;
  keysJson: Record<string, string>;
  times: Record<string, number>;
  retries: number;
  retryBackoffMs: number;
  limit: number;
  timeoutMs: number;
  positions: PartitionPositionMessage[];
  allowStale: boolean;
  maxLag: number;
  /** Received as [] when not sent. */
  standInPartitions?: number[];
}

export interface PartitionPositionMessage {
  partition: number;
  done: boolean;
  /** Absent when sent for a done partition; received as an empty buffer then. */
  afterKey?: Buffer;
  /** Likewise, and absent (empty) for a key-value position. */
  afterEntry?: Buffer;
}

/** A position as a peer sent it: absent bytes arrive empty, and an entry position is never empty. */
export function positionFromMessage({ partition, done, afterKey, afterEntry }: PartitionPositionMessage): PartitionPosition {
  if (done) return { partition, done };
  return afterEntry !== undefined && afterEntry.length > 0 ? { partition, done, afterEntry } : { partition, done, afterKey };
}

export type FailureMessage = NonNullable<QueryReplyMessage['failure']>;

export interface QueryChunkMessage {
  records?: { recordsJson: string; count: number } | null;
  end?: { failure?: FailureMessage | null; paged?: boolean; positions?: PartitionPositionMessage[]; complete?: boolean; replica?: { standby: boolean; lag: number } | null };
}

export interface MultiplexedQueryMessage {
  id: number;
  query: PeerQueryMessage;
}

export interface MultiplexedChunkMessage {
  id: number;
  chunk: QueryChunkMessage;
}

export interface DescribeStoreRequestMessage {
  applicationId: string;
  store: string;
}

export interface DescribeStoreReplyMessage {
  available: boolean;
  type: string;
  keySerde: string;
}

export type PingRequestMessage = Record<string, never>;

export interface PingReplyMessage {
  server: string;
  applications: string[];
}

export interface TimelineRequestMessage {
  applicationId: string;
}

export interface TimelineReplyMessage {
  outcome?: 'entries' | 'failure';
  entries?: { entriesJson: string };
  failure?: FailureMessage;
}

export interface PeerServiceDefinition {
  Query: MethodDefinition<QueryRequestMessage, QueryReplyMessage>;
  StreamQuery: MethodDefinition<PeerQueryMessage, QueryChunkMessage>;
  Multiplexed: MethodDefinition<MultiplexedQueryMessage, MultiplexedChunkMessage>;
  DescribeStore: MethodDefinition<DescribeStoreRequestMessage, DescribeStoreReplyMessage>;
  Ping: MethodDefinition<PingRequestMessage, PingReplyMessage>;
  Timeline: MethodDefinition<TimelineRequestMessage, TimelineReplyMessage>;
}

const SERVICE = 'sluice.peer.v1.PeerService';

/**
 * proto/ sits at the repository root: two levels above this file when run from the sources (ts-jest, ts-node),
 * three when run from the build (`dist/src/cluster`).
 */
function protoFile(): string {
  const candidates = [path.resolve(__dirname, '../../proto/sluice.proto'), path.resolve(__dirname, '../../../proto/sluice.proto')];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (found === undefined) throw new Error(`proto/sluice.proto not found; looked at ${candidates.join(', ')}`);
  return found;
}

let loaded: PeerServiceDefinition | undefined;

/** The service definition, loaded once per process. */
export function peerService(): PeerServiceDefinition {
  if (loaded === undefined) {
    const definition = protoLoader.loadSync(protoFile(), { keepCase: false, defaults: true, oneofs: true, enums: String, longs: Number });
    loaded = definition[SERVICE] as unknown as PeerServiceDefinition;
  }
  return loaded;
}
