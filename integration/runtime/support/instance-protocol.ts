/** What a test and an instance child process (instance-child.ts) say to each other over IPC. */
import type { RebalanceEvent, RestoreEvent } from '../../../src/streams/runtime/instance-view';
import type { StateChange } from '../../../src/streams/runtime/streams-state';

export interface ChildSpec {
  /** For logs. */
  name: string;
  input: string;
  output: string;
  /** The instance's Kafka Streams configuration. */
  config: Record<string, string | number | boolean>;
  logLevel: string;
  /** `table`: the input read into the table store `values` (string to string), output unused; default: the word count. */
  topology?: 'table';
  /** In place of the word count, a pass-through that throws on this line (a processing failure, for the uncaught-exception handler). */
  failOnLine?: string;
  /** `worker`: only the stream threads in workers throw on it. */
  failIn?: 'any' | 'worker';
}

/** The store of the `table` topology. */
export const TABLE_STORE = 'values';

export type ChildRequest =
  | { id: number; op: 'metadata' }
  | { id: number; op: 'keyOwners'; store: string; keys: string[] }
  | { id: number; op: 'storeValues' }
  | { id: number; op: 'standbyValues' }
  | { id: number; op: 'threads' }
  | { id: number; op: 'state' }
  | { id: number; op: 'close'; timeoutMs: number };

export type ChildEvent =
  | { kind: 'event'; event: 'state'; payload: StateChange }
  | { kind: 'event'; event: 'rebalance'; payload: RebalanceEvent }
  | { kind: 'event'; event: 'restore'; payload: RestoreEvent }
  | { kind: 'event'; event: 'error'; payload: { message: string } };

export interface ChildReply {
  kind: 'reply';
  id: number;
  result?: unknown;
  error?: string;
}

/** A key's partition and its owner's `application.server` as one node's host map says. */
export interface KeyOwner {
  key: string;
  partition: number;
  owner: string | null;
}
