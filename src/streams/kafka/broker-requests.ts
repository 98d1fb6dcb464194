/**
 * The Kafka requests that Sluice sends itself, because kafkajs' clients have no call for them, and the one kafkajs
 * sends that Sluice fills in. The first go out on kafkajs' cluster layer of a Kafka object (its metadata, connections,
 * TLS and SASL):
 *
 * - Fetch v11 with no consumer group: the changelog reader's (Kafka Streams' restore and global consumers), its
 *   response decoded by fetch-response.ts;
 * - LeaveGroup v3 naming members by group.instance.id: Kafka's RemoveMembersFromConsumerGroup;
 * - OffsetFetch v7 with require_stable (KIP-447), encoded and decoded by offset-fetch.ts: the committed offsets a task
 *   starts from under exactly-once (committed-offsets.ts);
 * - StreamsGroupHeartbeat v0 (Kafka 4.2, KIP-1071), encoded, decoded and sent by streams-group-heartbeat.ts through
 *   `sendEncoded`: the streams rebalance protocol's membership and task assignment.
 *
 * kafkajs 2.2.4 has JoinGroup v5's group.instance.id but never fills it: a static member's assigner hands its id with
 * its protocol (`withGroupInstanceId`), and kafkajs' JoinGroup request, as Sluice replaces it
 * (`joinGroupWithInstanceId`, installed by kafkajs.ts), takes the id from the protocols it announces. The id thus
 * travels in the arguments of the very request that carries it.
 */
import { StreamsException, UnsupportedKafkaClient } from '../../errors';
import { decodeFetchResponse, type FetchedPartition } from './fetch-response';
import { decodeOffsetFetchV7, encodeOffsetFetchV7, type OffsetFetchResponse } from './offset-fetch';
import { groupByTopic, TopicPartitionMap } from './topic-partition';
import type { KafkaClient } from './types';

/** kafkajs' error for a Kafka error code: retriable or not, as kafkajs' clients throw them. */
export const createErrorFromCode: (code: number) => Error & { type: string; retriable: boolean } = require('kafkajs/src/protocol/error').createErrorFromCode;
const fetchV11Request: (args: Record<string, unknown>) => unknown = require('kafkajs/src/protocol/requests/fetch/v11/request');
const leaveGroupV3Request: (args: { groupId: string; members: { memberId: string; groupInstanceId: string }[] }) => unknown = require('kafkajs/src/protocol/requests/leaveGroup/v3/request');
const leaveGroupV3Response: { decode(body: Buffer): Promise<LeaveGroupResponse> } = require('kafkajs/src/protocol/requests/leaveGroup/v3/response');
const KafkajsEncoder: new () => { writeBuffer(bytes: Buffer): unknown } = require('kafkajs/src/protocol/encoder');

const FETCH_API_KEY = 1;
const FETCH_VERSION = 11;
const LEAVE_GROUP_API_KEY = 13;
/** LeaveGroup v3 (Kafka 2.4) is the first to name members by group.instance.id. */
const FIRST_STATIC_LEAVE_VERSION = 3;
const OFFSET_FETCH_API_KEY = 9;
/** OffsetFetch v7 (Kafka 2.5) is the first with require_stable. */
const STABLE_OFFSET_FETCH_VERSION = 7;
/** JoinGroup v5 (Kafka 2.3) is the first to carry group.instance.id. */
const FIRST_STATIC_JOIN_VERSION = 5;
/** A member named by its instance id alone: the coordinator removes whichever member holds that id. */
const UNKNOWN_MEMBER_ID = '';
/** kafkajs' fetch adds this to the wait for the request timeout: the broker may hold the request that long. */
const NETWORK_DELAY_MS = 100;

/** Kafka's isolation level of a reader. */
export function isolationLevel(readCommitted: boolean): number {
  return readCommitted ? 1 : 0;
}

/** A request and how its response is read, as kafkajs' connections send them. */
interface KafkajsRequest<T> {
  request: unknown;
  response: { decode(body: Buffer): Promise<T>; parse(data: T): T };
  requestTimeout?: number;
}

/** The parts of kafkajs' Broker that Sluice uses. */
export interface KafkajsBroker {
  versions: Record<number, { maxVersion: number } | undefined>;
  listOffsets(request: {
    replicaId: number;
    isolationLevel: number;
    topics: { topic: string; partitions: { partition: number; timestamp: number }[] }[];
  }): Promise<{ responses: { topic: string; partitions: { partition: number; errorCode: number; offset: string }[] }[] }>;
  connectionPool: { send<T>(request: KafkajsRequest<T>): Promise<T> };
}

/** The parts of kafkajs' Cluster that Sluice uses. */
export interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<KafkajsBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<KafkajsBroker>;
}

export interface ClusterOptions {
  allowAutoTopicCreation?: boolean;
  isolationLevel?: number;
}

/** A cluster layer of its own: kafkajs builds clusters through a private factory of its Kafka object, which holds brokers, TLS and SASL. */
export function createCluster(kafka: KafkaClient, options: ClusterOptions): KafkajsCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory: unknown = symbol === undefined ? undefined : Reflect.get(kafka, symbol);
  if (typeof factory !== 'function') throw new StreamsException('kafkajs changed: its cluster factory was not found');
  return factory(options);
}

/** The highest version of an API that the broker offers; -1 when it offers none. */
export function maxVersion(broker: KafkajsBroker, apiKey: number): number {
  return broker.versions[apiKey]?.maxVersion ?? -1;
}

function send<T>(broker: KafkajsBroker, request: unknown, decode: (body: Buffer) => Promise<T>, requestTimeout?: number): Promise<T> {
  return broker.connectionPool.send({ request, response: { decode, parse: (data) => data }, requestTimeout });
}

/** Which request a payload is: kafkajs writes the header from these. */
export interface ApiRequest {
  apiKey: number;
  apiVersion: number;
  apiName: string;
}

/**
 * A request that Sluice encoded itself (`payload`: all after kafkajs' header), sent on kafkajs' connection to
 * `broker`; `decode` reads the response after the correlation id.
 */
export function sendEncoded<T>(broker: KafkajsBroker, api: ApiRequest, payload: Buffer, decode: (body: Buffer) => T): Promise<T> {
  const request = { ...api, encode: () => Promise.resolve(new KafkajsEncoder().writeBuffer(payload)) };
  return send(broker, request, (body) => Promise.resolve(decode(body)));
}

export interface FetchRequest {
  /** Each partition to read, from its offset. */
  partitions: readonly { topic: string; partition: number; offset: number }[];
  readCommitted: boolean;
  /** How long the broker may wait for data. */
  maxWaitMs: number;
  /** What the response may bring in all. */
  maxBytes: number;
  maxPartitionBytes: number;
  /** The partitions' records as a stream thread's consumer reads them (decodeFetchResponse). */
  asBatches: boolean;
}

/** A Fetch (v11) to `broker`, node `nodeId`, outside any consumer group: what each partition brought. */
export async function sendFetch(broker: KafkajsBroker, nodeId: string, fetch: FetchRequest): Promise<FetchedPartition[]> {
  const supported = maxVersion(broker, FETCH_API_KEY);
  if (supported < FETCH_VERSION) {
    throw new StreamsException(`broker ${nodeId} answers Fetch up to version ${supported}; reading changelogs needs version ${FETCH_VERSION} (Kafka 2.3 or later)`);
  }
  const offsets = new TopicPartitionMap<number>();
  for (const { topic, partition, offset } of fetch.partitions) offsets.set(topic, partition, offset);
  const topics = groupByTopic(fetch.partitions);
  const request = fetchV11Request({
    replicaId: -1,
    maxWaitTime: fetch.maxWaitMs,
    minBytes: 1,
    maxBytes: fetch.maxBytes,
    isolationLevel: isolationLevel(fetch.readCommitted),
    topics: [...topics].map(([topic, partitions]) => ({
      topic,
      partitions: partitions.map(({ partition, offset }) => ({ partition, fetchOffset: String(offset), maxBytes: fetch.maxPartitionBytes })),
    })),
    rackId: '',
  });
  const decoded = await send(broker, request, (body) => decodeFetchResponse(body, offsets, fetch.readCommitted, fetch.asBatches), fetch.maxWaitMs + NETWORK_DELAY_MS);
  if (decoded.errorCode !== 0) throw createErrorFromCode(decoded.errorCode);
  return decoded.partitions;
}

export interface LeaveGroupResponse {
  errorCode: number;
  members: { groupInstanceId: string | null; errorCode: number }[];
}

/** A LeaveGroup (v3) to the group's coordinator, for the members that joined as `instanceIds`. */
export function sendLeaveGroup(coordinator: KafkajsBroker, groupId: string, instanceIds: readonly string[]): Promise<LeaveGroupResponse> {
  const supported = maxVersion(coordinator, LEAVE_GROUP_API_KEY);
  if (supported < FIRST_STATIC_LEAVE_VERSION) {
    throw new UnsupportedKafkaClient(`removing static members needs LeaveGroup v${FIRST_STATIC_LEAVE_VERSION} (Kafka 2.4 or later); the broker offers v${supported}`);
  }
  const request = leaveGroupV3Request({ groupId, members: instanceIds.map((groupInstanceId) => ({ memberId: UNKNOWN_MEMBER_ID, groupInstanceId })) });
  return send(coordinator, request, (body) => leaveGroupV3Response.decode(body));
}

/**
 * An OffsetFetch (v7, require_stable) to the group's coordinator for these partitions: where a transaction holds
 * offsets of a partition still pending, that partition comes back with UNSTABLE_OFFSET_COMMIT.
 */
export function sendStableOffsetFetch(
  coordinator: KafkajsBroker,
  groupId: string,
  partitions: readonly { topic: string; partition: number }[],
): Promise<OffsetFetchResponse> {
  const supported = maxVersion(coordinator, OFFSET_FETCH_API_KEY);
  if (supported < STABLE_OFFSET_FETCH_VERSION) {
    throw new StreamsException(
      `exactly_once_v2 reads committed offsets with OffsetFetch v${STABLE_OFFSET_FETCH_VERSION} (Kafka 2.5 or later); the group coordinator offers v${supported}`,
    );
  }
  const topics = [...groupByTopic(partitions)].map(([topic, list]) => ({ topic, partitions: list.map((p) => p.partition) }));
  const payload = encodeOffsetFetchV7({ groupId, topics, requireStable: true });
  return sendEncoded(coordinator, { apiKey: OFFSET_FETCH_API_KEY, apiVersion: STABLE_OFFSET_FETCH_VERSION, apiName: 'OffsetFetch' }, payload, decodeOffsetFetchV7);
}

/** Where a member's protocol carries its group.instance.id to the JoinGroup request. */
const GROUP_INSTANCE_ID = Symbol.for('sluice.groupInstanceId');

/** A member's protocol (assignment strategy) as its JoinGroup request announces it. */
interface GroupProtocol {
  name: string;
  metadata?: Buffer;
  [GROUP_INSTANCE_ID]?: string;
}

/** `protocol`, carrying the group.instance.id of its member into the JoinGroup request that announces it. */
export function withGroupInstanceId<P extends GroupProtocol>(protocol: P, groupInstanceId: string): P {
  return { ...protocol, [GROUP_INSTANCE_ID]: groupInstanceId };
}

type JoinGroupRequest = (args: { groupProtocols: GroupProtocol[]; groupInstanceId?: string }) => unknown;

/** kafkajs' JoinGroup module: its versions, and the request of each. */
export interface JoinGroupRequests {
  versions: string[];
  protocol(args: { version: number }): JoinGroupRequest;
}

/** kafkajs' JoinGroup requests, given the group.instance.id that their member's protocols carry (none: as kafkajs). */
export function joinGroupWithInstanceId(kafkajs: JoinGroupRequests): JoinGroupRequests {
  return {
    versions: kafkajs.versions,
    protocol: ({ version }) => {
      const request = kafkajs.protocol({ version });
      return (args) => {
        const groupInstanceId = args.groupProtocols.find((p) => p[GROUP_INSTANCE_ID] !== undefined)?.[GROUP_INSTANCE_ID];
        if (groupInstanceId === undefined) return request(args);
        if (version < FIRST_STATIC_JOIN_VERSION) {
          throw new UnsupportedKafkaClient(`group.instance.id needs JoinGroup v${FIRST_STATIC_JOIN_VERSION} (Kafka 2.3 or later); the broker offers v${version}`);
        }
        return request({ ...args, groupInstanceId });
      };
    },
  };
}
