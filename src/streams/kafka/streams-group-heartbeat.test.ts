import { BrokerUnavailable, StreamsGroupNotFound, StreamsMemberFenced, StreamsProtocolUnsupported, StreamsTopologyRejected } from '../../errors';
import type { KafkajsBroker } from './broker-requests';
import { isGroupMembershipError, isTransientKafkaError } from './errors';
import { FlexibleReader, FlexibleWriter } from './flexible-codec';
import {
  decodeStreamsGroupHeartbeat,
  encodeStreamsGroupHeartbeat,
  sendStreamsGroupHeartbeat,
  type StreamsGroupHeartbeatRequest,
  type StreamsGroupHeartbeatResponse,
  streamsGroupHeartbeatError,
} from './streams-group-heartbeat';

/** kafkajs' framing of a request: size, header v1 (api key, version, correlation id, client id), then the request's own bytes. */
const createRequest: (args: { correlationId: number; clientId: string; request: unknown }) => Promise<{ buffer: Buffer }> = require('kafkajs/src/protocol/request');

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

/** A response after the correlation id: member m1 at epoch 3, active tasks 0_0 and 0_2, one status (with a tagged field to skip), one endpoint. */
const RESPONSE = hex(`
  00
  00000000
  0000
  00
  03 ${ascii('m1')}
  00000003
  00001388
  00000064
  0000ea60
  02
    03 03 ${ascii('hi')} 01 05 02 aabb
  02
    02 ${ascii('0')} 03 00000000 00000002 00
  01
  00
  00000002
  02
    0a ${ascii('localhost')} 1f90 00
    02 03 ${ascii('in')} 03 00000000 00000002 00
    01
    00
  00
`);

describe('StreamsGroupHeartbeat v0', () => {
  it('writes a join with only the required fields, each as the schema has it', () => {
    const bytes = encodeStreamsGroupHeartbeat({ groupId: 'app', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0 });
    expect(bytes.toString('hex')).toBe(
      [
        '00', // the request header v2's tagged fields: none
        `04${ascii('app')}`, // GroupId: compact string (length + 1, then UTF-8)
        `03${ascii('m1')}`, // MemberId
        '00000000', // MemberEpoch: int32, 0 joins
        '00000000', // EndpointInformationEpoch: int32
        '00', // InstanceId: compact nullable string, null
        '00', // RackId: null
        'ffffffff', // RebalanceTimeoutMs: int32, default -1 (unchanged)
        'ff', // Topology: nullable struct, -1 for null
        '00', // ActiveTasks: compact nullable array, null
        '00', // StandbyTasks: null
        '00', // WarmupTasks: null
        '00', // ProcessId: null
        'ff', // UserEndpoint: nullable struct, null
        '00', // ClientTags: null
        '00', // TaskOffsets: null
        '00', // TaskEndOffsets: null
        '00', // ShutdownApplication: bool, false
        '00', // the request's tagged fields
      ].join(''),
    );
  });

  it('writes a topology, tasks and an endpoint field by field', () => {
    const bytes = encodeStreamsGroupHeartbeat({
      groupId: 'a',
      memberId: 'm',
      memberEpoch: 0,
      endpointInformationEpoch: 0,
      rebalanceTimeoutMs: 300_000,
      topology: {
        epoch: 1,
        subtopologies: [
          {
            subtopologyId: '0',
            sourceTopics: ['in'],
            sourceTopicRegex: [],
            stateChangelogTopics: [{ name: 'c', partitions: 0, replicationFactor: 0, topicConfigs: [{ key: 'k', value: 'v' }] }],
            repartitionSinkTopics: [],
            repartitionSourceTopics: [],
            copartitionGroups: [{ sourceTopics: [0], sourceTopicRegex: [], repartitionSourceTopics: [] }],
          },
        ],
      },
      activeTasks: [{ subtopologyId: '0', partitions: [1] }],
      processId: 'p',
      userEndpoint: { host: 'h', port: 65_535 },
      taskOffsets: [{ subtopologyId: '0', partition: 1, offset: 2 ** 40 }],
      shutdownApplication: true,
    });
    expect(bytes.toString('hex')).toBe(
      [
        '00',
        `02${ascii('a')}`,
        `02${ascii('m')}`,
        '00000000',
        '00000000',
        '00',
        '00',
        '000493e0', // RebalanceTimeoutMs 300 000
        '01', // Topology present
        '00000001', // Epoch
        '02', // Subtopologies: one
        `02${ascii('0')}`, // SubtopologyId
        `02 03${ascii('in')}`, // SourceTopics: ["in"]
        '01', // SourceTopicRegex: empty (length 0 + 1)
        `02 02${ascii('c')} 00000000 0000 02 02${ascii('k')} 02${ascii('v')} 00 00`, // StateChangelogTopics: name, partitions, replication, configs, tagged fields
        '01', // RepartitionSinkTopics: empty
        '01', // RepartitionSourceTopics: empty
        '02 02 0000 01 01 00', // CopartitionGroups: SourceTopics [0] (int16 indexes), the other two empty, tagged fields
        '00', // the sub-topology's tagged fields
        '00', // the topology's tagged fields
        `02 02${ascii('0')} 02 00000001 00`, // ActiveTasks: subtopology 0, partitions [1]
        '00',
        '00',
        `02${ascii('p')}`, // ProcessId
        `01 02${ascii('h')} ffff 00`, // UserEndpoint: present, host, port as uint16, tagged fields
        '00',
        `02 02${ascii('0')} 00000001 0000010000000000 00`, // TaskOffsets: subtopology, partition, int64 offset
        '00',
        '01', // ShutdownApplication
        '00',
      ]
        .join('')
        .replace(/\s+/g, ''),
    );
  });

  it('writes a request that reads back as it was given, every field set', () => {
    const request: Required<StreamsGroupHeartbeatRequest> = {
      groupId: 'app',
      memberId: 'member-ü',
      memberEpoch: 7,
      endpointInformationEpoch: 3,
      instanceId: 'instance',
      rackId: 'rack-a',
      rebalanceTimeoutMs: 60_000,
      topology: {
        epoch: 2,
        subtopologies: [
          {
            subtopologyId: '0',
            sourceTopics: ['in', 'other'],
            sourceTopicRegex: ['in-.*'],
            stateChangelogTopics: [{ name: 'app-store-changelog', partitions: 0, replicationFactor: 3, topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] }],
            repartitionSinkTopics: ['app-by-key-repartition'],
            repartitionSourceTopics: [],
            copartitionGroups: [{ sourceTopics: [0, 1], sourceTopicRegex: [0], repartitionSourceTopics: [] }],
          },
          {
            subtopologyId: '1',
            sourceTopics: [],
            sourceTopicRegex: [],
            stateChangelogTopics: [],
            repartitionSinkTopics: [],
            repartitionSourceTopics: [{ name: 'app-by-key-repartition', partitions: 4, replicationFactor: -1, topicConfigs: [] }],
            copartitionGroups: [],
          },
        ],
      },
      activeTasks: [{ subtopologyId: '0', partitions: [0, 1] }],
      standbyTasks: [],
      warmupTasks: [{ subtopologyId: '1', partitions: [3] }],
      processId: '0b8d1c6e-5f0a-4c47-9a41-2a2f0f1b9d3e',
      userEndpoint: { host: 'node-1.example', port: 8080 },
      clientTags: [{ key: 'zone', value: 'eu-1' }],
      taskOffsets: [{ subtopologyId: '0', partition: 0, offset: 42 }],
      taskEndOffsets: [{ subtopologyId: '0', partition: 0, offset: 2 ** 53 - 1 }],
      shutdownApplication: false,
    };
    expect(readRequest(encodeStreamsGroupHeartbeat(request))).toEqual(request);
  });

  it('reads every field of a response, past unknown tagged fields', () => {
    expect(decodeStreamsGroupHeartbeat(RESPONSE)).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: 'm1',
      memberEpoch: 3,
      heartbeatIntervalMs: 5_000,
      acceptableRecoveryLag: 100,
      taskOffsetIntervalMs: 60_000,
      status: [{ statusCode: 3, statusDetail: 'hi' }],
      activeTasks: [{ subtopologyId: '0', partitions: [0, 2] }],
      standbyTasks: [],
      warmupTasks: null,
      endpointInformationEpoch: 2,
      partitionsByUserEndpoint: [
        {
          userEndpoint: { host: 'localhost', port: 8080 },
          activePartitions: [{ topic: 'in', partitions: [0, 2] }],
          standbyPartitions: [],
        },
      ],
    });
  });

  it('reads a response written with every field set back as it was', () => {
    const response: StreamsGroupHeartbeatResponse = {
      throttleTimeMs: 10,
      errorCode: 0,
      errorMessage: null,
      memberId: 'member',
      memberEpoch: 12,
      heartbeatIntervalMs: 5_000,
      acceptableRecoveryLag: 10_000,
      taskOffsetIntervalMs: 60_000,
      status: [],
      activeTasks: [{ subtopologyId: '0', partitions: [1, 3] }],
      standbyTasks: [{ subtopologyId: '0', partitions: [0] }],
      warmupTasks: [{ subtopologyId: '1', partitions: [2] }],
      endpointInformationEpoch: 4,
      partitionsByUserEndpoint: [
        { userEndpoint: { host: 'a', port: 1 }, activePartitions: [{ topic: 'in', partitions: [1, 3] }], standbyPartitions: [{ topic: 'in', partitions: [0] }] },
        { userEndpoint: { host: 'b', port: 65_535 }, activePartitions: [{ topic: 'in', partitions: [0, 2] }], standbyPartitions: [] },
      ],
    };
    expect(decodeStreamsGroupHeartbeat(writeResponse(response))).toEqual(response);
  });

  it('reads an error response, its lists null (unchanged)', () => {
    const decoded = decodeStreamsGroupHeartbeat(
      writeResponse({
        throttleTimeMs: 0,
        errorCode: 130,
        errorMessage: 'Subtopology 0 has no source topics',
        memberId: 'm',
        memberEpoch: 0,
        heartbeatIntervalMs: 0,
        acceptableRecoveryLag: 0,
        taskOffsetIntervalMs: 0,
        status: null,
        activeTasks: null,
        standbyTasks: null,
        warmupTasks: null,
        endpointInformationEpoch: 0,
        partitionsByUserEndpoint: null,
      }),
    );
    expect([decoded.errorCode, decoded.errorMessage, decoded.activeTasks, decoded.partitionsByUserEndpoint]).toEqual([130, 'Subtopology 0 has no source topics', null, null]);
  });

  it('refuses a response cut short', () => {
    expect(() => decodeStreamsGroupHeartbeat(RESPONSE.subarray(0, 30))).toThrow(RangeError);
  });
});

describe('the errors of a heartbeat', () => {
  it('a refused topology is invalid input, with the broker message', () => {
    const error = streamsGroupHeartbeatError('app', 130, 'Subtopology 0 has no source topics');
    expect(error).toBeInstanceOf(StreamsTopologyRejected);
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe('The group coordinator refused the topology of app: STREAMS_INVALID_TOPOLOGY: Subtopology 0 has no source topics');
  });

  it('a fenced or unknown member must join again, as a lost group membership', () => {
    for (const code of [110, 25]) {
      const error = streamsGroupHeartbeatError('app', code, null);
      expect(error).toBeInstanceOf(StreamsMemberFenced);
      expect(isTransientKafkaError(error)).toBe(false);
    }
    expect(isGroupMembershipError(streamsGroupHeartbeatError('app', 25, null))).toBe(true);
  });

  it('a coordinator that moved is transient', () => {
    const error = streamsGroupHeartbeatError('app', 16, 'This is not the correct coordinator.');
    expect(error).toBeInstanceOf(BrokerUnavailable);
    expect(isTransientKafkaError(error)).toBe(true);
  });

  it('names GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION, and a code it does not know', () => {
    expect(streamsGroupHeartbeatError('app', 69, 'Group app is not a streams group.')).toBeInstanceOf(StreamsGroupNotFound);
    expect(streamsGroupHeartbeatError('app', 35, null)).toBeInstanceOf(StreamsProtocolUnsupported);
    expect(streamsGroupHeartbeatError('app', 999, 'new').message).toBe('the heartbeat of streams group app failed: error code 999: new');
  });
});

describe('sendStreamsGroupHeartbeat', () => {
  const broker = (versions: KafkajsBroker['versions'], response: Buffer = RESPONSE) => {
    const sent: { request: unknown; response: { decode(body: Buffer): Promise<unknown> } }[] = [];
    const fake = {
      versions,
      connectionPool: {
        send: async (args: (typeof sent)[number]) => {
          sent.push(args);
          return args.response.decode(response);
        },
      },
    } as unknown as KafkajsBroker;
    return { fake, sent };
  };
  const request: StreamsGroupHeartbeatRequest = { groupId: 'app', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0 };

  it("goes out in kafkajs' framing as API key 88 version 0, and decodes the answer", async () => {
    const { fake, sent } = broker({ 88: { maxVersion: 0 } });
    const response = await sendStreamsGroupHeartbeat(fake, request);
    expect([response.memberId, response.memberEpoch, response.activeTasks]).toEqual(['m1', 3, [{ subtopologyId: '0', partitions: [0, 2] }]]);
    const { buffer } = await createRequest({ correlationId: 7, clientId: 'c', request: sent[0]!.request });
    const header = hex(`0058 0000 00000007 0001 ${ascii('c')}`);
    expect(buffer.subarray(4).toString('hex')).toBe(Buffer.concat([header, encodeStreamsGroupHeartbeat(request)]).toString('hex'));
  });

  it('sends version 0 to a broker that offers later ones too', async () => {
    const { fake, sent } = broker({ 88: { maxVersion: 1 } });
    await sendStreamsGroupHeartbeat(fake, request);
    expect((sent[0]!.request as { apiVersion: number }).apiVersion).toBe(0);
  });

  it('refuses a coordinator without the streams rebalance protocol (Kafka 3.9), before sending', async () => {
    const { fake, sent } = broker({ 9: { maxVersion: 9 } });
    const refused = sendStreamsGroupHeartbeat(fake, request);
    await expect(refused).rejects.toThrow(StreamsProtocolUnsupported);
    await expect(refused).rejects.toThrow(/does not offer StreamsGroupHeartbeat \(API key 88\): it needs Kafka 4.2 or later/);
    expect(sent).toEqual([]);
  });

  it('throws the error the coordinator answers', async () => {
    const answer = writeResponse({ ...decodeStreamsGroupHeartbeat(RESPONSE), errorCode: 110, errorMessage: 'epoch 2 is fenced' });
    await expect(sendStreamsGroupHeartbeat(broker({ 88: { maxVersion: 0 } }, answer).fake, request)).rejects.toThrow(
      'The member of streams group app must join again: FENCED_MEMBER_EPOCH: epoch 2 is fenced',
    );
  });
});

/** The request read back after the schema, for the round trip. */
function readRequest(bytes: Buffer): Required<StreamsGroupHeartbeatRequest> {
  const r = new FlexibleReader(bytes);
  const tagged = <T>(value: T): T => {
    r.skipTaggedFields();
    return value;
  };
  const keyValue = () => tagged({ key: r.compactString(), value: r.compactString() });
  const topicInfo = () =>
    tagged({ name: r.compactString(), partitions: r.int32(), replicationFactor: r.int16(), topicConfigs: r.compactArray(keyValue) });
  const taskIds = () => r.compactNullableArray(() => tagged({ subtopologyId: r.compactString(), partitions: r.compactArray(() => r.int32()) }));
  const taskOffsets = () => r.compactNullableArray(() => tagged({ subtopologyId: r.compactString(), partition: r.int32(), offset: r.int64() }));
  const nullableStruct = <T>(read: () => T): T | null => (r.int8() < 0 ? null : read());
  r.skipTaggedFields();
  return tagged({
    groupId: r.compactString(),
    memberId: r.compactString(),
    memberEpoch: r.int32(),
    endpointInformationEpoch: r.int32(),
    instanceId: r.compactNullableString(),
    rackId: r.compactNullableString(),
    rebalanceTimeoutMs: r.int32(),
    topology: nullableStruct(() =>
      tagged({
        epoch: r.int32(),
        subtopologies: r.compactArray(() =>
          tagged({
            subtopologyId: r.compactString(),
            sourceTopics: r.compactArray(() => r.compactString()),
            sourceTopicRegex: r.compactArray(() => r.compactString()),
            stateChangelogTopics: r.compactArray(topicInfo),
            repartitionSinkTopics: r.compactArray(() => r.compactString()),
            repartitionSourceTopics: r.compactArray(topicInfo),
            copartitionGroups: r.compactArray(() =>
              tagged({
                sourceTopics: r.compactArray(() => r.int16()),
                sourceTopicRegex: r.compactArray(() => r.int16()),
                repartitionSourceTopics: r.compactArray(() => r.int16()),
              }),
            ),
          }),
        ),
      }),
    ),
    activeTasks: taskIds(),
    standbyTasks: taskIds(),
    warmupTasks: taskIds(),
    processId: r.compactNullableString(),
    userEndpoint: nullableStruct(() => tagged({ host: r.compactString(), port: r.uint16() })),
    clientTags: r.compactNullableArray(keyValue),
    taskOffsets: taskOffsets(),
    taskEndOffsets: taskOffsets(),
    shutdownApplication: r.bool(),
  });
}

/** A response written after the schema (as the broker would), with the response header's tagged fields first. */
function writeResponse(response: StreamsGroupHeartbeatResponse): Buffer {
  const w = new FlexibleWriter().noTaggedFields();
  const taskIds = (tasks: StreamsGroupHeartbeatResponse['activeTasks']) =>
    w.compactNullableArray(tasks, ({ subtopologyId, partitions }) => {
      w.compactString(subtopologyId).compactArray(partitions, (p) => w.int32(p)).noTaggedFields();
    });
  const topicPartitions = (list: readonly { topic: string; partitions: number[] }[]) =>
    w.compactArray(list, ({ topic, partitions }) => {
      w.compactString(topic).compactArray(partitions, (p) => w.int32(p)).noTaggedFields();
    });
  w.int32(response.throttleTimeMs).int16(response.errorCode).compactNullableString(response.errorMessage).compactString(response.memberId);
  w.int32(response.memberEpoch).int32(response.heartbeatIntervalMs).int32(response.acceptableRecoveryLag).int32(response.taskOffsetIntervalMs);
  w.compactNullableArray(response.status, ({ statusCode, statusDetail }) => w.int8(statusCode).compactString(statusDetail).noTaggedFields());
  taskIds(response.activeTasks);
  taskIds(response.standbyTasks);
  taskIds(response.warmupTasks);
  w.int32(response.endpointInformationEpoch);
  w.compactNullableArray(response.partitionsByUserEndpoint, ({ userEndpoint, activePartitions, standbyPartitions }) => {
    w.compactString(userEndpoint.host).uint16(userEndpoint.port).noTaggedFields();
    topicPartitions(activePartitions);
    topicPartitions(standbyPartitions).noTaggedFields();
  });
  return w.noTaggedFields().toBuffer();
}
