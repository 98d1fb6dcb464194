import { StreamsException } from '../../errors';
import { removeStaticMembers, type KafkaAdmin, type StreamsEndpointPartitions } from '../kafka';
import { StreamsPartitionAssignor } from './assignment/streams-partition-assignor';
import type { SubscriptionFacts } from './assignment/subscription-info';
import type { ThreadParts } from './instance-parts';
import type { InternalTopicManager } from './internal-topic-manager';
import type { StandbyTasks } from './standby-task';
import type { StreamThreadHandle } from './stream-thread-handle';
import type { RebalanceCause } from './rebalance-timeline';
import { StreamsMetadataState } from './streams-metadata';
import { WorkerStreamThread } from './worker/worker-stream-thread';

/** How often the group is read for the host map, beside the read after each assignment. */
const HOST_MAP_REFRESH_MS = 10_000;
/** How long a node that asked the application to shut down waits to see the request go round the group. */
const SHUTDOWN_REQUEST_WAIT_MS = 60_000;

/** The parts of its instance that its part in the group works with. */
export type GroupParts = Pick<ThreadParts, 'config' | 'metadata' | 'kafka' | 'partitionCounts' | 'logger'> & { readonly processId: string };

/** What an instance shows of itself to its part in the group. */
export interface GroupMember {
  /** The admin client, once the instance has connected. */
  admin(): KafkaAdmin | undefined;
  /** The internal topics' manager, once the instance has connected. */
  topics(): InternalTopicManager | undefined;
  threads(): readonly StreamThreadHandle[];
  standbys(): StandbyTasks | undefined;
  /** Low and high watermark per partition of a topic. */
  endOffsets(topic: string): Promise<Map<number, { low: number; high: number }>>;
  /** close() was called: what the group tells from then on is a consequence of the close. */
  closing(): boolean;
  /** The instance failed, or is failing. */
  failed(): boolean;
  /** A node asked the application to shut down: the instance fails with `error`. */
  fail(error: Error): void;
  /** This node is about to make the group rebalance, and why. */
  rebalancing(cause: RebalanceCause): void;
  /** The group was read while stable: the host map, its members and this node's warm-ups are current. */
  groupRead(): void;
}

/**
 * An instance's part in its application's consumer group, beside what each thread's consumer does there: the
 * assignor its leader decides with, what its members say of the process (Kafka Streams' subscription info, pushed
 * to the threads in workers), the host map and the standbys read from the group, the topics new to a source pattern
 * added to the subscription, and a shutdown request sent round the group.
 */
export class InstanceGroup {
  readonly assignor: StreamsPartitionAssignor;
  /** The host map, read from the group. */
  readonly hostMap: StreamsMetadataState;
  /** The failure this node asked the application to shut down for (SHUTDOWN_APPLICATION); every join carries it. */
  private shutdownRequest: Error | undefined;
  private hostMapRefresh: Promise<void> = Promise.resolve();
  /** This node's standby tasks that are warm-ups, as the last read of the group found them. */
  private warmups: readonly string[] = [];
  private hostMapTimer: NodeJS.Timeout | undefined;
  private patternTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly parts: GroupParts,
    private readonly member: GroupMember,
  ) {
    this.hostMap = new StreamsMetadataState(parts.metadata, parts.processId);
    this.assignor = new StreamsPartitionAssignor({
      metadata: parts.metadata,
      config: parts.config,
      logger: parts.logger,
      endOffsets: (topic) => member.endOffsets(topic),
      onProbingRebalance: (warmups) => {
        if (member.closing()) return;
        parts.logger.info('probing rebalance: joining the group again to move the warmed-up tasks');
        member.rebalancing({ type: 'probing_rebalance', tasks: [...warmups] });
        for (const thread of member.threads()) thread.requestRejoin();
      },
    });
  }

  /** Reads the group every HOST_MAP_REFRESH_MS and, with a source pattern, looks for new topics every metadata.max.age.ms. */
  start(): void {
    this.hostMapTimer = setInterval(() => this.refresh(), HOST_MAP_REFRESH_MS);
    this.hostMapTimer.unref();
    if (this.parts.metadata.hasPatterns) {
      // Kafka Streams picks up new topics that match a source pattern when its consumer refreshes metadata.
      this.patternTimer = setInterval(() => void this.subscribeNewPatternTopics(), this.parts.config.metadataMaxAgeMs);
      this.patternTimer.unref();
    }
  }

  /** Stops the timers, and the probing rebalance the assignor may have due. */
  stop(): void {
    if (this.hostMapTimer) clearInterval(this.hostMapTimer);
    this.assignor.close();
    if (this.patternTimer) clearInterval(this.patternTimer);
  }

  /** This node's warm-up tasks (among its standbys) at the last read of the group. */
  get warmupTasks(): readonly string[] {
    return this.warmups;
  }

  /** What every thread's subscription says of this process. */
  subscriptionFacts(): SubscriptionFacts {
    const { processId, config } = this.parts;
    return {
      processId,
      ...(config.applicationServer ? { endpoint: config.applicationServer } : {}),
      ...(config.grpcEndpoint ? { grpcEndpoint: config.grpcEndpoint } : {}),
      standbyTasks: [...(this.member.standbys()?.assigned ?? [])],
      shutdownRequested: this.shutdownRequest !== undefined,
    };
  }

  /**
   * Under the streams protocol, the host map from where the coordinator says every member's partitions are: a
   * process per endpoint (the coordinator tells no process id), this node's by its application.server.
   */
  streamsEndpoints(endpoints: readonly StreamsEndpointPartitions[]): void {
    const { config, processId, partitionCounts } = this.parts;
    const members = endpoints.map(({ userEndpoint, activePartitions, standbyPartitions }) => {
      const endpoint = `${userEndpoint.host}:${userEndpoint.port}`;
      const partitions = (list: typeof activePartitions) => list.flatMap(({ topic, partitions: ps }) => ps.map((partition) => ({ topic, partition })));
      return {
        memberId: endpoint,
        info: { version: 0, processId: endpoint === config.applicationServer ? processId : endpoint, endpoint, previousTasks: [], stateTasks: [] },
        partitions: partitions(activePartitions),
        standbyPartitions: partitions(standbyPartitions),
      };
    });
    this.hostMap.update(members, partitionCounts);
    this.member.groupRead();
  }

  /** Under the streams protocol, the coordinator told that a member asked the application to shut down: this node fails, as under classic. */
  streamsShutdown(detail: string): void {
    if (this.member.failed() || this.member.closing()) return;
    this.member.fail(this.shutdownRequest ?? new StreamsException(`a member of streams group ${this.parts.config.applicationId} shut the application down (SHUTDOWN_APPLICATION): ${detail}`));
  }

  /** Reads the group: the host map, this node's standbys, or a shutdown request; one read at a time. */
  refresh(): Promise<void> {
    const admin = this.member.admin();
    // A streams group is no classic group to describe: its heartbeats carry the host map (streamsEndpoints).
    if (!admin || this.parts.config.groupProtocol === 'streams') return this.hostMapRefresh;
    this.hostMapRefresh = this.hostMapRefresh.then(async () => {
      try {
        const news = await this.hostMap.refresh(admin, this.parts.config.applicationId, this.parts.partitionCounts);
        if (news?.shutdownRequestedBy !== undefined) {
          this.member.fail(this.shutdownRequest ?? new StreamsException(`node ${news.shutdownRequestedBy} shut the application down (SHUTDOWN_APPLICATION)`));
          return;
        }
        const standbys = this.member.standbys();
        if (news?.localStandbyTasks && standbys && !this.member.closing()) {
          void standbys.apply(news.localStandbyTasks);
          this.factsChanged();
        }
        if (news) {
          this.warmups = news.localWarmupTasks ?? [];
          this.member.groupRead();
        }
      } catch (error) {
        this.parts.logger.warn({ err: error }, 'reading the consumer group for the host map failed');
      }
    });
    return this.hostMapRefresh;
  }

  /** Waits for the read of the group under way. */
  async settled(): Promise<void> {
    await this.hostMapRefresh;
  }

  /**
   * SHUTDOWN_APPLICATION, through the group as Kafka Streams does it: `messenger` joins again with the request in
   * its subscription, the leader gives every member no task and the request in its assignment, and each node that
   * reads it fails. Resolves when this node has failed so, or is closing, or after SHUTDOWN_REQUEST_WAIT_MS (a group
   * out of reach, or a consumer that failed with its thread).
   */
  async requestShutdown(error: Error, messenger: StreamThreadHandle): Promise<void> {
    this.shutdownRequest = error;
    this.member.rebalancing({ type: 'shutdown_requested', error: error.message });
    this.factsChanged();
    messenger.sendShutdownRequest();
    const deadline = Date.now() + SHUTDOWN_REQUEST_WAIT_MS;
    const waiting = (): boolean => !this.member.failed() && !this.member.closing();
    while (waiting() && Date.now() < deadline) {
      await this.refresh();
      if (!this.member.failed()) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (waiting()) this.parts.logger.error(`the shutdown request was not seen assigned within ${SHUTDOWN_REQUEST_WAIT_MS} ms; shutting this node down`);
  }

  /** Kafka Streams' close with leaveGroup for static members: the threads' members leave the group now, their partitions move at once. */
  async removeStaticMembers(): Promise<void> {
    const { config, kafka, logger } = this.parts;
    if (config.groupInstanceId === undefined) return;
    const ids = this.member.threads().map((t) => `${config.groupInstanceId}-${t.slot + 1}`);
    try {
      const { removed, absent } = await removeStaticMembers(kafka.admin, config.applicationId, ids);
      logger.info({ removed, absent }, 'left the group: the static members were removed, their partitions move now');
    } catch (error) {
      logger.warn({ err: error, members: ids }, `the static members could not be removed; their partitions move after session.timeout.ms (${config.sessionTimeoutMs} ms)`);
    }
  }

  /** What the threads in workers subscribe with changed: they are told (kafkajs asks for a subscription synchronously). */
  private factsChanged(): void {
    const facts = this.subscriptionFacts();
    for (const thread of this.member.threads()) if (thread instanceof WorkerStreamThread) thread.updateFacts(facts);
  }

  /** Every thread adds the topics created since that match a source pattern to its subscription. */
  private async subscribeNewPatternTopics(): Promise<void> {
    const topics = this.member.topics();
    if (!topics || this.member.closing()) return;
    try {
      const fresh = await topics.newPatternTopics();
      if (fresh.length === 0) return;
      const threads = this.member.threads();
      for (const thread of threads) if (thread instanceof WorkerStreamThread) thread.updatePartitionCounts(this.parts.partitionCounts);
      this.parts.logger.info({ topics: fresh }, 'new topics match a source pattern; subscribing');
      this.member.rebalancing({ type: 'new_topics', topics: fresh });
      await Promise.all(threads.map((thread) => thread.subscribeTo(fresh)));
    } catch (error) {
      this.parts.logger.warn({ err: error }, 'subscribing to new topics of a source pattern failed; trying again at the next metadata refresh');
    }
  }
}
