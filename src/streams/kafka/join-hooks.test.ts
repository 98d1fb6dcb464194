// kafkajs' ConsumerGroup as Sluice runs it: the one kafkajs.ts installs.
import './kafkajs';
import { withJoinHooks, type JoinHooks } from './join-hooks';
import type { PartitionAssigner } from './types';

interface GroupUnderTest {
  memberId: string | null;
  generationId: number;
  lastRequest: number;
  coordinator: { heartbeat(payload: object): Promise<void>; leaveGroup(payload: object): Promise<void> };
  heartbeat(options: { interval: number }): Promise<void>;
  leave(): Promise<void>;
}

const assigner: PartitionAssigner = () => ({ name: 'test', version: 1, assign: async () => [], protocol: () => ({ name: 'test', metadata: Buffer.alloc(0) }) });
const hookedAssigner = (hooks: JoinHooks) => withJoinHooks(assigner, hooks)({} as Parameters<PartitionAssigner>[0]);

/** kafkajs' own ConsumerGroup, joined as member `m`, whose coordinator records the heartbeats and leaves it is sent. */
function joinedGroup(hooks: JoinHooks): { group: GroupUnderTest; heartbeats: object[]; leaves: object[] } {
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as new (args: object) => GroupUnderTest;
  const group = new ConsumerGroup({ groupId: 'g', topics: [], logger: { namespace: () => ({}) }, instrumentationEmitter: { emit: () => undefined }, assigners: [hookedAssigner(hooks)], retry: {}, cluster: {} });
  const heartbeats: object[] = [];
  const leaves: object[] = [];
  group.memberId = 'm';
  group.generationId = 1;
  group.coordinator = { heartbeat: async (payload) => void heartbeats.push(payload), leaveGroup: async (payload) => void leaves.push(payload) };
  return { group, heartbeats, leaves };
}

describe('join hooks around kafkajs’ consumer group', () => {
  it('tells the generation a join brought before kafkajs’ join event, which does not carry it', async () => {
    const told: string[] = [];
    const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as new (args: object) => { joinAndSync(): Promise<void> };
    const coordinator = {
      joinGroup: async () => ({ generationId: 7, leaderId: 'leader', memberId: 'm', members: [], groupProtocol: 'test' }),
      syncGroup: async () => ({ memberAssignment: Buffer.alloc(0) }),
    };
    const quiet = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
    const group = new ConsumerGroup({
      groupId: 'g',
      topics: [],
      logger: { namespace: () => quiet },
      instrumentationEmitter: { emit: (event: string) => void told.push(event) },
      assigners: [hookedAssigner({ joined: (generation) => void told.push(`generation ${generation}`) })],
      retry: { retries: 0 },
      cluster: { findGroupCoordinator: async () => coordinator, committedOffsets: () => ({}) },
    });
    await group.joinAndSync();
    expect(told).toEqual(['generation 7', 'consumer.group_join']);
  });

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

  it('keeps a static member in the group as it stops, and lets it leave when the hook no longer keeps it', async () => {
    let staying = true;
    const { group, leaves } = joinedGroup({ groupInstanceId: 'app-1', staysInGroup: (memberId) => staying && memberId === 'm' });
    await group.leave();
    expect([leaves, group.memberId]).toEqual([[], null]);
    staying = false;
    group.memberId = 'm';
    await group.leave();
    expect([leaves, group.memberId]).toEqual([[{ groupId: 'g', memberId: 'm' }], null]);
  });
});

describe('JoinGroup of a static member', () => {
  type JoinGroupRequest = (args: object) => { request: { encode(): Promise<{ buffer: Buffer }> } };
  const { JoinGroup } = (require('kafkajs/src/protocol/requests') as { requests: { JoinGroup: { protocol(args: { version: number }): JoinGroupRequest } } }).requests;
  const kafkajsV5 = require('kafkajs/src/protocol/requests/joinGroup/v5/request') as (args: object) => { encode(): Promise<{ buffer: Buffer }> };
  const join = { groupId: 'g', sessionTimeout: 10_000, rebalanceTimeout: 60_000, memberId: '', protocolType: 'consumer' };

  it('carries the instance id its assigner hands over with its protocol, and none for a dynamic member', async () => {
    const staticProtocol = hookedAssigner({ groupInstanceId: 'app-1' }).protocol({ topics: ['t'] });
    const ours = await JoinGroup.protocol({ version: 5 })({ ...join, groupProtocols: [staticProtocol] }).request.encode();
    const theirs = await kafkajsV5({ ...join, groupInstanceId: 'app-1', groupProtocols: [{ name: 'test', metadata: Buffer.alloc(0) }] }).encode();
    expect(ours.buffer.equals(theirs.buffer)).toBe(true);

    const dynamicProtocol = hookedAssigner({}).protocol({ topics: ['t'] });
    const dynamic = await JoinGroup.protocol({ version: 5 })({ ...join, groupProtocols: [dynamicProtocol] }).request.encode();
    expect(dynamic.buffer.equals((await kafkajsV5({ ...join, groupProtocols: [dynamicProtocol] }).encode()).buffer)).toBe(true);
  });

  it('refuses an instance id for a broker without JoinGroup v5', () => {
    const staticProtocol = hookedAssigner({ groupInstanceId: 'app-1' }).protocol({ topics: ['t'] });
    expect(() => JoinGroup.protocol({ version: 4 })({ ...join, groupProtocols: [staticProtocol] })).toThrow(/group\.instance\.id needs JoinGroup v5/);
  });
});

