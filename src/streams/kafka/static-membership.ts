/**
 * Static membership (KIP-345, `group.instance.id`) for kafkajs 2.2.4, which has JoinGroup v5's field but never
 * fills it, and always leaves the group when a consumer stops. A member's own part goes through its join hooks
 * (join-hooks.ts): its instance id reaches its JoinGroup requests, and as the Java consumer it sends no LeaveGroup
 * when it stops unless told to, so that the coordinator keeps its partitions for `session.timeout.ms` and a member
 * that comes back with the same id within it gets them back without a rebalance. Heartbeat, SyncGroup and
 * OffsetCommit go without the instance id, which the coordinator accepts from the current member of that id.
 *
 * Here: removing stopped members by instance id, as Kafka Streams' close with leaveGroup does through the admin's
 * removeMembersFromConsumerGroup, so that their partitions move at once.
 */
import { BrokerUnavailable } from '../../errors';
import { createCluster, createErrorFromCode, type LeaveGroupResponse, sendLeaveGroup } from './broker-requests';
import type { KafkaClient } from './types';

const UNKNOWN_MEMBER_ID_ERROR = 25;
/** No such group, or (older brokers) a group without these members: nobody to remove. */
const NO_SUCH_GROUP_ERRORS = new Set([UNKNOWN_MEMBER_ID_ERROR, 69]);
/** The coordinator moved or is still loading: found again, and asked again. */
const COORDINATOR_ERRORS = new Set([14, 15, 16]);
const LEAVE_ATTEMPTS = 5;
const LEAVE_BACKOFF_MS = 200;

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
  const cluster = createCluster(kafka, { allowAutoTopicCreation: false });
  await cluster.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      const response = await sendLeaveGroup(await cluster.findGroupCoordinator({ groupId }), groupId, instanceIds);
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
