/** What the main thread and a stream thread's worker tell and ask each other. */
import type { TopicPartition } from '../../kafka';
import type { MetricSnapshot } from '../../metrics/metrics-registry';
import type { RestoreProgress } from '../changelog-restorer';
import type { ThreadState, TopologyEvent } from '../instance-view';
import type { MemoryLimits } from '../memory-budget';
import type { AppliedAssignment } from '../stream-thread-context';
import type { ThreadPartitionPosition, ThreadStorePosition, ThreadTask } from '../stream-thread-handle';
import type { SubscriptionFacts } from '../assignment/subscription-info';
import type { TopologySource } from './topology-source';
import type { TransferredError } from './transferred-error';
import type { WorkerTracing } from './worker-tracing';

/** What a worker starts from (its `workerData`). */
export interface WorkerSetup {
  readonly topology: TopologySource;
  /** The instance's configuration as given: the worker parses it again (handlers it names, serdes, stores). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly clientId: string;
  readonly index: number;
  readonly number: number;
  /** The thread's share of `statestore.cache.max.bytes` at its start. */
  readonly cacheBytes: number;
  /** The memory budget's share for its group consumer (StreamThreadContext.fetchBytes). */
  readonly fetchBytes?: number;
  readonly logLevel: string;
  /** The level of its kafkajs lines (log.components.kafka). */
  readonly kafkaLogLevel: string;
  readonly partitionCounts: readonly (readonly [string, number])[];
  readonly facts: SubscriptionFacts;
  /** Whether the node has standby tasks, which a task is taken from before it becomes active here. */
  readonly standbys: boolean;
  /** The run of the process that task directory locks name (StateDirectory.processRun). */
  readonly processRun: string;
  /** Where the worker module is (a TypeScript source is compiled as it loads). */
  readonly entry: string;
  /** Its V8 heap's limit (the memory budget's share); none: V8's, as the process' flags set it. */
  readonly heapLimitMb?: number;
  /** How it traces its records, when the instance's are traced; none: not traced, and no SDK loaded. */
  readonly tracing?: WorkerTracing;
}

/** A member's assignment as it crosses: the userData a Uint8Array. */
export interface TransferredAssignment {
  readonly partitions: TopicPartition[];
  readonly userData?: Uint8Array;
}

/** What the main thread answers a worker. */
export interface MainCalls {
  [method: string]: (...args: never[]) => unknown;
  /** The leader's assignment, which needs what the whole instance knows. */
  assign(members: { memberId: string; userData: Uint8Array }[], partitionCounts: [string, number][], topics: string[]): Promise<[string, TransferredAssignment][]>;
  committedOffsets(partitions: TopicPartition[]): Promise<{ tp: TopicPartition; offset: number }[]>;
  /** The node's standby of the task closes before the task becomes active in the worker. */
  releaseStandby(taskId: string): Promise<void>;
}

/** What a worker tells the main thread. */
export interface MainNotes {
  [note: string]: (...args: never[]) => unknown;
  /** The thread's state, or its tasks, changed; `held` also counts tasks still closing. */
  report(state: ThreadState, tasks: ThreadTask[], held: string[]): void;
  assignment(applied: AppliedAssignment): void;
  restore(store: string, progress: RestoreProgress): void;
  fatal(error: TransferredError): void;
  groupWait(reason: string): void;
  topologyEvent(event: TopologyEvent): void;
  metrics(snapshots: MetricSnapshot[]): void;
  /** A log line (pino's JSON) for the instance's logger. */
  log(line: string): void;
}

/** What a worker answers the main thread. */
export interface WorkerCalls {
  [method: string]: (...args: never[]) => unknown;
  prepare(): Promise<void>;
  start(): Promise<void>;
  close(leaveGroup: boolean): Promise<void>;
  subscribeTo(topics: string[]): Promise<void>;
  positions(): Promise<ThreadPartitionPosition[]>;
  storePositions(): Promise<ThreadStorePosition[]>;
  /** Starts a ThreadStoreReader on the thread's stores; answers its id. */
  openReader(module: string, exportName: string, args: unknown[]): number;
  /** The reader's next value (`done`: what it returned; it is then closed). */
  pullReader(id: number): Promise<IteratorResult<unknown, unknown>>;
  /** Ends a reader before its last value. */
  closeReader(id: number): Promise<void>;
}

/** What the main thread tells a worker. */
export interface WorkerNotes {
  [note: string]: (...args: never[]) => unknown;
  facts(facts: SubscriptionFacts): void;
  partitionCounts(counts: [string, number][]): void;
  resizeCache(maxBytes: number): void;
  limitMemory(limits: MemoryLimits): void;
  requestRejoin(): void;
  sendShutdownRequest(): void;
}
