import type { Logger } from 'pino';
import {
  createConsumer,
  createProducer,
  type EachBatchPayload,
  groupProtocolAssigner,
  type GroupProtocolOptions,
  type KafkaClients,
  type KafkaConsumer,
  type KafkaProducer,
  StableOffsetReader,
  type TopicPartition,
  withJoinHooks,
} from '../kafka';
import type { StreamsConfig } from './streams-config';

/** Name of the group protocol; every member of an application uses it. */
export const ASSIGNOR_NAME = 'sluice-stream';

/** How often a member tries to join a group that still holds members of another protocol. */
const FOREIGN_MEMBERS_RETRY_MS = 2_000;
/** After a join, how long and how often a member heartbeats to learn soon of members that join just after it. */
const EAGER_HEARTBEAT_WINDOW_MS = 10_000;
const EAGER_HEARTBEAT_INTERVAL_MS = 100;

/** What a thread's consumer asks of the thread while it joins the group. */
export interface GroupHooks {
  /** This member's subscription userData, for each join. */
  userData(): Buffer;
  /** Awaited before each join: the thread commits (Kafka Streams' onPartitionsRevoked). */
  beforeJoin(): Promise<void>;
  /** Whether the thread still wants to join (false once it closes or fails). */
  active(): boolean;
  /** The member cannot join yet, and why (it keeps trying). */
  onGroupWait(reason: string): void;
  readonly logger: Logger;
}

/** A fetched batch as a thread's consumer hands it to the thread: kafkajs' payload, or a streams group member's. */
export type ThreadBatch = Pick<EachBatchPayload, 'batch' | 'resolveOffset' | 'heartbeat' | 'isStale' | 'pause'>;

/**
 * A thread's consumer as the thread drives it, whichever group protocol it takes part in: a classic group's consumer
 * (GroupConsumer) or a streams group's member (StreamsGroupMember).
 */
export interface ThreadConsumer {
  /** Connects and subscribes: everything short of joining the group. */
  connect(topics: (string | RegExp)[]): Promise<void>;
  /** Joins the group and hands what it fetches to `handlers`. */
  start(handlers: ConsumerHandlers): Promise<void>;
  /** Adds topics to the subscription; `running` says whether to go on (false once the thread closes). */
  addTopics(topics: string[], running: () => boolean): Promise<void>;
  /** Takes part in a rebalance again, without leaving the group. */
  requestRejoin(): void;
  /** Carries the instance's shutdown request (SHUTDOWN_APPLICATION) to the group. */
  requestShutdown(): void;
  /** Reads these partitions from these offsets on; batches fetched from elsewhere meanwhile come stale (`isStale`). */
  seek(offsets: readonly { topic: string; partition: number; offset: number }[]): void;
  resume(partitions: readonly TopicPartition[]): void;
  commitOffsets(offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void>;
  /** Stops and disconnects; a static member leaves the group only when `leaveGroup` says so. */
  disconnect(leaveGroup?: boolean): Promise<void>;
}

/**
 * A thread's Kafka clients: its consumer in the application's group, and at-least-once its producer, exactly-once
 * the reader of the committed offsets its new tasks start from.
 */
export interface ThreadClients {
  readonly consumer: ThreadConsumer;
  /** Undefined under exactly-once: each task has its own transactional producer. */
  readonly producer: KafkaProducer | undefined;
  /**
   * Under exactly-once only: the group's committed offsets read stably (require_stable), which kafkajs' consumer
   * reads without. At-least-once commits no offsets in transactions, so none can be pending.
   */
  readonly stableOffsets: StableOffsetReader | undefined;
}

/**
 * `threadNumber` (from 1) names the thread's static member, if the application has static membership;
 * `fetchBytes`, the node's memory budget's share for the thread's group consumer, caps `fetch.max.bytes` and
 * `max.partition.fetch.bytes` (kafkajs fixes them when its consumer starts).
 */
export type ThreadClientsFactory = (hooks: GroupHooks, threadNumber: number, fetchBytes: number) => ThreadClients;

/** The real clients: kafkajs' consumer with the Sluice assignor, and a producer. */
export function kafkaThreadClients(kafka: KafkaClients, config: StreamsConfig, assign: GroupProtocolOptions['assign']): ThreadClientsFactory {
  const exactlyOnce = config.processingGuarantee === 'exactly_once_v2';
  return (hooks, threadNumber, fetchBytes) => {
    // Kafka Streams' static member id of a thread: the configured id and the thread's number.
    const instanceId = config.groupInstanceId === undefined ? undefined : `${config.groupInstanceId}-${threadNumber}`;
    const assigner = withJoinHooks(groupProtocolAssigner({ name: ASSIGNOR_NAME, version: 1, userData: () => hooks.userData(), assign }), {
      beforeJoin: () => hooks.beforeJoin(),
      onForeignProtocol: () => consumer.waitForForeignMembers(),
      rejoinRequested: () => consumer.takeRejoinRequest(),
      joined: (generationId) => consumer.noteGeneration(generationId),
      heartbeatIntervalMs: () => consumer.eagerHeartbeatIntervalMs(),
      groupInstanceId: instanceId,
      staysInGroup: (memberId) => consumer.staysInGroup(memberId),
    });
    const client = kafka.mainConsumer();
    const consumer: GroupConsumer = new GroupConsumer(createConsumer(client, {
      groupId: config.applicationId,
      partitionAssigners: [assigner],
      sessionTimeoutMs: config.sessionTimeoutMs,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      maxWaitTimeMs: config.pollMaxWaitMs,
      maxBytesPerPartition: Math.min(config.maxPartitionFetchBytes, fetchBytes),
      maxBytes: Math.min(config.fetchMaxBytes, fetchBytes),
      isolationLevel: exactlyOnce ? 'read_committed' : 'read_uncommitted',
      restartOnFailure: () => Promise.resolve(hooks.active()),
    }), config.autoOffsetReset !== 'latest', config.applicationId, hooks, config.sessionTimeoutMs, instanceId !== undefined);
    return exactlyOnce
      ? { consumer, producer: undefined, stableOffsets: new StableOffsetReader(client, config.applicationId, { timeoutMs: config.taskTimeoutMs }) }
      // At-least-once tolerates a retry's duplicates; kafkajs' idempotence would allow one request in flight.
      : { consumer, producer: createProducer(kafka.producer, { idempotent: false }), stableOffsets: undefined };
  };
}

/** What a thread does with what its consumer reports. */
export interface ConsumerHandlers {
  onBatch(payload: ThreadBatch): Promise<void>;
  /**
   * The group gave this member these partitions (every join, the first included). `lost`: the group had dropped
   * this member (it joined again under a new member id), so the tasks it held may have moved and come back.
   * `generation`: the group's generation of the join (-1 when unknown; a streams group's member epoch). Settles once
   * the thread has applied the assignment (a streams group's member then reports its tasks as owned).
   */
  onAssignment(assigned: TopicPartition[], lost: boolean, generation: number): Promise<void>;
  /** The group is rebalancing: this member is about to join again. */
  onRebalancing(): void;
  /** The consumer failed for good (kafkajs does not restart it). */
  onFatal(error: Error): void;
  onRestart(error: Error): void;
}

/**
 * A thread's consumer as the thread drives it: subscribed, run with manual commits and one batch at a time, and
 * able to take more topics later. kafkajs takes subscriptions only while its consumer is stopped, so adding
 * topics leaves the group and joins it again: a rebalance, as a new subscription causes in Kafka Streams.
 */
export class GroupConsumer implements ThreadConsumer {
  private handlers: ConsumerHandlers | undefined;
  private waitingForForeignMembers = false;
  private memberId: string | undefined;
  /** When this member last heard from the group: a join, a batch handed out, a heartbeat. */
  private lastContact = Date.now();
  private disconnected = false;
  private rejoinRequested = false;
  /** When this member last joined the group. */
  private joinedAt: number | undefined;
  /** The member id of this static member while it is to stay in the group when it stops. */
  private staysAs: string | undefined;
  /** The group's generation of the last join. */
  private generationId = -1;

  constructor(
    readonly consumer: KafkaConsumer,
    private readonly fromBeginning: boolean,
    private readonly groupId: string,
    private readonly hooks: Pick<GroupHooks, 'active' | 'onGroupWait' | 'logger'>,
    private readonly sessionTimeoutMs: number,
    /** A static member (group.instance.id): it keeps its place in the group when it stops, unless told to leave. */
    private readonly isStatic = false,
  ) {}

  /** Connects and subscribes: everything short of joining the group. */
  async connect(topics: (string | RegExp)[]): Promise<void> {
    await this.consumer.connect();
    await this.subscribe(topics);
  }

  /** Joins the group and hands what it fetches to `handlers`. */
  async start(handlers: ConsumerHandlers): Promise<void> {
    const consumer = this.consumer;
    consumer.on(consumer.events.REBALANCING, () => handlers.onRebalancing());
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      if (this.disconnected) {
        // A restart of kafkajs' that was joining while the consumer was stopped goes on to join: end that member.
        this.hooks.logger.info('a consumer restart joined the group after the consumer was disconnected; leaving');
        void this.consumer.disconnect().catch((error: unknown) => this.hooks.logger.warn({ err: error }, 'disconnecting the restarted consumer failed'));
        return;
      }
      if (this.waitingForForeignMembers) this.hooks.logger.info('joined the group: the members of the other protocol are gone');
      this.waitingForForeignMembers = false;
      const lost = this.memberId !== undefined && this.memberId !== event.payload.memberId;
      if (this.isStatic) this.staysAs = event.payload.memberId;
      this.memberId = event.payload.memberId;
      this.lastContact = Date.now();
      this.joinedAt = this.lastContact;
      const assigned = Object.entries(event.payload.memberAssignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition })));
      void handlers.onAssignment(assigned, lost, this.generationId);
    });
    consumer.on(consumer.events.CRASH, (event) => (event.payload.restart ? handlers.onRestart(event.payload.error) : handlers.onFatal(event.payload.error)));
    this.handlers = handlers;
    await this.run();
  }

  /** Adds topics to the subscription; `running` says whether to run again (false once the thread closes). */
  async addTopics(topics: string[], running: () => boolean): Promise<void> {
    await this.consumer.stop();
    await this.subscribe(topics);
    if (running()) await this.run();
  }

  private subscribe(topics: (string | RegExp)[]): Promise<void> {
    return this.consumer.subscribe({ topics, fromBeginning: this.fromBeginning });
  }

  private run(): Promise<void> {
    const handlers = this.handlers!;
    return this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: async (payload) => {
        // A member silent for longer than its session (a frozen process, a long pause) may have been dropped and
        // its partitions given to another: it asks the group before it processes, not after, so as not to write
        // as a zombie. A dropped member's heartbeat throws, and kafkajs joins again.
        if (Date.now() - this.lastContact > this.sessionTimeoutMs) await payload.heartbeat();
        this.lastContact = Date.now();
        await handlers.onBatch(payload);
        this.lastContact = Date.now();
      },
    });
  }

  /**
   * The group still holds members of another protocol: typically a Kafka Streams application of the same
   * application.id, stopped a moment ago, whose members stay until their session times out. Sluice waits for
   * them, as the hand-over of an application from Java to Sluice needs, instead of failing.
   */
  async waitForForeignMembers(): Promise<boolean> {
    if (!this.hooks.active()) return false;
    if (!this.waitingForForeignMembers) {
      this.waitingForForeignMembers = true;
      const reason =
        `group ${this.groupId} still has members of another group protocol (such as a Kafka Streams application that ` +
        'did not leave the group on close); waiting for them to leave or for their session.timeout.ms to expire';
      this.hooks.logger.warn(reason);
      this.hooks.onGroupWait(reason);
    }
    await new Promise((resolve) => setTimeout(resolve, FOREIGN_MEMBERS_RETRY_MS));
    return this.hooks.active();
  }

  /** The generation a join brought, told before kafkajs' join event. */
  noteGeneration(generationId: number): void {
    this.generationId = generationId;
  }

  /** Joins the group again at the next heartbeat, without leaving it: the leader's join rebalances the group. */
  requestRejoin(): void {
    this.rejoinRequested = true;
  }

  /** The request travels in the subscription of the next join (SubscriptionInfo.shutdownRequested). */
  requestShutdown(): void {
    this.requestRejoin();
  }

  /**
   * For EAGER_HEARTBEAT_WINDOW_MS after each join, heartbeats every EAGER_HEARTBEAT_INTERVAL_MS: members that join
   * a moment after this one (the instance's other threads, nodes started together) rebalance the group, and this
   * member learns of it at its next heartbeat, not up to heartbeat.interval.ms later while it runs their tasks.
   */
  eagerHeartbeatIntervalMs(): number | undefined {
    return this.joinedAt !== undefined && Date.now() - this.joinedAt < EAGER_HEARTBEAT_WINDOW_MS ? EAGER_HEARTBEAT_INTERVAL_MS : undefined;
  }

  /** Whether the consumer, stopping as member `memberId`, stays in the group (a static member not told to leave). */
  staysInGroup(memberId: string): boolean {
    return memberId === this.staysAs;
  }

  /** Whether a rejoin was asked for since the last call. */
  takeRejoinRequest(): boolean {
    const requested = this.rejoinRequested;
    this.rejoinRequested = false;
    return requested;
  }

  /** Reads these partitions from these offsets on; batches fetched from elsewhere meanwhile come stale (`isStale`). */
  seek(offsets: readonly { topic: string; partition: number; offset: number }[]): void {
    for (const { topic, partition, offset } of offsets) this.consumer.seek({ topic, partition, offset: String(offset) });
  }

  resume(partitions: readonly TopicPartition[]): void {
    this.consumer.resume(partitions.map((tp) => ({ topic: tp.topic, partitions: [tp.partition] })));
  }

  commitOffsets(offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
    return this.consumer.commitOffsets(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })));
  }

  /** Stops and disconnects; a static member leaves the group only when `leaveGroup` says so. */
  async disconnect(leaveGroup = false): Promise<void> {
    this.disconnected = true;
    // Let go before the stop when the member is to leave (kafkajs then sends LeaveGroup), after it otherwise.
    if (leaveGroup) this.staysAs = undefined;
    await this.consumer.disconnect().finally(() => {
      this.staysAs = undefined;
    });
  }
}
