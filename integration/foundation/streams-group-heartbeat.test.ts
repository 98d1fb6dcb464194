/**
 * StreamsGroupHeartbeat (KIP-1071) against the broker: the broker decoding Sluice's request, and Sluice its answer,
 * is the check of both encodings. On a broker whose ApiVersions answer lacks API key 88 (Kafka 3.9), every test
 * checks instead that Sluice refuses the heartbeat, saying the broker does not offer the protocol.
 */
import { randomUUID } from 'node:crypto';
import { StreamsGroupNotFound, StreamsMemberFenced, StreamsProtocolUnsupported, StreamsTopologyRejected } from '../../src/errors';
import {
  createTopics,
  describeTopics,
  isGroupMembershipError,
  JOIN_EPOCH,
  LEAVE_EPOCH,
  StreamsGroupHeartbeats,
  type StreamsEndpoint,
  type StreamsEndpointPartitions,
  type StreamsGroupHeartbeatResponse,
  StreamsGroupStatusCode,
  type StreamsSubtopology,
  type StreamsTaskIds,
  type StreamsTopology,
} from '../../src/streams/kafka';
import { StreamsBuilder } from '../../src/streams/kstream/streams-builder';
import { Serdes } from '../../src/streams/serdes/serdes';
import { describeStreamsTopology } from '../../src/streams/runtime/streams-group-topology';
import { TopologyMetadata } from '../../src/streams/runtime/topology-metadata';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const groups: StreamsGroupHeartbeats[] = [];
afterAll(async () => {
  await Promise.allSettled(groups.map((group) => group.close()));
  await clients.close();
});

/** How often a member heartbeats here: faster than the broker's interval (5 s), which the coordinator accepts. */
const HEARTBEAT_MS = 200;
/** Enough for the coordinator's first assignment (its initial rebalance delay, 3 s by default) and a reconciliation. */
const SETTLE_MS = 60_000;

function heartbeats(groupId: string): StreamsGroupHeartbeats {
  const group = new StreamsGroupHeartbeats(clients.kafka, groupId);
  groups.push(group);
  return group;
}

/** A test of the protocol; on a broker without it, the check that Sluice refuses to join, saying why. */
function streamsIt(name: string, test: () => Promise<void>): void {
  it(name, async () => {
    const probe = heartbeats(uniqueName('probe'));
    if (await probe.offered()) return test();
    const join = probe.heartbeat({ memberId: randomUUID(), memberEpoch: JOIN_EPOCH, endpointInformationEpoch: 0, topology: { epoch: 0, subtopologies: [] } });
    await expect(join).rejects.toThrow(StreamsProtocolUnsupported);
    await expect(join).rejects.toThrow(/does not offer StreamsGroupHeartbeat \(API key 88\)/);
  });
}

function subtopology(id: string, parts: Partial<StreamsSubtopology>): StreamsSubtopology {
  return {
    subtopologyId: id,
    sourceTopics: [],
    sourceTopicRegex: [],
    stateChangelogTopics: [],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
    ...parts,
  };
}

/**
 * One member as the runtime will drive it: joins with its topology, takes the tasks assigned at once (it has nothing
 * to restore or revoke) and reports them as owned with its next heartbeat, as the reconciliation of KIP-1071 asks.
 */
class Member {
  readonly memberId = randomUUID();
  readonly processId = randomUUID();
  epoch = JOIN_EPOCH;
  active: StreamsTaskIds[] = [];
  endpoints: StreamsEndpointPartitions[] = [];
  /** The group's status as last reported (a null status: unchanged). */
  statusCodes: number[] = [];
  private endpointEpoch = 0;

  constructor(
    private readonly group: StreamsGroupHeartbeats,
    private readonly topology: StreamsTopology,
    readonly endpoint: StreamsEndpoint | null,
  ) {}

  async heartbeat(): Promise<StreamsGroupHeartbeatResponse> {
    const joining = this.epoch === JOIN_EPOCH;
    const response = await this.group.heartbeat({
      memberId: this.memberId,
      memberEpoch: this.epoch,
      endpointInformationEpoch: this.endpointEpoch,
      activeTasks: this.active,
      standbyTasks: [],
      warmupTasks: [],
      ...(joining ? { topology: this.topology, rebalanceTimeoutMs: 30_000, processId: this.processId, userEndpoint: this.endpoint } : {}),
    });
    this.epoch = response.memberEpoch;
    this.endpointEpoch = response.endpointInformationEpoch;
    if (response.activeTasks !== null) this.active = response.activeTasks;
    if (response.partitionsByUserEndpoint !== null) this.endpoints = response.partitionsByUserEndpoint;
    if (response.status !== null) this.statusCodes = response.status.map((s) => s.statusCode);
    return response;
  }

  async leave(): Promise<StreamsGroupHeartbeatResponse> {
    return this.group.heartbeat({ memberId: this.memberId, memberEpoch: LEAVE_EPOCH, endpointInformationEpoch: this.endpointEpoch });
  }

  /** The partitions of sub-topology `id` that this member holds as active tasks, sorted. */
  partitions(id: string): number[] {
    return [...(this.active.find((t) => t.subtopologyId === id)?.partitions ?? [])].sort((a, b) => a - b);
  }
}

/** Heartbeats every member, every HEARTBEAT_MS, until `settled` holds; fails with the members' view otherwise. */
async function heartbeatUntil(members: readonly Member[], settled: () => boolean): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    for (const member of members) await member.heartbeat();
    if (settled()) return;
    if (Date.now() > deadline) {
      throw new Error(`not settled within ${SETTLE_MS} ms: ${JSON.stringify(members.map((m) => ({ epoch: m.epoch, active: m.active, endpoints: m.endpoints })))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS));
  }
}

streamsIt('assigns a 4-partition topic to one member, then splits it with a second; both leave', async () => {
  const topic = uniqueName('streams-in');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 4 }]);
  const group = heartbeats(uniqueName('streams-app'));
  const topology: StreamsTopology = { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: [topic] })] };
  const first = new Member(group, topology, { host: 'localhost', port: 8080 });

  const joined = await first.heartbeat();
  expect(joined.errorCode).toBe(0);
  expect(joined.memberId).toBe(first.memberId);
  expect(joined.memberEpoch).toBeGreaterThanOrEqual(1);
  expect(joined.heartbeatIntervalMs).toBeGreaterThan(0);

  await heartbeatUntil([first], () => first.partitions('0').length === 4 && first.endpoints.length === 1);
  expect(first.active).toEqual([{ subtopologyId: '0', partitions: expect.arrayContaining([0, 1, 2, 3]) }]);
  expect(first.endpoints).toEqual([
    { userEndpoint: { host: 'localhost', port: 8080 }, activePartitions: [{ topic, partitions: expect.arrayContaining([0, 1, 2, 3]) }], standbyPartitions: [] },
  ]);

  const second = new Member(group, topology, { host: 'localhost', port: 8081 });
  const members = [first, second];
  await heartbeatUntil(members, () => first.partitions('0').length > 0 && second.partitions('0').length > 0 && first.partitions('0').length + second.partitions('0').length === 4);
  expect([...first.partitions('0'), ...second.partitions('0')].sort()).toEqual([0, 1, 2, 3]);
  // Each member then learns where every partition is: both endpoints, each with its member's partitions.
  await heartbeatUntil(members, () => second.endpoints.length === 2);
  const byPort = (endpoints: StreamsEndpointPartitions[]) =>
    Object.fromEntries(endpoints.map((e) => [e.userEndpoint.port, e.activePartitions.flatMap((p) => (p.topic === topic ? p.partitions : [])).sort()]));
  expect(byPort(second.endpoints)).toEqual({ 8080: first.partitions('0'), 8081: second.partitions('0') });

  for (const member of members) {
    const left = await member.leave();
    expect(left.errorCode).toBe(0);
    expect(left.memberEpoch).toBe(LEAVE_EPOCH);
  }
});

streamsIt('reports a repartition topic missing until the coordinator created it, and a missing source topic, in the group status', async () => {
  const topic = uniqueName('streams-in');
  const missing = uniqueName('streams-absent');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 4 }]);
  const group = heartbeats(uniqueName('streams-app'));
  const repartition = `${group.groupId}-by-key-repartition`;
  const topology: StreamsTopology = {
    epoch: 0,
    subtopologies: [
      subtopology('0', { sourceTopics: [topic], repartitionSinkTopics: [repartition] }),
      subtopology('1', { repartitionSourceTopics: [{ name: repartition, partitions: 4, replicationFactor: 0, topicConfigs: [] }] }),
    ],
  };
  const member = new Member(group, topology, { host: 'localhost', port: 8080 });
  const joined = await member.heartbeat();
  expect(joined.status).toEqual(expect.arrayContaining([{ statusCode: StreamsGroupStatusCode.MISSING_INTERNAL_TOPICS, statusDetail: `Internal topics are missing: ${repartition}` }]));
  // The coordinator creates them: a later heartbeat no longer reports them missing.
  await heartbeatUntil([member], () => !member.statusCodes.includes(StreamsGroupStatusCode.MISSING_INTERNAL_TOPICS));
  await member.leave();

  // Without an endpoint: Kafka 4.2.2 answers a join with one, whose source topic is missing, with UNKNOWN_SERVER_ERROR.
  const other = new Member(heartbeats(uniqueName('streams-app')), { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: [missing] })] }, null);
  const orphan = await other.heartbeat();
  expect(orphan.status).toEqual(expect.arrayContaining([{ statusCode: StreamsGroupStatusCode.MISSING_SOURCE_TOPICS, statusDetail: `Source topics ${missing} are missing.` }]));
  expect(orphan.activeTasks).toEqual([]);
  await other.leave();
});

streamsIt("raises the coordinator's refusals as Sluice errors: a topology, a group, a member epoch", async () => {
  const topic = uniqueName('streams-in');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 4 }]);
  const group = heartbeats(uniqueName('streams-app'));
  const changelog = `${group.groupId}-store-changelog`;
  const withPartitionedChangelog: StreamsTopology = {
    epoch: 0,
    subtopologies: [subtopology('0', { sourceTopics: [topic], stateChangelogTopics: [{ name: changelog, partitions: 4, replicationFactor: 0, topicConfigs: [] }] })],
  };
  const refused = new Member(group, withPartitionedChangelog, { host: 'localhost', port: 8080 }).heartbeat();
  await expect(refused).rejects.toThrow(StreamsTopologyRejected);
  await expect(refused).rejects.toThrow(`Changelog topic ${changelog} must have an undefined partition count`);

  const unknownGroup = heartbeats(uniqueName('streams-app'));
  const notJoined = unknownGroup.heartbeat({ memberId: randomUUID(), memberEpoch: 1, endpointInformationEpoch: 0 });
  await expect(notJoined).rejects.toThrow(StreamsGroupNotFound);

  const member = new Member(group, { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: [topic] })] }, { host: 'localhost', port: 8080 });
  const { memberEpoch } = await member.heartbeat();
  const stale = group.heartbeat({ memberId: member.memberId, memberEpoch: memberEpoch + 1, endpointInformationEpoch: 0 });
  await expect(stale).rejects.toThrow(StreamsMemberFenced);
  await expect(stale).rejects.toThrow(/FENCED_MEMBER_EPOCH/);
  await member.leave();
});

streamsIt("takes the word count's topology as Sluice describes it: creates its repartition topic and changelog, sized from the source, and assigns both sub-topologies' tasks", async () => {
  const lines = uniqueName('streams-lines');
  await createTopics(await clients.admin(), [{ name: lines, partitions: 3 }]);
  const group = heartbeats(uniqueName('streams-wc'));
  const strings = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>(lines, strings)
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, word) => word, strings)
    .count()
    .toStream()
    .to(uniqueName('streams-counts'));
  const topology = describeStreamsTopology(new TopologyMetadata(builder.build(), group.groupId), { replicationFactor: -1, topicConfigs: {} });
  const member = new Member(group, topology, { host: 'localhost', port: 8080 });
  await heartbeatUntil([member], () => member.partitions('0').length === 3 && member.partitions('1').length === 3);
  expect(member.statusCodes).toEqual([]);
  const [, counting] = topology.subtopologies;
  const internal = [counting!.repartitionSourceTopics[0]!.name, counting!.stateChangelogTopics[0]!.name];
  const created = await describeTopics(await clients.admin(), internal);
  expect(Object.fromEntries(created.map((t) => [t.name, t.partitions.length]))).toEqual(Object.fromEntries(internal.map((name) => [name, 3])));
  await member.leave();
});

streamsIt('commits offsets as a member at its epoch (OffsetCommit v9), and refuses a commit at another epoch as a lost membership', async () => {
  const topic = uniqueName('streams-in');
  await createTopics(await clients.admin(), [{ name: topic, partitions: 2 }]);
  const group = heartbeats(uniqueName('streams-app'));
  const member = new Member(group, { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: [topic] })] }, { host: 'localhost', port: 8080 });
  await heartbeatUntil([member], () => member.partitions('0').length === 2);
  await group.commitOffsets(member.memberId, member.epoch, [
    { topic, partition: 0, offset: 42 },
    { topic, partition: 1, offset: 7 },
  ]);
  const committed = await (await clients.admin()).fetchOffsets({ groupId: group.groupId, topics: [topic] });
  expect(committed[0]!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([
    [0, '42'],
    [1, '7'],
  ]);
  const stale = group.commitOffsets(member.memberId, member.epoch + 1, [{ topic, partition: 0, offset: 50 }]);
  await expect(stale).rejects.toThrow(StreamsMemberFenced);
  // Kafka 4.2.2 answers an epoch ahead of the member's STALE_MEMBER_EPOCH: the committer's "the group is rebalancing".
  await expect(stale).rejects.toThrow(/STALE_MEMBER_EPOCH/);
  expect(isGroupMembershipError(await stale.catch((error: unknown) => error))).toBe(true);
  await member.leave();
});
