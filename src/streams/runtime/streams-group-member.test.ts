import pino from 'pino';
import { ConfigException, StreamsMemberFenced, StreamsProtocolUnsupported } from '../../errors';
import type { FetchedPartition, ReadPosition, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse, TopicPartition } from '../kafka';
import { type KafkaClients, streamsGroupHeartbeatError, StreamsGroupStatusCode } from '../kafka';
import { StreamsBuilder } from '../kstream/streams-builder';
import { Serdes } from '../serdes/serdes';
import { parseStreamsConfig } from './streams-config';
import { type InputReader, type MemberCoordinator, StreamsGroupMember, streamsGroupThreadClients, type StreamsMemberParts } from './streams-group-member';
import type { ConsumerHandlers, ThreadBatch } from './thread-clients';
import { TopologyMetadata } from './topology-metadata';

const config = parseStreamsConfig({ 'application.id': 'app', 'bootstrap.servers': 'k:9092', 'application.server': 'node-a:8080', 'group.protocol': 'streams' });
const builder = new StreamsBuilder();
builder.stream<string, string>('in', { keySerde: Serdes.String(), valueSerde: Serdes.String() }).to('out');
const metadata = new TopologyMetadata(builder.build(), 'app');
const TOPOLOGY = { epoch: 0, subtopologies: [] };

function response(parts: Partial<StreamsGroupHeartbeatResponse>): StreamsGroupHeartbeatResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId: 'm',
    memberEpoch: 1,
    heartbeatIntervalMs: 5,
    acceptableRecoveryLag: 0,
    taskOffsetIntervalMs: 0,
    status: null,
    activeTasks: null,
    standbyTasks: null,
    warmupTasks: null,
    endpointInformationEpoch: 0,
    partitionsByUserEndpoint: null,
    ...parts,
  };
}

async function waitFor(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A member on a scripted coordinator (`answer` per request) and reader, with a thread that records what it is told. */
function member(answer: (request: Omit<StreamsGroupHeartbeatRequest, 'groupId'>, n: number) => StreamsGroupHeartbeatResponse | Error) {
  const requests: Omit<StreamsGroupHeartbeatRequest, 'groupId'>[] = [];
  const events: string[] = [];
  const coordinator: MemberCoordinator = {
    heartbeat: jest.fn(async (request) => {
      requests.push(request);
      const answered = answer(request, requests.length);
      if (answered instanceof Error) throw answered;
      return answered;
    }),
    commitOffsets: jest.fn(async () => undefined),
    close: jest.fn(async () => undefined),
  };
  const fetches: ReadPosition[][] = [];
  const reader: InputReader = {
    fetch: jest.fn(async (positions: readonly ReadPosition[]): Promise<FetchedPartition[]> => {
      fetches.push([...positions]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      // Each read brings one record set of 10 offsets from where it was asked.
      return positions.map((p) => ({ ...p, errorCode: 0, highWatermark: 1000, lastStableOffset: 1000, logStartOffset: 0, endOffset: 1000, fetchOffset: p.offset, nextOffset: p.offset + 10, records: [] as never, batch: { topic: p.topic, partition: p.partition } as ThreadBatch['batch'] }));
    }),
    close: jest.fn(async () => undefined),
  };
  const endpoints: unknown[] = [];
  const parts: StreamsMemberParts = {
    config,
    metadata,
    partitionCounts: new Map([['in', 2]]),
    processId: 'process-1',
    committedOffsets: async (partitions) => partitions.map((tp) => ({ tp, offset: 100 + tp.partition })),
    onEndpoints: (e) => endpoints.push(e),
    onShutdownRequested: jest.fn(),
  };
  const hooks = { userData: () => Buffer.alloc(0), beforeJoin: jest.fn(async () => void events.push('commit')), active: () => true, onGroupWait: jest.fn(), logger: pino({ level: 'silent' }) };
  const batches: { tp: TopicPartition }[] = [];
  let pauseNext = false;
  const handlers: ConsumerHandlers = {
    onBatch: jest.fn(async (payload: ThreadBatch) => {
      batches.push({ tp: { topic: payload.batch.topic, partition: payload.batch.partition } });
      if (pauseNext) {
        pauseNext = false;
        payload.pause();
      }
    }),
    onAssignment: jest.fn(async (assigned: TopicPartition[], lost: boolean) => void events.push(`assign ${lost ? 'lost ' : ''}${assigned.map((tp) => `${tp.topic}-${tp.partition}`).join(',')}`)),
    onRebalancing: jest.fn(),
    onFatal: jest.fn(),
    onRestart: jest.fn(),
  };
  const subject = new StreamsGroupMember(coordinator, reader, parts, TOPOLOGY, hooks);
  return { subject, requests, events, coordinator, reader, fetches, handlers, hooks, parts, batches, endpoints, pause: () => (pauseNext = true) };
}

describe('StreamsGroupMember', () => {
  it('joins at epoch 0 with its topology, process and endpoint, applies the assigned tasks, then reports them as owned at its epoch', async () => {
    const m = member((_request, n) => response({ memberEpoch: n + 1, activeTasks: n === 1 ? [{ subtopologyId: '0', partitions: [0, 1] }] : null }));
    await m.subject.start(m.handlers);
    expect(m.requests[0]).toMatchObject({ memberEpoch: 0, topology: TOPOLOGY, processId: 'process-1', userEndpoint: { host: 'node-a', port: 8080 }, activeTasks: [] });
    expect(m.events).toEqual(['assign in-0,in-1']);
    await waitFor(() => m.requests.length >= 2);
    expect(m.requests[1]).toMatchObject({ memberId: m.requests[0]!.memberId, memberEpoch: 2, activeTasks: [{ subtopologyId: '0', partitions: [0, 1] }] });
    expect(m.requests[1]!.topology).toBeUndefined();
    await m.subject.disconnect();
    expect(m.requests.at(-1)).toMatchObject({ memberEpoch: -1 });
  });

  it('reads its partitions from the committed offsets, and a batch the thread paused again from there once resumed', async () => {
    const m = member(() => response({ activeTasks: [{ subtopologyId: '0', partitions: [1] }] }));
    m.pause();
    await m.subject.start(m.handlers);
    try {
      await waitFor(() => m.batches.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(m.fetches).toEqual([[{ topic: 'in', partition: 1, offset: 101 }]]);
      m.subject.resume([{ topic: 'in', partition: 1 }]);
      await waitFor(() => m.fetches.length >= 3);
      expect(m.fetches.slice(1, 3)).toEqual([[{ topic: 'in', partition: 1, offset: 101 }], [{ topic: 'in', partition: 1, offset: 111 }]]);
    } finally {
      await m.subject.disconnect();
    }
  });

  it('goes on from past what the thread took, and commits at its epoch', async () => {
    const m = member(() => response({ activeTasks: [{ subtopologyId: '0', partitions: [0] }] }));
    await m.subject.start(m.handlers);
    await waitFor(() => m.fetches.length >= 3);
    await m.subject.commitOffsets([{ topic: 'in', partition: 0, offset: 120 }]);
    await m.subject.disconnect();
    expect(m.fetches.slice(0, 3).map((f) => f[0]!.offset)).toEqual([100, 110, 120]);
    // At the member's epoch, under its own member id.
    expect(m.coordinator.commitOffsets).toHaveBeenCalledWith(m.requests[0]!.memberId, 1, [{ topic: 'in', partition: 0, offset: 120 }]);
  });

  it('commits before it gives tasks up, and reports only the tasks it kept', async () => {
    const m = member((_request, n) => response({ memberEpoch: n, activeTasks: n === 1 ? [{ subtopologyId: '0', partitions: [0, 1] }] : n === 2 ? [{ subtopologyId: '0', partitions: [1] }] : null }));
    await m.subject.start(m.handlers);
    await waitFor(() => m.requests.length >= 3);
    await m.subject.disconnect();
    expect(m.events).toEqual(['assign in-0,in-1', 'commit', 'assign in-1']);
    expect(m.requests[2]).toMatchObject({ activeTasks: [{ subtopologyId: '0', partitions: [1] }] });
  });

  it('fenced, drops its tasks as lost and joins again at epoch 0 under the same member id', async () => {
    const m = member((_request, n) => (n === 2 ? new StreamsMemberFenced('app', 'FENCED_MEMBER_EPOCH') : response({ memberEpoch: 5, activeTasks: n === 1 ? [{ subtopologyId: '0', partitions: [0] }] : null })));
    await m.subject.start(m.handlers);
    await waitFor(() => m.requests.length >= 3);
    await m.subject.disconnect();
    expect(m.events.slice(0, 2)).toEqual(['assign in-0', 'assign lost ']);
    expect(m.requests[2]).toMatchObject({ memberId: m.requests[0]!.memberId, memberEpoch: 0, topology: TOPOLOGY, activeTasks: [] });
  });

  it('hands the partitions by endpoint over for the host map, and fails the thread on an error that no retry cures', async () => {
    const endpoints = [{ userEndpoint: { host: 'node-a', port: 8080 }, activePartitions: [{ topic: 'in', partitions: [0] }], standbyPartitions: [] }];
    const refused = new ConfigException('no');
    const m = member((_request, n) => (n === 2 ? refused : response({ endpointInformationEpoch: 3, partitionsByUserEndpoint: endpoints })));
    await m.subject.start(m.handlers);
    await waitFor(() => (m.handlers.onFatal as jest.Mock).mock.calls.length === 1);
    expect(m.endpoints).toEqual([endpoints]);
    expect(m.handlers.onFatal).toHaveBeenCalledWith(refused);
    await m.subject.disconnect();
  });

  it('rides out a coordinator not ready at its join or failing it once, and refuses to start on a broker without the protocol', async () => {
    const loading = member((_request, n) => (n === 1 ? streamsGroupHeartbeatError('app', 14, null) : response({ activeTasks: [{ subtopologyId: '0', partitions: [0] }] })));
    await loading.subject.start(loading.handlers);
    await waitFor(() => loading.events.length === 1);
    await loading.subject.disconnect();
    expect(loading.requests[1]).toMatchObject({ memberEpoch: 0, topology: TOPOLOGY });

    // Kafka 4.2.2 fails some first joins of a group another member just created: joined again, once.
    const failedJoin = member((_request, n) => (n === 1 ? streamsGroupHeartbeatError('app', -1, null) : response({ activeTasks: [{ subtopologyId: '0', partitions: [1] }] })));
    await failedJoin.subject.start(failedJoin.handlers);
    await waitFor(() => failedJoin.events.length === 1);
    await failedJoin.subject.disconnect();
    expect(failedJoin.requests[1]).toMatchObject({ memberEpoch: 0, topology: TOPOLOGY });

    const unsupported = new StreamsProtocolUnsupported('the group coordinator does not offer StreamsGroupHeartbeat (API key 88)');
    const old = member(() => unsupported);
    await expect(old.subject.start(old.handlers)).rejects.toThrow(unsupported);
    await old.subject.disconnect();
  });

  it('carries a shutdown request in its heartbeats, and tells the instance when the coordinator says a member asked for one', async () => {
    const m = member((request) =>
      response({ status: request.shutdownApplication ? [{ statusCode: StreamsGroupStatusCode.SHUTDOWN_APPLICATION, statusDetail: 'A KafkaStreams instance encountered a fatal error' }] : [] }),
    );
    await m.subject.start(m.handlers);
    expect(m.requests[0]!.shutdownApplication).toBe(false);
    m.subject.requestShutdown();
    await waitFor(() => (m.parts.onShutdownRequested as jest.Mock).mock.calls.length === 1);
    await m.subject.disconnect();
    expect(m.requests.find((r) => r.shutdownApplication)).toBeDefined();
    expect(m.parts.onShutdownRequested).toHaveBeenCalledWith('A KafkaStreams instance encountered a fatal error');
    expect(m.handlers.onFatal).not.toHaveBeenCalled();
  });

  it('says once that it runs no standby or warm-up task the coordinator assigns', async () => {
    const m = member(() => response({ activeTasks: [{ subtopologyId: '0', partitions: [0] }], standbyTasks: [{ subtopologyId: '0', partitions: [1] }] }));
    const warn = jest.spyOn(m.hooks.logger, 'warn');
    await m.subject.start(m.handlers);
    await waitFor(() => m.requests.length >= 3);
    await m.subject.disconnect();
    expect(warn.mock.calls.filter(([, message]) => String(message).includes('standby or warm-up'))).toEqual([[{ tasks: ['0_1'] }, expect.stringContaining('runs active tasks only')]]);
    expect(m.requests[2]).toMatchObject({ standbyTasks: [], warmupTasks: [] });
  });

  it('is refused under exactly-once, whose transactions would commit without the member epoch', () => {
    const exactlyOnce = parseStreamsConfig({ 'application.id': 'app', 'bootstrap.servers': 'k:9092', 'group.protocol': 'streams', 'processing.guarantee': 'exactly_once_v2' });
    const parts = { config: exactlyOnce, metadata, partitionCounts: new Map(), processId: 'p', committedOffsets: async () => [], onEndpoints: () => undefined, onShutdownRequested: () => undefined };
    expect(() => streamsGroupThreadClients({} as KafkaClients, parts)).toThrow(ConfigException);
  });
});
