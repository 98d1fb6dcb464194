/**
 * A stream thread's membership of a streams group (KIP-1071, `group.protocol=streams`): it joins with the topology,
 * heartbeats at the interval the coordinator asks, applies the active tasks the coordinator assigns through the
 * thread's task manager as a classic group's assignment is applied, reports them as owned, and leaves with epoch -1.
 * There is no kafkajs consumer: the thread's input partitions are read by a changelog reader handing out batches as
 * a consumer's (the reader that restores stores, which has no group), from the committed offsets, and offsets are
 * committed with the member's epoch (OffsetCommit v9).
 */
import { randomUUID } from 'node:crypto';
import { ConfigException, StreamsException, StreamsMemberFenced } from '../../errors';
import {
  ChangelogReader,
  createProducer,
  EARLIEST,
  isTransientKafkaError,
  JOIN_EPOCH,
  type KafkaClients,
  LATEST,
  LEAVE_EPOCH,
  OffsetOutOfRange,
  type ReadPosition,
  StreamsGroupHeartbeats,
  type StreamsEndpointPartitions,
  type StreamsGroupHeartbeatResponse,
  StreamsGroupStatusCode,
  type StreamsTaskIds,
  type StreamsTopology,
  type TopicPartition,
  TopicPartitionMap,
} from '../kafka';
import { parseEndpoint, type StreamsConfig } from './streams-config';
import { describeStreamsTopology } from './streams-group-topology';
import { internalTopicOptions } from './internal-topic-manager';
import type { ConsumerHandlers, GroupHooks, ThreadBatch, ThreadClientsFactory, ThreadConsumer } from './thread-clients';
import { taskIdToString } from './task-id';
import type { TopologyMetadata } from './topology-metadata';

/** Kafka Streams sends its main consumer's max.poll.interval.ms (default 5 minutes) as the rebalance timeout. */
const REBALANCE_TIMEOUT_MS = 300_000;
/**
 * After a join or a change of its tasks, how long and how often a member heartbeats: the coordinator hands a task
 * over only once its previous owner reported it revoked, and the next owner learns it at its next heartbeat, not up
 * to streams.heartbeat.interval.ms (5 s) later. The coordinator takes heartbeats more often than its interval.
 */
const EAGER_HEARTBEAT_WINDOW_MS = 10_000;
const EAGER_HEARTBEAT_INTERVAL_MS = 200;
/** Before the coordinator has said its interval. */
const FIRST_HEARTBEAT_INTERVAL_MS = 1_000;
/** How long the fetch loop waits when it has no partition to read, or after a transient failure. */
const IDLE_MS = 100;

/** What a streams group's member needs of its instance beside its thread's hooks. */
export interface StreamsMemberParts {
  readonly config: StreamsConfig;
  readonly metadata: TopologyMetadata;
  readonly partitionCounts: ReadonlyMap<string, number>;
  readonly processId: string;
  /** The group's committed offset (the next record to read; -1: none) of each of these partitions. */
  readonly committedOffsets: (partitions: readonly TopicPartition[]) => Promise<{ tp: TopicPartition; offset: number }[]>;
  /** Where every member's partitions are, as the coordinator last told (the host map's source under this protocol). */
  readonly onEndpoints: (endpoints: readonly StreamsEndpointPartitions[]) => void;
  /** A member of the group asked the application to shut down (SHUTDOWN_APPLICATION): the instance fails. */
  readonly onShutdownRequested: (detail: string) => void;
}

/**
 * The thread clients under `group.protocol=streams`: the member and a producer. Exactly-once is refused: its
 * transactions would commit offsets (TxnOffsetCommit) without the member epoch the coordinator checks.
 */
export function streamsGroupThreadClients(kafka: KafkaClients, parts: StreamsMemberParts): ThreadClientsFactory {
  if (parts.config.processingGuarantee === 'exactly_once_v2') {
    throw new ConfigException(`'group.protocol' streams runs at_least_once only in this version of Sluice; 'processing.guarantee' is exactly_once_v2`);
  }
  const topology = describeStreamsTopology(parts.metadata, internalTopicOptions(parts.config));
  const { applicationId, maxPartitionFetchBytes, fetchMaxBytes, pollMaxWaitMs } = parts.config;
  return (hooks, _threadNumber, fetchBytes) => {
    const client = kafka.mainConsumer();
    const group = new StreamsGroupHeartbeats(client, applicationId);
    const reader = new ChangelogReader(client, { readCommitted: false, maxBytes: fetchMaxBytes, maxPartitionBytes: maxPartitionFetchBytes, maxWaitMs: pollMaxWaitMs, asBatches: true });
    reader.limitFetch(fetchBytes);
    return {
      consumer: new StreamsGroupMember(group, reader, parts, topology, hooks),
      producer: createProducer(kafka.producer, { idempotent: false }),
      stableOffsets: undefined,
    };
  };
}

/** What a member asks of its group's coordinator. */
export type MemberCoordinator = Pick<StreamsGroupHeartbeats, 'heartbeat' | 'commitOffsets' | 'close'>;
/** What a member reads its input with. */
export type InputReader = Pick<ChangelogReader, 'fetch' | 'close'>;

/** Kafka's UNKNOWN_SERVER_ERROR, the coordinator's own failure, as the heartbeat raised it. */
function isUnknownServerError(error: unknown): boolean {
  return (error as { cause?: { type?: unknown } } | undefined)?.cause?.type === 'UNKNOWN_SERVER_ERROR';
}

function sameTasks(a: readonly StreamsTaskIds[], b: readonly StreamsTaskIds[]): boolean {
  const key = (tasks: readonly StreamsTaskIds[]) =>
    tasks
      .flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`))
      .sort()
      .join(',');
  return key(a) === key(b);
}

/** A partition the member reads: from where, whether the thread paused it, and a count of its seeks (a fetch from before one is stale). */
interface Position {
  offset: number;
  paused: boolean;
  seeks: number;
}

export class StreamsGroupMember implements ThreadConsumer {
  /** Made by the member and kept for its lifetime (KIP-1071): a fenced member joins again under it. */
  private readonly memberId = randomUUID();
  private epoch = JOIN_EPOCH;
  private endpointEpoch = 0;
  private intervalMs = FIRST_HEARTBEAT_INTERVAL_MS;
  private eagerUntil = 0;
  private handlers: ConsumerHandlers | undefined;
  private running = false;
  /** The active tasks applied, which the heartbeats report as owned. */
  private owned: StreamsTaskIds[] = [];
  /** The instance asked the application to shut down: every heartbeat says so. */
  private shutdownRequested = false;
  private readonly positions = new TopicPartitionMap<Position>();
  /** The group's status as last told (its details), so that a change is logged once. */
  private status = '';
  /** Standby or warm-up tasks were assigned and told as not run (once per member). */
  private toldReplicas = false;
  /** The loops' waits, ended early by `wake`. */
  private readonly sleepers = new Set<() => void>();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly heartbeats: MemberCoordinator,
    private readonly reader: InputReader,
    private readonly parts: StreamsMemberParts,
    private readonly topology: StreamsTopology,
    private readonly hooks: GroupHooks,
  ) {}

  /** The coordinator assigns what the topology describes: nothing to subscribe to. */
  connect(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Joins (the first heartbeat, awaited: a broker without the protocol is refused here, the thread's start failing
   * with it), then heartbeats and fetches in two loops until disconnected. A broker not ready yet (routine at start)
   * is asked again by the heartbeat loop.
   */
  async start(handlers: ConsumerHandlers): Promise<void> {
    this.handlers = handlers;
    this.running = true;
    try {
      await this.heartbeat();
    } catch (error) {
      if (isTransientKafkaError(error)) {
        this.hooks.logger.info({ reason: (error as Error).message }, 'the streams group is not ready yet; joining again');
      } else if (isUnknownServerError(error)) {
        // Kafka 4.2.2 answers some first joins of a group just created by another member so; the next join is taken.
        this.hooks.logger.warn({ reason: (error as Error).message }, 'the coordinator failed the join; joining again once');
      } else {
        throw error;
      }
    }
    this.loops = [this.heartbeatLoop(), this.fetchLoop()];
  }

  /** The coordinator reads new topics of a source pattern itself: the member has nothing to do. */
  addTopics(): Promise<void> {
    return Promise.resolve();
  }

  /** A streams group rebalances on the coordinator's decisions alone (a probing rebalance is the coordinator's). */
  requestRejoin(): void {}

  /** The next heartbeat, sent now, carries ShutdownApplication: the coordinator tells every member of the group. */
  requestShutdown(): void {
    this.shutdownRequested = true;
    this.eagerUntil = Date.now() + EAGER_HEARTBEAT_WINDOW_MS;
    this.wake();
  }

  seek(offsets: readonly { topic: string; partition: number; offset: number }[]): void {
    for (const { topic, partition, offset } of offsets) {
      const position = this.positions.get(topic, partition);
      if (position) Object.assign(position, { offset, seeks: position.seeks + 1 });
    }
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const { topic, partition } of partitions) {
      const position = this.positions.get(topic, partition);
      if (position) position.paused = false;
    }
  }

  commitOffsets(offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
    return this.heartbeats.commitOffsets(this.memberId, this.epoch, offsets);
  }

  /** Stops both loops and leaves the group (epoch -1): the coordinator moves the tasks at once. */
  async disconnect(): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    this.wake();
    await Promise.allSettled(this.loops);
    if (wasRunning && this.epoch > JOIN_EPOCH) {
      await this.heartbeats
        .heartbeat({ memberId: this.memberId, memberEpoch: LEAVE_EPOCH, endpointInformationEpoch: this.endpointEpoch })
        .catch((error: unknown) => this.hooks.logger.warn({ err: error }, 'leaving the streams group failed; the coordinator drops this member after its session timeout'));
    }
    this.epoch = JOIN_EPOCH;
    await this.reader.close();
    await this.heartbeats.close();
  }

  private async heartbeatLoop(): Promise<void> {
    while (this.running) {
      await this.sleep(Date.now() < this.eagerUntil ? Math.min(EAGER_HEARTBEAT_INTERVAL_MS, this.intervalMs) : this.intervalMs);
      if (!this.running) return;
      try {
        await this.heartbeat();
      } catch (error) {
        if (!this.running) return;
        if (error instanceof StreamsMemberFenced) {
          this.hooks.logger.warn({ reason: error.message }, 'the streams group fenced this member: its tasks are dropped and it joins again');
          await this.applyTasks([], true);
          this.epoch = JOIN_EPOCH;
          continue;
        }
        if (isTransientKafkaError(error)) {
          this.hooks.logger.info({ reason: (error as Error).message }, 'heartbeat failed; trying again at the next interval');
          continue;
        }
        this.running = false;
        this.handlers!.onFatal(error instanceof Error ? error : new StreamsException(String(error)));
        return;
      }
    }
  }

  private async heartbeat(): Promise<void> {
    const joining = this.epoch === JOIN_EPOCH;
    const endpoint = this.parts.config.applicationServer === undefined ? null : parseEndpoint('application.server', this.parts.config.applicationServer);
    const response = await this.heartbeats.heartbeat({
      memberId: this.memberId,
      memberEpoch: this.epoch,
      endpointInformationEpoch: this.endpointEpoch,
      activeTasks: this.owned,
      standbyTasks: [],
      warmupTasks: [],
      shutdownApplication: this.shutdownRequested,
      ...(joining
        ? { topology: this.topology, rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS, processId: this.parts.processId, userEndpoint: endpoint, clientTags: [] }
        : {}),
    });
    if (joining) this.eagerUntil = Date.now() + EAGER_HEARTBEAT_WINDOW_MS;
    await this.apply(response);
  }

  private async apply(response: StreamsGroupHeartbeatResponse): Promise<void> {
    this.epoch = response.memberEpoch;
    this.intervalMs = response.heartbeatIntervalMs;
    if (response.status !== null) this.tellStatus(response);
    if (response.partitionsByUserEndpoint !== null) {
      this.endpointEpoch = response.endpointInformationEpoch;
      this.parts.onEndpoints(response.partitionsByUserEndpoint);
    }
    const replicas = [...(response.standbyTasks ?? []), ...(response.warmupTasks ?? [])].filter((t) => t.partitions.length > 0);
    if (replicas.length > 0 && !this.toldReplicas) {
      this.toldReplicas = true;
      // Not run, and so never reported as owned: a node must learn why its standbys are not there.
      this.hooks.logger.warn(
        { tasks: replicas.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`)) },
        'the coordinator assigned standby or warm-up tasks (streams.num.standby.replicas > 0); under group.protocol=streams this version of Sluice runs active tasks only',
      );
    }
    if (response.activeTasks !== null && !sameTasks(response.activeTasks, this.owned)) {
      this.eagerUntil = Date.now() + EAGER_HEARTBEAT_WINDOW_MS;
      await this.applyTasks(response.activeTasks, false);
    }
  }

  /** The group's status, logged when it changes; topics missing keep the thread waiting, told as a group wait. */
  private tellStatus(response: StreamsGroupHeartbeatResponse): void {
    const statuses = response.status ?? [];
    const text = statuses.map((s) => s.statusDetail).join('; ');
    if (text === this.status) return;
    this.status = text;
    const shutdown = statuses.find((s) => s.statusCode === StreamsGroupStatusCode.SHUTDOWN_APPLICATION);
    if (shutdown !== undefined) {
      this.parts.onShutdownRequested(shutdown.statusDetail);
      return;
    }
    // The coordinator creates missing internal topics itself (as Sluice's instance does at start): routine at a first join.
    const routine = new Set<number>([StreamsGroupStatusCode.ASSIGNMENT_DELAYED, StreamsGroupStatusCode.MISSING_INTERNAL_TOPICS]);
    const waiting = statuses.filter((s) => !routine.has(s.statusCode));
    if (waiting.length > 0) {
      const reason = `streams group ${this.parts.config.applicationId}: ${waiting.map((s) => s.statusDetail).join('; ')}`;
      this.hooks.logger.warn(reason);
      this.hooks.onGroupWait(reason);
    } else if (text !== '') {
      this.hooks.logger.info(`streams group ${this.parts.config.applicationId}: ${text}`);
    }
  }

  /**
   * Applies the coordinator's active tasks: the thread commits before it gives tasks up (Kafka Streams'
   * onPartitionsRevoked), applies them through its task manager, and only then are they reported as owned: the
   * coordinator hands a revoked task to another member once this one no longer reports it.
   */
  private async applyTasks(target: readonly StreamsTaskIds[], lost: boolean): Promise<void> {
    const { metadata, partitionCounts } = this.parts;
    const assigned = target.flatMap((t) => t.partitions.flatMap((p) => metadata.partitionsOfTask(taskIdToString({ subtopology: Number(t.subtopologyId), partition: p }), partitionCounts)));
    const keep = new TopicPartitionMap<true>();
    for (const tp of assigned) keep.set(tp.topic, tp.partition, true);
    const revoked = [...this.positions.entries()].filter(([tp]) => !keep.has(tp.topic, tp.partition)).map(([tp]) => tp);
    if (revoked.length > 0 && !lost) await this.hooks.beforeJoin();
    for (const tp of revoked) this.positions.delete(tp.topic, tp.partition);
    await this.handlers!.onAssignment(assigned, lost, this.epoch);
    const fresh = assigned.filter((tp) => !this.positions.has(tp.topic, tp.partition));
    for (const tp of fresh) this.positions.set(tp.topic, tp.partition, { offset: await this.startOffset(tp), paused: false, seeks: 0 });
    this.owned = target.map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions] }));
    this.wake();
  }

  /** Where a newly assigned partition is read from: its committed offset, else where auto.offset.reset says. */
  private async startOffset(tp: TopicPartition): Promise<number> {
    const [committed] = await this.parts.committedOffsets([tp]);
    if (committed !== undefined && committed.offset >= 0) return committed.offset;
    return this.resetOffset(tp);
  }

  private resetOffset(tp: TopicPartition): number {
    switch (this.parts.config.autoOffsetReset) {
      case 'earliest':
        return EARLIEST;
      case 'latest':
        return LATEST;
      default:
        throw new StreamsException(`${tp.topic}-${tp.partition} has no committed offset, and auto.offset.reset is none`);
    }
  }

  /** Fetches the partitions of the applied tasks that the thread has not paused, and hands each partition's batch to it. */
  private async fetchLoop(): Promise<void> {
    while (this.running) {
      const reading: ReadPosition[] = [];
      for (const [tp, position] of this.positions.entries()) if (!position.paused) reading.push({ ...tp, offset: position.offset });
      if (reading.length === 0) {
        await this.sleep(IDLE_MS);
        continue;
      }
      try {
        for (const fetched of await this.reader.fetch(reading)) {
          if (!this.running) return;
          const position = this.positions.get(fetched.topic, fetched.partition);
          if (!position || position.paused) continue;
          // EARLIEST or LATEST, as the reader found them.
          if (position.offset < 0 && reading.some((r) => r.topic === fetched.topic && r.partition === fetched.partition && r.offset === position.offset)) {
            position.offset = fetched.fetchOffset;
          }
          // Revoked, paused or moved since the fetch was sent: what it brought is read again from where the thread wants.
          if (position.offset !== fetched.fetchOffset || fetched.nextOffset === fetched.fetchOffset) continue;
          await this.handBatch(fetched.batch!, position, fetched.nextOffset);
        }
      } catch (error) {
        if (!this.running) return;
        if (error instanceof OffsetOutOfRange) {
          const { topic, partition, offset } = error as OffsetOutOfRange;
          const position = this.positions.get(topic, partition);
          this.hooks.logger.warn({ topic, partition, offset }, 'input offset out of range; reading from where auto.offset.reset says');
          try {
            if (position) position.offset = this.resetOffset({ topic, partition });
            continue;
          } catch (resetError) {
            error = resetError;
          }
        }
        if (!isTransientKafkaError(error)) {
          this.running = false;
          this.handlers!.onFatal(error instanceof Error ? error : new StreamsException(String(error)));
          return;
        }
        this.hooks.logger.debug({ reason: (error as Error).message }, 'fetching input failed; fetching again');
        await this.sleep(IDLE_MS);
      }
    }
  }

  private async handBatch(batch: ThreadBatch['batch'], position: Position, nextOffset: number): Promise<void> {
    const seeks = position.seeks;
    const stale = () => !this.running || position.seeks !== seeks || this.positions.get(batch.topic, batch.partition) !== position;
    await this.handlers!.onBatch({
      batch,
      // The position moves past the whole fetch once handed over unpaused: what the thread took is its to commit.
      resolveOffset: () => undefined,
      // The heartbeat loop keeps the membership: a batch's processing needs no heartbeat of its own.
      heartbeat: () => Promise.resolve(),
      isStale: stale,
      pause: () => {
        position.paused = true;
        return () => this.resume([{ topic: batch.topic, partition: batch.partition }]);
      },
    });
    if (!position.paused && !stale()) position.offset = nextOffset;
  }

  /** Waits `ms`, or until woken. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  /** Ends the loops' waits: a close, or new tasks to read. */
  private wake(): void {
    for (const done of [...this.sleepers]) done();
  }
}
