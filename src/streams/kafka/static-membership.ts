/**
 * Static membership (KIP-345, `group.instance.id`) for kafkajs 2.2.4, which has JoinGroup v5's field but never
 * fills it, and always leaves the group when a consumer stops.
 *
 * - The instance id reaches JoinGroup through the member's assigner: kafkajs asks each assigner for its protocol
 *   while it builds the JoinGroup request, in the same synchronous step as the request's encoding, so the id the
 *   assigner hands over is taken by exactly that request (the encoder of kafkajs' JoinGroup module is wrapped).
 * - A static member does not send LeaveGroup when it stops, as the Java consumer does not: the coordinator keeps its
 *   partitions for `session.timeout.ms`, and a member that comes back with the same id within it gets them back
 *   without a rebalance. `forgetStaticMember` before stopping makes it leave (Kafka Streams' close with leaveGroup).
 *
 * Heartbeat, SyncGroup and OffsetCommit go without the instance id, which the coordinator accepts from the current
 * member of that id.
 */
// kafkajs' modules are loaded below: Sluice's replacements must be in place first.
import './kafkajs';
import { UnsupportedKafkaClient } from '../../errors';
import type { PartitionAssigner } from './types';

/** JoinGroup v5 (Kafka 2.3) is the first to carry group.instance.id. */
const FIRST_STATIC_JOIN_VERSION = 5;

type RequestEncoder = (args: Record<string, unknown>) => unknown;
interface RequestDefinition {
  protocol: (args: { version: number }) => RequestEncoder;
}
interface BrokerClass {
  prototype: { leaveGroup: (this: unknown, args: { groupId: string; memberId: string }) => Promise<unknown> };
}

/** The instance id an assigner handed over for the JoinGroup request being built now. */
let pendingInstanceId: string | undefined;
/** Member ids of static members of this process, which leave only when asked. */
const staticMembers = new Set<string>();

const joinGroup = require('kafkajs/src/protocol/requests/joinGroup') as RequestDefinition;
const encoderOf = joinGroup.protocol;
joinGroup.protocol = ({ version }) => {
  const encode = encoderOf({ version });
  return (args) => {
    const groupInstanceId = pendingInstanceId;
    pendingInstanceId = undefined;
    if (groupInstanceId === undefined) return encode(args);
    if (version < FIRST_STATIC_JOIN_VERSION) {
      throw new UnsupportedKafkaClient(`group.instance.id needs JoinGroup v${FIRST_STATIC_JOIN_VERSION} (Kafka 2.3 or later); the broker offers v${version}`);
    }
    return encode({ ...args, groupInstanceId });
  };
};

const broker = require('kafkajs/src/broker') as BrokerClass;
const leaveGroup = broker.prototype.leaveGroup;
broker.prototype.leaveGroup = function leaveUnlessStatic(this: unknown, args: { groupId: string; memberId: string }) {
  if (staticMembers.has(args.memberId)) return Promise.resolve();
  return leaveGroup.call(this, args);
};

/** The assigner of a member that joins as `instanceId`. */
export function withGroupInstanceId(assigner: PartitionAssigner, instanceId: string): PartitionAssigner {
  return (config) => {
    const inner = assigner(config);
    return {
      ...inner,
      protocol: (subscription) => {
        pendingInstanceId = instanceId;
        return inner.protocol(subscription);
      },
    };
  };
}

/** The member id the coordinator gave a static member: it does not leave the group when it stops. */
export function rememberStaticMember(memberId: string): void {
  staticMembers.add(memberId);
}

/** The member leaves the group when it stops after all (or has stopped). */
export function forgetStaticMember(memberId: string): void {
  staticMembers.delete(memberId);
}
