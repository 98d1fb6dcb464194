/**
 * Static membership (KIP-345, `group.instance.id`) for kafkajs 2.2.4, which has JoinGroup v5's field but never
 * fills it, and always leaves the group when a consumer stops.
 *
 * - The instance id reaches JoinGroup through the member's assigner: kafkajs asks each assigner for its protocol
 *   while it builds the JoinGroup request, in the same synchronous step as the request's encoding, so the id the
 *   assigner hands over is taken by exactly that request (the encoder of kafkajs' JoinGroup module is wrapped).
 * - A static member does not send LeaveGroup when it stops, as the Java consumer does not: the coordinator keeps its
 *   partitions for `session.timeout.ms`, and a member that comes back with the same id within it gets them back
 *   without a rebalance. `forgetStaticMember` before stopping makes it leave as it stops (a removed stream thread).
 * - `removeStaticMembers` removes stopped members by instance id, as Kafka Streams' close with leaveGroup does through
 *   the admin's removeMembersFromConsumerGroup: a LeaveGroup v3 naming each group.instance.id, sent to the coordinator
 *   on kafkajs' connections (kafkajs' admin has no call for it), so that their partitions move at once.
 *
 * Heartbeat, SyncGroup and OffsetCommit go without the instance id, which the coordinator accepts from the current
 * member of that id.
 */
// kafkajs' modules are loaded below: Sluice's replacements must be in place first.
import './kafkajs';
import { BrokerUnavailable, UnsupportedKafkaClient } from '../../errors';
import { createCluster } from './cluster';
import type { KafkaClient, PartitionAssigner } from './types';

/** JoinGroup v5 (Kafka 2.3) is the first to carry group.instance.id. */
const FIRST_STATIC_JOIN_VERSION = 5;
const LEAVE_GROUP_API_KEY = 13;
/** LeaveGroup v3 (Kafka 2.4) is the first to name members by group.instance.id. */
const FIRST_STATIC_LEAVE_VERSION = 3;
/** A member named by its instance id alone: the coordinator removes whichever member holds that id. */
const UNKNOWN_MEMBER_ID = '';
const UNKNOWN_MEMBER_ID_ERROR = 25;
/** No such group, or (older brokers) a group without these members: nobody to remove. */
const NO_SUCH_GROUP_ERRORS = new Set([UNKNOWN_MEMBER_ID_ERROR, 69]);
/** The coordinator moved or is still loading: found again, and asked again. */
const COORDINATOR_ERRORS = new Set([14, 15, 16]);
const LEAVE_ATTEMPTS = 5;
const LEAVE_BACKOFF_MS = 200;

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

interface CoordinatorBroker {
  versions: Record<number, { maxVersion: number } | undefined>;
  connectionPool: { send(request: unknown): Promise<unknown> };
}

interface CoordinatorCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  findGroupCoordinator(args: { groupId: string }): Promise<CoordinatorBroker>;
}

interface LeaveGroupResponse {
  errorCode: number;
  members: { groupInstanceId: string | null; errorCode: number }[];
}

const createErrorFromCode: (code: number) => Error & { type: string } = require('kafkajs/src/protocol/error').createErrorFromCode;
const leaveGroupV3Request: (args: { groupId: string; members: { memberId: string; groupInstanceId: string }[] }) => unknown = require('kafkajs/src/protocol/requests/leaveGroup/v3/request');
const leaveGroupV3Response: { decode(body: Buffer): Promise<LeaveGroupResponse> } = require('kafkajs/src/protocol/requests/leaveGroup/v3/response');

/** What the coordinator did with each instance id. */
export interface RemovedMembers {
  /** Members that held these ids, now out of the group. */
  removed: string[];
  /** Ids no member held (already gone, or never joined). */
  absent: string[];
}

/**
 * Removes the members of `groupId` that joined as `instanceIds` (Kafka's RemoveMembersFromConsumerGroup), so that the
 * group rebalances at once instead of after their session.timeout.ms. Only for members that have stopped: a running
 * one would join again at its next heartbeat.
 */
export async function removeStaticMembers(kafka: KafkaClient, groupId: string, instanceIds: readonly string[]): Promise<RemovedMembers> {
  const cluster = createCluster<CoordinatorCluster>(kafka, { allowAutoTopicCreation: false });
  await cluster.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      const coordinator = await cluster.findGroupCoordinator({ groupId });
      const supported = coordinator.versions[LEAVE_GROUP_API_KEY]?.maxVersion ?? -1;
      if (supported < FIRST_STATIC_LEAVE_VERSION) {
        throw new UnsupportedKafkaClient(`removing static members needs LeaveGroup v${FIRST_STATIC_LEAVE_VERSION} (Kafka 2.4 or later); the broker offers v${supported}`);
      }
      const response = (await coordinator.connectionPool.send({
        request: leaveGroupV3Request({ groupId, members: instanceIds.map((groupInstanceId) => ({ memberId: UNKNOWN_MEMBER_ID, groupInstanceId })) }),
        response: { decode: (body: Buffer) => leaveGroupV3Response.decode(body), parse: (data: unknown) => data },
      })) as LeaveGroupResponse;
      if (response.errorCode === 0) return removedMembers(response);
      if (NO_SUCH_GROUP_ERRORS.has(response.errorCode)) return { removed: [], absent: [...instanceIds] };
      if (!COORDINATOR_ERRORS.has(response.errorCode) || attempt === LEAVE_ATTEMPTS) {
        throw new BrokerUnavailable(`removing members ${instanceIds.join(', ')} from group ${groupId} failed: ${createErrorFromCode(response.errorCode).message}`);
      }
      await cluster.refreshMetadata();
      await new Promise((resolve) => setTimeout(resolve, LEAVE_BACKOFF_MS * attempt));
    }
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

function removedMembers(response: LeaveGroupResponse): RemovedMembers {
  const result: RemovedMembers = { removed: [], absent: [] };
  for (const member of response.members) {
    const id = member.groupInstanceId ?? '';
    if (member.errorCode === 0) result.removed.push(id);
    else if (member.errorCode === UNKNOWN_MEMBER_ID_ERROR) result.absent.push(id);
    else throw new BrokerUnavailable(`removing member ${id} failed: ${createErrorFromCode(member.errorCode).message}`);
  }
  return result;
}
