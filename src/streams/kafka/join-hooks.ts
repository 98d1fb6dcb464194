/**
 * Hooks around kafkajs' group membership that Kafka Streams needs and kafkajs does not have.
 *
 * - Before each join: the Java consumer calls `onPartitionsRevoked` before it sends JoinGroup, and Kafka Streams
 *   commits every task there: the group still accepts the old generation's commits while it prepares the
 *   rebalance, so the next owner of a task starts exactly where this one stopped. kafkajs re-joins on its own
 *   (after a heartbeat or fetch reports the rebalance) and tells the application only with an event it does not
 *   wait for.
 * - A group that still holds members of another protocol: a Kafka Streams application stopped a moment ago stays
 *   in its group until its session times out (it does not leave on close), and the coordinator refuses members
 *   of another protocol meanwhile (INCONSISTENT_GROUP_PROTOCOL). kafkajs treats that as fatal; the hook decides
 *   whether to join again later instead.
 * - A rejoin the member asks for (Kafka Streams' `enforceRebalance`, which its probing rebalances use): kafkajs
 *   joins again, without leaving the group, when a heartbeat reports the group rebalancing; the hooked heartbeat
 *   reports exactly that when the hook asks. The coordinator rebalances the group when its leader joins again.
 * - A shorter heartbeat interval for a while, as the hook asks: a member learns that the group rebalances only from a
 *   heartbeat, so one that joined first would run every task alone until its next heartbeat (3 s by default)
 *   before it hands some to members that join a moment later (the other threads of its instance, other nodes
 *   started together).
 * - Static membership (static-membership.ts): the member's group.instance.id goes with its protocol into its
 *   JoinGroup requests (broker-requests.ts), and a static member stays in the group when it stops, unless the hook
 *   lets it go.
 *
 * The hooks travel on the member's assigner, which kafkajs' ConsumerGroup holds; the ConsumerGroup that kafkajs
 * runs is `hookedConsumerGroup`'s (installed by kafkajs.ts), which calls them.
 */
import { withGroupInstanceId } from './broker-requests';
import type { PartitionAssigner } from './types';

const JOIN_HOOKS = Symbol.for('sluice.joinHooks');

export interface JoinHooks {
  /** Awaited before each JoinGroup (the first included). A hook that rejects does not stop the join. */
  beforeJoin?: () => Promise<void>;
  /**
   * The group holds members of another protocol. Resolves true to join again (after waiting as it sees fit),
   * false to let the join fail.
   */
  onForeignProtocol?: (error: Error) => Promise<boolean>;
  /** After each JoinGroup, before its SyncGroup and kafkajs' join event (which does not carry it): the group's generation. */
  joined?: (generationId: number) => void;
  /** Asked at each heartbeat: true to join the group again now. */
  rejoinRequested?: () => boolean;
  /** Asked at each heartbeat: a shorter interval between heartbeats than the consumer's, for now; undefined: its own. */
  heartbeatIntervalMs?: () => number | undefined;
  /** The member's group.instance.id: a static member. */
  groupInstanceId?: string;
  /** Asked as the consumer stops: true to keep member `memberId` in the group (it sends no LeaveGroup). */
  staysInGroup?: (memberId: string) => boolean;
}

type Assigner = ReturnType<PartitionAssigner>;

/** The parts of kafkajs' ConsumerGroup that the hooks wrap. */
interface KafkajsConsumerGroup {
  memberId: string | null;
  generationId: number | null;
  assigners?: (Assigner & { [JOIN_HOOKS]?: JoinHooks })[];
  joinAndSync(): Promise<void>;
  heartbeat(options: { interval: number }): Promise<void>;
  leave(): Promise<void>;
}

/** kafkajs' ConsumerGroup class (its constructor takes the consumer's options). */
export type KafkajsConsumerGroupClass = new (options: object) => KafkajsConsumerGroup;

function isInconsistentGroupProtocol(error: unknown): error is Error {
  return error instanceof Error && (error as { type?: unknown }).type === 'INCONSISTENT_GROUP_PROTOCOL';
}

function hooksOf(group: KafkajsConsumerGroup): JoinHooks[] {
  return (group.assigners ?? []).map((assigner) => assigner[JOIN_HOOKS]).filter((h) => h !== undefined);
}

/** The error a heartbeat gets when the group rebalances: kafkajs' runner joins again on it. */
function rebalanceInProgress(): Error {
  const { KafkaJSProtocolError } = require('kafkajs/src/errors') as { KafkaJSProtocolError: new (e: object) => Error };
  return new KafkaJSProtocolError({ type: 'REBALANCE_IN_PROGRESS', code: 27, retriable: false, message: 'The member asked to join the group again (a probing rebalance)' });
}

/** kafkajs' ConsumerGroup's private SyncGroup step, which follows the JoinGroup that set the generation. */
function privateSync(ConsumerGroup: KafkajsConsumerGroupClass): symbol | undefined {
  return Object.getOwnPropertySymbols(ConsumerGroup.prototype).find((s) => s.description === 'private:ConsumerGroup:sync');
}

/** kafkajs' ConsumerGroup, calling the hooks of its assigners around its joins, heartbeats and leave. */
export function hookedConsumerGroup(ConsumerGroup: KafkajsConsumerGroupClass): KafkajsConsumerGroupClass {
  const hooked = class HookedConsumerGroup extends ConsumerGroup {
    override async heartbeat(options: { interval: number }): Promise<void> {
      const hooks = hooksOf(this);
      if (hooks.some((h) => h.rejoinRequested?.() === true)) throw rebalanceInProgress();
      let interval = options.interval;
      for (const h of hooks) interval = Math.min(interval, h.heartbeatIntervalMs?.() ?? interval);
      return super.heartbeat({ ...options, interval });
    }

    override async joinAndSync(): Promise<void> {
      const hooks = hooksOf(this);
      for (;;) {
        for (const h of hooks) await h.beforeJoin?.().catch(() => undefined);
        try {
          return await super.joinAndSync();
        } catch (error) {
          const foreign = hooks.find((h) => h.onForeignProtocol !== undefined);
          if (!isInconsistentGroupProtocol(error) || !foreign || !(await foreign.onForeignProtocol!(error))) throw error;
        }
      }
    }

    override async leave(): Promise<void> {
      const memberId = this.memberId;
      if (memberId && hooksOf(this).some((h) => h.staysInGroup?.(memberId) === true)) {
        // As kafkajs' leave, but without the LeaveGroup: the member is gone from this consumer.
        this.memberId = null;
        return;
      }
      return super.leave();
    }
  };
  const sync = privateSync(ConsumerGroup);
  if (sync !== undefined) {
    const prototype = ConsumerGroup.prototype as unknown as Record<symbol, (this: KafkajsConsumerGroup) => Promise<void>>;
    const syncGroup = prototype[sync]!;
    Object.defineProperty(hooked.prototype, sync, {
      value: function (this: KafkajsConsumerGroup): Promise<void> {
        const generationId = this.generationId;
        if (generationId !== null) for (const h of hooksOf(this)) h.joined?.(generationId);
        return syncGroup.call(this);
      },
    });
  }
  return hooked;
}

/** Returns the assigner with `hooks` attached: the consumer that uses it calls them around each join. */
export function withJoinHooks(assigner: PartitionAssigner, hooks: JoinHooks): PartitionAssigner {
  const instanceId = hooks.groupInstanceId;
  return (context) => {
    const inner = assigner(context);
    const hooked = instanceId === undefined ? inner : { ...inner, protocol: (subscription: { topics: string[] }) => withGroupInstanceId(inner.protocol(subscription), instanceId) };
    return Object.assign(hooked, { [JOIN_HOOKS]: hooks });
  };
}
