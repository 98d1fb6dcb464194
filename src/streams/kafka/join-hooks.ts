/**
 * Three hooks around kafkajs' group join that Kafka Streams needs and kafkajs does not have.
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
 *   joins again, without leaving the group, when a heartbeat reports the group rebalancing; the wrapped heartbeat
 *   reports exactly that when the hook asks. The coordinator rebalances the group when its leader joins again.
 * - A shorter heartbeat interval for a while, as the hook asks: a member learns that the group rebalances only from a
 *   heartbeat, so one that joined first would run every task alone until its next heartbeat (3 s by default)
 *   before it hands some to members that join a moment later (the other threads of its instance, other nodes
 *   started together).
 *
 * Every join goes through `ConsumerGroup.joinAndSync`; this wraps it once, per process, to call the hooks that
 * Sluice's assigner carries.
 */
// kafkajs' consumer modules are loaded below: Sluice's replacements must be in place first.
import './kafkajs';
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
  /** Asked at each heartbeat: true to join the group again now. */
  rejoinRequested?: () => boolean;
  /** Asked at each heartbeat: a shorter interval between heartbeats than the consumer's, for now; undefined: its own. */
  heartbeatIntervalMs?: () => number | undefined;
}

type Assigner = ReturnType<PartitionAssigner>;
interface ConsumerGroupLike {
  assigners?: (Assigner & { [JOIN_HOOKS]?: JoinHooks })[];
}
interface ConsumerGroupPrototype {
  joinAndSync(this: ConsumerGroupLike): Promise<void>;
  heartbeat(this: ConsumerGroupLike, options: { interval: number }): Promise<void>;
  [JOIN_HOOKS]?: true;
}

function isInconsistentGroupProtocol(error: unknown): error is Error {
  return error instanceof Error && (error as { type?: unknown }).type === 'INCONSISTENT_GROUP_PROTOCOL';
}

function hooksOf(group: ConsumerGroupLike): JoinHooks[] {
  return (group.assigners ?? []).map((assigner) => assigner[JOIN_HOOKS]).filter((h) => h !== undefined);
}

/** The error a heartbeat gets when the group rebalances: kafkajs' runner joins again on it. */
function rebalanceInProgress(): Error {
  const { KafkaJSProtocolError } = require('kafkajs/src/errors') as { KafkaJSProtocolError: new (e: object) => Error };
  return new KafkaJSProtocolError({ type: 'REBALANCE_IN_PROGRESS', code: 27, retriable: false, message: 'The member asked to join the group again (a probing rebalance)' });
}

function installJoinWrapper(): void {
  // kafkajs 2.2.4 keeps the class in this file; the adapter pins that version.
  const proto = (require('kafkajs/src/consumer/consumerGroup') as { prototype: ConsumerGroupPrototype }).prototype;
  if (proto[JOIN_HOOKS]) return;
  const heartbeat = proto.heartbeat;
  proto.heartbeat = async function heartbeatOrRejoin(this: ConsumerGroupLike, options: { interval: number }): Promise<void> {
    const hooks = hooksOf(this);
    if (hooks.some((h) => h.rejoinRequested?.() === true)) throw rebalanceInProgress();
    let interval = options.interval;
    for (const h of hooks) interval = Math.min(interval, h.heartbeatIntervalMs?.() ?? interval);
    return heartbeat.call(this, { ...options, interval });
  };
  const join = proto.joinAndSync;
  proto.joinAndSync = async function joinAndSyncWithHooks(this: ConsumerGroupLike): Promise<void> {
    const hooks = hooksOf(this);
    for (;;) {
      for (const h of hooks) await h.beforeJoin?.().catch(() => undefined);
      try {
        return await join.call(this);
      } catch (error) {
        const foreign = hooks.find((h) => h.onForeignProtocol !== undefined);
        if (!isInconsistentGroupProtocol(error) || !foreign || !(await foreign.onForeignProtocol!(error))) throw error;
      }
    }
  };
  proto[JOIN_HOOKS] = true;
}

/** Returns the assigner with `hooks` attached: the consumer that uses it calls them around each join. */
export function withJoinHooks(assigner: PartitionAssigner, hooks: JoinHooks): PartitionAssigner {
  installJoinWrapper();
  return (context) => Object.assign(assigner(context), { [JOIN_HOOKS]: hooks });
}
