import { withJoinHooks, type JoinHooks } from './join-hooks';
import type { PartitionAssigner } from './types';

interface GroupUnderTest {
  memberId: string;
  generationId: number;
  lastRequest: number;
  coordinator: { heartbeat(payload: object): Promise<void> };
  heartbeat(options: { interval: number }): Promise<void>;
}

/** kafkajs' own ConsumerGroup, joined as member `m`, whose coordinator records the heartbeats it is sent. */
function joinedGroup(hooks: JoinHooks): { group: GroupUnderTest; heartbeats: object[] } {
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as new (args: object) => GroupUnderTest;
  const assigner: PartitionAssigner = () => ({ name: 'test', version: 1, assign: async () => [], protocol: () => ({ name: 'test', metadata: Buffer.alloc(0) }) });
  const hooked = withJoinHooks(assigner, hooks)({} as Parameters<PartitionAssigner>[0]);
  const group = new ConsumerGroup({ groupId: 'g', topics: [], logger: { namespace: () => ({}) }, instrumentationEmitter: { emit: () => undefined }, assigners: [hooked], retry: {}, cluster: {} });
  const heartbeats: object[] = [];
  group.memberId = 'm';
  group.generationId = 1;
  group.coordinator = { heartbeat: async (payload) => void heartbeats.push(payload) };
  return { group, heartbeats };
}

describe('join hooks around kafkajs’ consumer group', () => {
  it('heartbeats at the shorter interval the hook asks for, and at the consumer’s own once it asks for none', async () => {
    let eager: number | undefined = 100;
    const { group, heartbeats } = joinedGroup({ heartbeatIntervalMs: () => eager });
    group.lastRequest = Date.now() - 500;
    await group.heartbeat({ interval: 3_000 });
    expect(heartbeats).toEqual([{ groupId: 'g', memberId: 'm', groupGenerationId: 1 }]);
    eager = undefined;
    group.lastRequest = Date.now() - 500;
    await group.heartbeat({ interval: 3_000 });
    expect(heartbeats).toHaveLength(1);
  });

  it('answers a heartbeat with a rebalance when the member asked to join again', async () => {
    let rejoin = true;
    const { group, heartbeats } = joinedGroup({ rejoinRequested: () => rejoin });
    await expect(group.heartbeat({ interval: 0 })).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    rejoin = false;
    await group.heartbeat({ interval: 0 });
    expect(heartbeats).toHaveLength(1);
  });
});
