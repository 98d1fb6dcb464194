/**
 * The revocation hook kafkajs does not have. The Java consumer calls `onPartitionsRevoked` before it sends
 * JoinGroup, and Kafka Streams commits every task there: the group still accepts the old generation's commits
 * while it prepares the rebalance, so the next owner of a task starts exactly where this one stopped. kafkajs
 * re-joins on its own (after a heartbeat or fetch reports the rebalance) and tells the application only with
 * an event it does not wait for. Every join goes through `ConsumerGroup.joinAndSync`; this wraps it once, per
 * process, to await the hook that Sluice's assigner carries before the join proceeds.
 */
// kafkajs' consumer modules are loaded below: Sluice's replacements must be in place first.
import './kafkajs';
import type { PartitionAssigner } from './types';

const BEFORE_JOIN = Symbol.for('sluice.beforeJoin');

type Assigner = ReturnType<PartitionAssigner>;
type BeforeJoin = () => Promise<void>;
interface ConsumerGroupLike {
  assigners?: (Assigner & { [BEFORE_JOIN]?: BeforeJoin })[];
}
interface ConsumerGroupPrototype {
  joinAndSync(this: ConsumerGroupLike): Promise<void>;
  [BEFORE_JOIN]?: true;
}

function installJoinWrapper(): void {
  // kafkajs 2.2.4 keeps the class in this file; the adapter pins that version.
  const proto = (require('kafkajs/src/consumer/consumerGroup') as { prototype: ConsumerGroupPrototype }).prototype;
  if (proto[BEFORE_JOIN]) return;
  const join = proto.joinAndSync;
  proto.joinAndSync = async function joinAndSyncAfterHook(this: ConsumerGroupLike): Promise<void> {
    for (const assigner of this.assigners ?? []) await assigner[BEFORE_JOIN]?.();
    return join.call(this);
  };
  proto[BEFORE_JOIN] = true;
}

/**
 * Returns the assigner with `hook` attached: the consumer that uses it awaits `hook` before each JoinGroup
 * (the first join included). A hook that rejects does not stop the join; it should log its own failure.
 */
export function withBeforeJoin(assigner: PartitionAssigner, hook: BeforeJoin): PartitionAssigner {
  installJoinWrapper();
  return (context) => Object.assign(assigner(context), { [BEFORE_JOIN]: () => hook().catch(() => undefined) });
}
