/**
 * What the HTTP layer needs from the process that hosts the instances. The host implements these; the server
 * only reads and asks, so that it never depends on the host layer above it.
 */

import type { InstanceView, RebalanceEvent, RestoreEvent, ThreadEvent, TopologyEvent } from '../streams/runtime/instance-view';
import type { TimelineEntry } from '../streams/runtime/rebalance-timeline';
import type { MemoryPressure } from '../streams/runtime/memory-budget';
import type { ConfigValue } from '../streams/runtime/streams-config';
import type { StreamsState } from '../streams/runtime/streams-state';
import type { TopologyDescription } from '../streams/topology/description';

/** Kafka Streams' states, plus `STOPPED` once a stop through the API has completed. */
export type InstanceState = StreamsState | 'STOPPED';

export interface InstanceStateChange {
  state: InstanceState;
  previous: InstanceState;
  /** Epoch ms. */
  since: number;
  /** Why the instance stays in this state, when it says. */
  reason?: string;
}

/** Events of a local instance; they outlive restarts (each new runtime's events are forwarded). */
export interface LocalInstanceEvents {
  state: InstanceStateChange;
  rebalance: RebalanceEvent;
  restore: RestoreEvent;
  topologyEvent: TopologyEvent;
  thread: ThreadEvent;
  timeline: TimelineEntry;
  memory: MemoryPressure;
}

/** A registered topology version, as `GET /api/v1/topologies` lists it. */
export interface TopologyInfo {
  name: string;
  version: string;
  description: string;
  aliases: string[];
}

/** One application instance of this process, whatever runtime currently backs it. */
export interface LocalInstance {
  readonly id: string;
  readonly topology: TopologyInfo;
  /** Given at deployment; null when none was. */
  readonly description: string | null;
  /** Epoch ms the instance was first created in this process. */
  readonly createdAt: number;
  readonly state: InstanceState;
  /** Epoch ms of the last state change. */
  readonly stateSince: number;
  /** The latest transition, for the first `state` event of a new subscriber. */
  readonly lastChange: InstanceStateChange;
  /** Whether the current runtime reached RUNNING since it was started (readiness). */
  readonly reachedRunning: boolean;
  /** The last fatal error of the current runtime, or of its start. */
  readonly lastError: Error | undefined;
  /** The effective configuration (defaults included), as the runtime was given it. */
  readonly config: Readonly<Record<string, ConfigValue>>;
  /** The current runtime; undefined once stopped. */
  readonly view: InstanceView | undefined;
  describe(): TopologyDescription;
  /** The event types the topology declared, beside the built-in ones. */
  eventTypes(): readonly string[];
  /** Registers a listener; the returned function removes it. */
  on<E extends keyof LocalInstanceEvents>(event: E, listener: (payload: LocalInstanceEvents[E]) => void): () => void;
}

export interface DeployRequest {
  /** Topology name or alias. */
  type: string;
  /** A version, or `latest` (also when omitted). */
  version?: string;
  name?: string;
  description?: string;
  config?: Record<string, ConfigValue>;
}

export interface StopOptions {
  cleanup: boolean;
  /** Static members leave the group once stopped, so that their partitions move at once (Kafka Streams' leaveGroup). */
  leaveGroup: boolean;
}

/** The instances of this process and the actions on them; unknown ids and forbidden actions throw catalogue errors. */
export interface InstanceRegistry {
  list(): LocalInstance[];
  get(id: string): LocalInstance | undefined;
  /** Begins a restart and answers at once. */
  restart(id: string): LocalInstance;
  /** Resolves once the instance is stopped (and cleaned up, when asked). */
  stop(id: string, options: StopOptions): Promise<LocalInstance>;
  /** Stops with cleanup and forgets the instance. */
  remove(id: string): Promise<void>;
  /** Starts a new local instance of a registered topology; answers its application id. */
  deploy(request: DeployRequest): Promise<string>;
  topologies(): TopologyInfo[];
}

/** What the node as a whole is configured with. */
export interface NodeContext {
  /** The node's streams configuration, which every instance starts from (secrets included: hide them to show it). */
  streamsConfig(): Readonly<Record<string, ConfigValue>>;
}

/** The interactive-query engine behind `POST /api/v1/applications/{id}/stores/{name}` and `.../records`. */
export interface StoreQueries {
  /**
   * Runs a query. Rejects with the catalogue's errors (unknown application or store, invalid query, no running
   * instance) before any of the answer exists; resolves with its body (the full result, or with `recordsOnly` the
   * records only) as JSON text in chunks, read as they are pulled. A body not read to its end must be returned.
   */
  stream(applicationId: string, store: string, body: unknown, options: { recordsOnly: boolean }): Promise<StoreQueryAnswer>;
}

/** A body read at once (`text`), or chunks that may be large (`streamed`: sent as they are read) or not. */
export type StoreQueryAnswer = { streamed: false; text: string } | { streamed: boolean; body: AsyncGenerator<string, void, undefined> };

/** The body of a store query (compatibility file, section 5), as the answers of the query engine are shaped. */
export interface StoreQueryResult {
  took: number;
  timeout: boolean;
  server: string;
  status: string;
  result: {
    store?: string;
    type?: string;
    total: number;
    success: { server: string; remote: boolean; total: number; records: unknown[] }[];
    failure: { server: string; remote: boolean; errors: { message: string }[] }[];
    error?: string;
  };
}
