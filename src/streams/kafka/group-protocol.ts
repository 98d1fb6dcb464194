/**
 * Consumer-group protocol plumbing for the Sluice assignor: kafkajs' `PartitionAssigner` built from two
 * callbacks (the subscription userData each member sends, and the leader's decision), and the read-back of
 * the whole group with `describeGroups`, which is how every member learns the others' endpoints and
 * partitions (kafkajs hands assignment userData to no one but the leader).
 */
import { AssignerProtocol } from './kafkajs';
import type { PartitionAssigner } from 'kafkajs';
import type { TopicPartition } from './topic-partition';
import type { KafkaAdmin } from './types';


export interface JoiningMember {
  memberId: string;
  userData: Buffer;
}

export interface GroupProtocolOptions {
  /** Protocol name; every member of the group must use the same. */
  name: string;
  version: number;
  /** Subscription userData of this member; called (synchronously) on every join. */
  userData: () => Buffer;
  /** The leader's decision per member id, from the topics the members subscribed to. */
  assign: (members: JoiningMember[], partitionCount: (topic: string) => number, topics: readonly string[]) => Map<string, MemberAssignment> | Promise<Map<string, MemberAssignment>>;
}

/** What the leader gives one member: its partitions, and userData the others read with describeGroup. */
export interface MemberAssignment {
  partitions: TopicPartition[];
  userData?: Buffer;
}

export function groupProtocolAssigner(options: GroupProtocolOptions): PartitionAssigner {
  return ({ cluster }) => ({
    name: options.name,
    version: options.version,
    protocol: ({ topics }) => ({
      name: options.name,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: options.version, topics, userData: options.userData() }),
    }),
    assign: async ({ members, topics }) => {
      await cluster.refreshMetadata();
      const partitionCount = (topic: string): number => {
        if (!topics.includes(topic)) return 0;
        try {
          return cluster.findTopicPartitionMetadata(topic).length;
        } catch {
          return 0;
        }
      };
      const joining = members.map((m) => ({
        memberId: m.memberId,
        userData: AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.userData ?? Buffer.alloc(0),
      }));
      const decision = await options.assign(joining, partitionCount, topics);
      return members.map((m) => {
        const assignment: Record<string, number[]> = {};
        const decided = decision.get(m.memberId);
        for (const { topic, partition } of decided?.partitions ?? []) (assignment[topic] ??= []).push(partition);
        return {
          memberId: m.memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: options.version, assignment, userData: decided?.userData ?? Buffer.alloc(0) }),
        };
      });
    },
  });
}

export interface GroupMemberState {
  memberId: string;
  clientId: string;
  clientHost: string;
  userData: Buffer;
  partitions: TopicPartition[];
  /** The userData of the member's assignment (empty when none). */
  assignmentUserData: Buffer;
}

export interface GroupState {
  groupId: string;
  state: string;
  protocol: string;
  members: GroupMemberState[];
}

/** The group as the coordinator sees it: every member's subscription userData and assigned partitions. */
export async function describeGroup(admin: KafkaAdmin, groupId: string): Promise<GroupState> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  if (!group) return { groupId, state: 'Dead', protocol: '', members: [] };
  return {
    groupId,
    state: group.state,
    protocol: group.protocol,
    members: group.members.map((m) => {
      const metadata = m.memberMetadata.length > 0 ? AssignerProtocol.MemberMetadata.decode(m.memberMetadata) : null;
      const assignment = m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      const partitions: TopicPartition[] = [];
      for (const [topic, list] of Object.entries(assignment?.assignment ?? {})) {
        for (const partition of list) partitions.push({ topic, partition });
      }
      return {
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        userData: metadata?.userData ?? Buffer.alloc(0),
        partitions,
        assignmentUserData: assignment?.userData ?? Buffer.alloc(0),
      };
    }),
  };
}
