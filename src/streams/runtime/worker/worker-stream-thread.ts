import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { StreamsException } from '../../../errors';
import type { MemberAssignment, TopicPartition } from '../../kafka';
import type { MetricSnapshot } from '../../metrics/metrics-registry';
import type { RestoreProgress } from '../changelog-restorer';
import type { MemoryInUse, MemoryLimits } from '../memory-budget';
import type { ThreadState, TopologyEvent } from '../instance-view';
import type { AppliedAssignment, StreamThreadEvents } from '../stream-thread-context';
import { isLive, type StreamThreadHandle, type ThreadPartitionPosition, type ThreadStorePosition, type ThreadTask } from '../stream-thread-handle';
import type { SubscriptionFacts } from '../assignment/subscription-info';
import { liveWorkerThreadIds } from '../worker-thread-ids';
import { Channel } from './channel';
import { relayLine } from './log-relay';
import type { TransferredAssignment, WorkerCalls, WorkerNotes, WorkerSetup } from './protocol';
import { spawnStreamThreadWorker } from './spawn-worker';
import { rebuildError, type TransferredError } from './transferred-error';

/** What a thread in a worker needs of its instance, on the main thread. */
export interface WorkerThreadHost {
  readonly logger: Logger;
  /** Where the worker's kafkajs lines go. */
  readonly kafkaLogger: Logger;
  assign(members: { memberId: string; userData: Buffer }[], partitionCount: (topic: string) => number, topics: readonly string[]): Promise<Map<string, MemberAssignment>>;
  committedOffsets(partitions: readonly TopicPartition[]): Promise<{ tp: TopicPartition; offset: number }[]>;
  releaseStandby(taskId: string): Promise<void>;
  publishEvent(event: TopologyEvent): void;
  /** `fetch.max.bytes` of the thread's group and restore consumers, as configured. */
  readonly fetchMaxBytes: { readonly group: number; readonly restore: number };
  /** The worker ended: its leftover task locks go (the other threads may take its tasks). */
  onExit(threadId: number): void;
}

/**
 * A stream thread that runs in a worker thread (see stream-thread-worker.ts), as the instance sees it: its state,
 * tasks and metrics as the worker last reported them, and its reports and commands as calls to the worker.
 */
export class WorkerStreamThread extends EventEmitter<StreamThreadEvents> implements StreamThreadHandle {
  readonly name: string;
  readonly slot: number;
  private threadState: ThreadState = 'CREATED';
  private tasks: ThreadTask[] = [];
  private held = new Set<string>();
  private metricSnapshots: MetricSnapshot[] = [];
  private readonly worker: Worker;
  private readonly channel: Channel<WorkerCalls, WorkerNotes>;
  private readonly exited: Promise<void>;
  private closing = false;
  private failed = false;
  readonly caches = true;
  readonly produces = true;
  readonly consumers = 2;
  /** What its consumers may bring in one fetch each: the group consumer's fixed when made, the restore consumer's as last limited. */
  private readonly groupFetchBytes: number;
  private restoreFetchBytes: number;
  private readonly restoreFetchMaxBytes: number;

  constructor(setup: Omit<WorkerSetup, 'entry'>, host: WorkerThreadHost) {
    super();
    this.groupFetchBytes = Math.min(host.fetchMaxBytes.group, setup.fetchBytes ?? Number.POSITIVE_INFINITY);
    this.restoreFetchMaxBytes = host.fetchMaxBytes.restore;
    this.restoreFetchBytes = this.restoreFetchMaxBytes;
    this.name = `${setup.clientId}-StreamThread-${setup.number}`;
    this.slot = setup.index;
    this.worker = spawnStreamThreadWorker(setup);
    const threadId = this.worker.threadId;
    liveWorkerThreadIds.add(threadId);
    this.channel = new Channel<WorkerCalls, WorkerNotes>(this.worker, {
      assign: async (members: { memberId: string; userData: Uint8Array }[], counts: [string, number][], topics: string[]): Promise<[string, TransferredAssignment][]> => {
        const partitions = new Map(counts);
        const decided = await host.assign(members.map((m) => ({ memberId: m.memberId, userData: Buffer.from(m.userData) })), (topic) => partitions.get(topic) ?? 0, topics);
        return [...decided].map(([member, a]) => [member, { partitions: a.partitions, ...(a.userData ? { userData: a.userData } : {}) }]);
      },
      committedOffsets: (partitions: TopicPartition[]) => host.committedOffsets(partitions),
      releaseStandby: (taskId: string) => host.releaseStandby(taskId),
      report: (state: ThreadState, tasks: ThreadTask[], held: string[]) => {
        this.tasks = tasks;
        this.held = new Set(held);
        this.setState(state);
      },
      assignment: (applied: AppliedAssignment) => this.emit('assignment', applied),
      restore: (store: string, progress: RestoreProgress) => this.emit('restore', store, progress),
      fatal: (error: TransferredError) => this.fail(rebuildError(error)),
      groupWait: (reason: string) => this.emit('groupWait', reason),
      topologyEvent: (event: TopologyEvent) => host.publishEvent(event),
      metrics: (snapshots: MetricSnapshot[]) => (this.metricSnapshots = snapshots),
      log: (line: string) => relayLine(line, host.logger, host.kafkaLogger),
    });
    // The worker died (its setup failed, an error escaped its event loop, or it ended by itself): the thread fails.
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        liveWorkerThreadIds.delete(threadId);
        this.channel.close(new StreamsException(`the worker of stream thread ${this.name} has ended`));
        this.tasks = [];
        this.held.clear();
        host.onExit(threadId);
        this.fail(new StreamsException(`the worker of stream thread ${this.name} ended (exit code ${code})`));
        this.setState('DEAD');
        resolve();
      }),
    );
  }

  get state(): ThreadState {
    return this.threadState;
  }

  get live(): boolean {
    return isLive(this.threadState);
  }

  /** The thread's metrics as the worker last sent them (every second). */
  metrics(): readonly MetricSnapshot[] {
    return this.metricSnapshots;
  }

  prepare(): Promise<void> {
    return this.channel.call('prepare');
  }

  start(): Promise<void> {
    return this.channel.call('start');
  }

  async close(leaveGroup = false): Promise<void> {
    if (this.threadState === 'DEAD') return;
    this.closing = true;
    this.setState('PENDING_SHUTDOWN');
    try {
      await this.channel.call('close', leaveGroup);
    } finally {
      // The thread closed its clients and stores: nothing is left in the worker to finish.
      await this.worker.terminate();
      await this.exited;
    }
  }

  subscribeTo(topics: string[]): Promise<void> {
    return this.channel.call('subscribeTo', topics);
  }

  requestRejoin(): void {
    this.channel.note('requestRejoin');
  }

  resizeCache(maxBytes: number): void {
    this.channel.note('resizeCache', maxBytes);
  }

  limitMemory(limits: MemoryLimits): void {
    this.restoreFetchBytes = Math.min(this.restoreFetchMaxBytes, limits.fetchBytes);
    this.channel.note('limitMemory', limits);
  }

  /** As the worker's metrics last told it: its record cache's size and what its producing holds. */
  memoryInUse(): MemoryInUse {
    const value = (name: string): number => Number(this.metricSnapshots.find((m) => m.name === name)?.value ?? 0);
    return {
      cacheBytes: value('cache-size-bytes'),
      produceBufferBytes: Math.max(0, value('buffer-total-bytes') - value('buffer-available-bytes')),
      fetchBytes: this.groupFetchBytes + this.restoreFetchBytes,
    };
  }

  sendShutdownRequest(): void {
    this.channel.note('sendShutdownRequest');
  }

  /** What every subscription of the thread says of the process, since it changed. */
  updateFacts(facts: SubscriptionFacts): void {
    this.channel.note('facts', facts);
  }

  updatePartitionCounts(counts: ReadonlyMap<string, number>): void {
    this.channel.note('partitionCounts', [...counts]);
  }

  activeTasks(): ThreadTask[] {
    return this.tasks;
  }

  holds(taskId: string): boolean {
    return this.held.has(taskId);
  }

  async positions(): Promise<ThreadPartitionPosition[]> {
    // An ended worker's channel is closed: the call fails at once.
    return this.channel.call('positions').catch(() => []);
  }

  async storePositions(): Promise<ThreadStorePosition[]> {
    return this.channel.call('storePositions').catch(() => []);
  }

  /** Runs a ThreadStoreReader in the worker (see WorkerStorePartitions.run); returning early ends it there. */
  async *read(module: string, exportName: string, args: readonly unknown[]): AsyncGenerator<unknown, unknown, undefined> {
    const id = await this.channel.call('openReader', module, exportName, [...args]);
    let finished = false;
    try {
      for (;;) {
        const next = await this.channel.call('pullReader', id);
        if (next.done) {
          finished = true;
          return next.value;
        }
        yield next.value;
      }
    } finally {
      if (!finished) void this.channel.call('closeReader', id).catch(() => undefined);
    }
  }

  /** Tells the instance once that the thread failed; a worker that ends while the thread closes has not failed. */
  private fail(error: Error): void {
    if (this.failed || this.closing) return;
    this.failed = true;
    this.emit('fatal', error);
  }

  private setState(state: ThreadState): void {
    if (this.threadState === state || this.threadState === 'DEAD') return;
    if (this.closing && state !== 'PENDING_SHUTDOWN' && state !== 'DEAD') return;
    this.threadState = state;
    this.emit('state', state);
  }
}
