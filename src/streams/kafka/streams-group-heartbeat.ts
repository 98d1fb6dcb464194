/**
 * StreamsGroupHeartbeat (API key 88, KIP-1071), how a member takes part in Kafka 4's streams rebalance protocol: it joins
 * (epoch 0, with its topology), reports the tasks it owns, and learns the tasks the group coordinator assigns it and
 * where every member's partitions are (interactive queries); it leaves with epoch -1. kafkajs 2.2.4 knows nothing of
 * it: encoded and decoded here (version 0, flexible: flexible-codec.ts), after the schema of Kafka 4.2's
 * StreamsGroupHeartbeatRequest.json and StreamsGroupHeartbeatResponse.json (the response's EndpointInformationEpoch
 * included), and sent on kafkajs' connection to the group's coordinator.
 */
import { BrokerUnavailable, Forbidden, SluiceError, StreamsException, StreamsGroupNotFound, StreamsMemberFenced, StreamsProtocolUnsupported, StreamsTopologyRejected } from '../../errors';
import { createCluster, createErrorFromCode, type KafkajsBroker, type KafkajsCluster, maxVersion, sendEncoded } from './broker-requests';
import { FlexibleReader, FlexibleWriter } from './flexible-codec';
import { decodeOffsetCommitV9, encodeOffsetCommitV9, type OffsetCommitPartition } from './offset-commit';
import type { KafkaClient } from './types';

const KafkaJSProtocolError: new (e: { type: string; code: number; retriable: boolean; message: string }) => Error = require('kafkajs/src/errors').KafkaJSProtocolError;

export const STREAMS_GROUP_HEARTBEAT_API_KEY = 88;
/** The version Sluice writes: Kafka 4.2 offers 0 alone; a later v1 only adds a field to the response. */
export const STREAMS_GROUP_HEARTBEAT_VERSION = 0;

/** The member epoch that joins the group, and the one that leaves it (the static member's leave, -2, aside). */
export const JOIN_EPOCH = 0;
export const LEAVE_EPOCH = -1;
export const STATIC_LEAVE_EPOCH = -2;

export interface StreamsKeyValue {
  key: string;
  value: string;
}

/** An internal topic (changelog, repartition topic) the coordinator creates when it is missing. */
export interface StreamsTopicInfo {
  name: string;
  /** 0: no number enforced (always 0 for a changelog, which gets its sub-topology's partition count). */
  partitions: number;
  /** 0: the broker's default. */
  replicationFactor: number;
  topicConfigs: StreamsKeyValue[];
}

/** Source topics that must be co-partitioned, each as an index into its sub-topology's list of that kind. */
export interface StreamsCopartitionGroup {
  sourceTopics: number[];
  sourceTopicRegex: number[];
  repartitionSourceTopics: number[];
}

export interface StreamsSubtopology {
  subtopologyId: string;
  sourceTopics: string[];
  sourceTopicRegex: string[];
  stateChangelogTopics: StreamsTopicInfo[];
  repartitionSinkTopics: string[];
  repartitionSourceTopics: StreamsTopicInfo[];
  copartitionGroups: StreamsCopartitionGroup[];
}

export interface StreamsTopology {
  epoch: number;
  subtopologies: StreamsSubtopology[];
}

/** The tasks of one sub-topology: one per partition. */
export interface StreamsTaskIds {
  subtopologyId: string;
  partitions: number[];
}

export interface StreamsEndpoint {
  host: string;
  port: number;
}

export interface StreamsTaskOffset {
  subtopologyId: string;
  partition: number;
  offset: number;
}

/** A heartbeat. A field left out is the schema's default: null for the nullable ones (unchanged since the last heartbeat). */
export interface StreamsGroupHeartbeatRequest {
  groupId: string;
  /** Made by the member, once, and kept for its lifetime (the coordinator does not assign it). */
  memberId: string;
  /** JOIN_EPOCH, LEAVE_EPOCH, STATIC_LEAVE_EPOCH, or the epoch the coordinator answered last. */
  memberEpoch: number;
  /** The latest EndpointInformationEpoch the member received (0 before any). */
  endpointInformationEpoch: number;
  instanceId?: string | null;
  rackId?: string | null;
  /** -1 (the default): unchanged since the last heartbeat. */
  rebalanceTimeoutMs?: number;
  /** Sent when joining (epoch 0), null otherwise. */
  topology?: StreamsTopology | null;
  activeTasks?: StreamsTaskIds[] | null;
  standbyTasks?: StreamsTaskIds[] | null;
  warmupTasks?: StreamsTaskIds[] | null;
  processId?: string | null;
  userEndpoint?: StreamsEndpoint | null;
  clientTags?: StreamsKeyValue[] | null;
  taskOffsets?: StreamsTaskOffset[] | null;
  taskEndOffsets?: StreamsTaskOffset[] | null;
  shutdownApplication?: boolean;
}

/**
 * The status codes the coordinator reports of a group, as Kafka 4.2's StreamsGroupHeartbeatResponse.Status has them
 * (the schema's comment stops at 4; 4.2.2 answers ASSIGNMENT_DELAYED while its initial rebalance delay runs).
 */
export const StreamsGroupStatusCode = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
} as const;

export interface StreamsGroupStatus {
  statusCode: number;
  statusDetail: string;
}

export interface StreamsTopicPartitions {
  topic: string;
  partitions: number[];
}

/** Where one member's partitions are, for interactive queries. */
export interface StreamsEndpointPartitions {
  userEndpoint: StreamsEndpoint;
  activePartitions: StreamsTopicPartitions[];
  standbyPartitions: StreamsTopicPartitions[];
}

/** The coordinator's answer. A null list: unchanged since the last heartbeat. */
export interface StreamsGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** The lag under which a warm-up task counts as caught up. */
  acceptableRecoveryLag: number;
  /** How often the member reports its tasks' changelog offsets. */
  taskOffsetIntervalMs: number;
  status: StreamsGroupStatus[] | null;
  activeTasks: StreamsTaskIds[] | null;
  standbyTasks: StreamsTaskIds[] | null;
  warmupTasks: StreamsTaskIds[] | null;
  endpointInformationEpoch: number;
  partitionsByUserEndpoint: StreamsEndpointPartitions[] | null;
}

function writeKeyValue(w: FlexibleWriter, { key, value }: StreamsKeyValue): void {
  w.compactString(key).compactString(value).noTaggedFields();
}

function writeTopicInfo(w: FlexibleWriter, topic: StreamsTopicInfo): void {
  w.compactString(topic.name).int32(topic.partitions).int16(topic.replicationFactor);
  w.compactArray(topic.topicConfigs, (kv) => writeKeyValue(w, kv)).noTaggedFields();
}

function writeIndexes(w: FlexibleWriter, indexes: readonly number[]): void {
  w.compactArray(indexes, (index) => w.int16(index));
}

function writeSubtopology(w: FlexibleWriter, s: StreamsSubtopology): void {
  w.compactString(s.subtopologyId);
  w.compactArray(s.sourceTopics, (topic) => w.compactString(topic));
  w.compactArray(s.sourceTopicRegex, (regex) => w.compactString(regex));
  w.compactArray(s.stateChangelogTopics, (topic) => writeTopicInfo(w, topic));
  w.compactArray(s.repartitionSinkTopics, (topic) => w.compactString(topic));
  w.compactArray(s.repartitionSourceTopics, (topic) => writeTopicInfo(w, topic));
  w.compactArray(s.copartitionGroups, (group) => {
    writeIndexes(w, group.sourceTopics);
    writeIndexes(w, group.sourceTopicRegex);
    writeIndexes(w, group.repartitionSourceTopics);
    w.noTaggedFields();
  });
  w.noTaggedFields();
}

function writeTaskIds(w: FlexibleWriter, tasks: readonly StreamsTaskIds[] | null): void {
  w.compactNullableArray(tasks, ({ subtopologyId, partitions }) => {
    w.compactString(subtopologyId).compactArray(partitions, (partition) => w.int32(partition)).noTaggedFields();
  });
}

function writeTaskOffsets(w: FlexibleWriter, offsets: readonly StreamsTaskOffset[] | null): void {
  w.compactNullableArray(offsets, ({ subtopologyId, partition, offset }) => {
    w.compactString(subtopologyId).int32(partition).int64(offset).noTaggedFields();
  });
}

/** The request after kafkajs' header: the header's tagged fields, then the body. */
export function encodeStreamsGroupHeartbeat(request: StreamsGroupHeartbeatRequest): Buffer {
  const w = new FlexibleWriter().noTaggedFields();
  w.compactString(request.groupId).compactString(request.memberId).int32(request.memberEpoch).int32(request.endpointInformationEpoch);
  w.compactNullableString(request.instanceId ?? null).compactNullableString(request.rackId ?? null).int32(request.rebalanceTimeoutMs ?? -1);
  w.nullableStruct(request.topology ?? null, (topology) => {
    w.int32(topology.epoch).compactArray(topology.subtopologies, (s) => writeSubtopology(w, s)).noTaggedFields();
  });
  writeTaskIds(w, request.activeTasks ?? null);
  writeTaskIds(w, request.standbyTasks ?? null);
  writeTaskIds(w, request.warmupTasks ?? null);
  w.compactNullableString(request.processId ?? null);
  w.nullableStruct(request.userEndpoint ?? null, ({ host, port }) => w.compactString(host).uint16(port).noTaggedFields());
  w.compactNullableArray(request.clientTags ?? null, (kv) => writeKeyValue(w, kv));
  writeTaskOffsets(w, request.taskOffsets ?? null);
  writeTaskOffsets(w, request.taskEndOffsets ?? null);
  return w.bool(request.shutdownApplication ?? false).noTaggedFields().toBuffer();
}

function readInt32s(r: FlexibleReader): number[] {
  return r.compactArray(() => r.int32());
}

function readTaskIds(r: FlexibleReader): StreamsTaskIds[] | null {
  return r.compactNullableArray(() => {
    const tasks = { subtopologyId: r.compactString(), partitions: readInt32s(r) };
    r.skipTaggedFields();
    return tasks;
  });
}

function readEndpoint(r: FlexibleReader): StreamsEndpoint {
  const endpoint = { host: r.compactString(), port: r.uint16() };
  r.skipTaggedFields();
  return endpoint;
}

function readTopicPartitions(r: FlexibleReader): StreamsTopicPartitions[] {
  return r.compactArray(() => {
    const topic = { topic: r.compactString(), partitions: readInt32s(r) };
    r.skipTaggedFields();
    return topic;
  });
}

/** The response after the correlation id (as kafkajs hands it over): the header's tagged fields, then the body. */
export function decodeStreamsGroupHeartbeat(payload: Buffer): StreamsGroupHeartbeatResponse {
  const r = new FlexibleReader(payload);
  r.skipTaggedFields();
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const memberId = r.compactString();
  const memberEpoch = r.int32();
  const heartbeatIntervalMs = r.int32();
  const acceptableRecoveryLag = r.int32();
  const taskOffsetIntervalMs = r.int32();
  const status = r.compactNullableArray(() => {
    const entry = { statusCode: r.int8(), statusDetail: r.compactString() };
    r.skipTaggedFields();
    return entry;
  });
  const activeTasks = readTaskIds(r);
  const standbyTasks = readTaskIds(r);
  const warmupTasks = readTaskIds(r);
  const endpointInformationEpoch = r.int32();
  const partitionsByUserEndpoint = r.compactNullableArray(() => {
    const entry = { userEndpoint: readEndpoint(r), activePartitions: readTopicPartitions(r), standbyPartitions: readTopicPartitions(r) };
    r.skipTaggedFields();
    return entry;
  });
  r.skipTaggedFields();
  return {
    throttleTimeMs,
    errorCode,
    errorMessage,
    memberId,
    memberEpoch,
    heartbeatIntervalMs,
    acceptableRecoveryLag,
    taskOffsetIntervalMs,
    status,
    activeTasks,
    standbyTasks,
    warmupTasks,
    endpointInformationEpoch,
    partitionsByUserEndpoint,
  };
}

/**
 * The errors a StreamsGroupHeartbeat answers (the response schema's list, and UNSUPPORTED_VERSION), by Kafka's code;
 * kafkajs 2.2.4 knows the codes up to 88 only. Retriable: the coordinator moved or is loading, asked again once found.
 */
const HEARTBEAT_ERRORS = new Map<number, { type: string; retriable: boolean }>([
  [-1, { type: 'UNKNOWN_SERVER_ERROR', retriable: false }],
  [14, { type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true }],
  [15, { type: 'COORDINATOR_NOT_AVAILABLE', retriable: true }],
  [16, { type: 'NOT_COORDINATOR', retriable: true }],
  [25, { type: 'UNKNOWN_MEMBER_ID', retriable: false }],
  [29, { type: 'TOPIC_AUTHORIZATION_FAILED', retriable: false }],
  [30, { type: 'GROUP_AUTHORIZATION_FAILED', retriable: false }],
  [31, { type: 'CLUSTER_AUTHORIZATION_FAILED', retriable: false }],
  [35, { type: 'UNSUPPORTED_VERSION', retriable: false }],
  [42, { type: 'INVALID_REQUEST', retriable: false }],
  [69, { type: 'GROUP_ID_NOT_FOUND', retriable: false }],
  [81, { type: 'GROUP_MAX_SIZE_REACHED', retriable: false }],
  [110, { type: 'FENCED_MEMBER_EPOCH', retriable: false }],
  [111, { type: 'UNRELEASED_INSTANCE_ID', retriable: false }],
  [130, { type: 'STREAMS_INVALID_TOPOLOGY', retriable: false }],
  [131, { type: 'STREAMS_INVALID_TOPOLOGY_EPOCH', retriable: false }],
  [132, { type: 'STREAMS_TOPOLOGY_FENCED', retriable: false }],
]);

/** Codes of the coordinator having moved or not being ready: find it again and ask again. */
const COORDINATOR_ERRORS = new Set(['COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR']);
/** The member must give up its tasks and join again at epoch 0. */
const FENCED_ERRORS = new Set(['UNKNOWN_MEMBER_ID', 'FENCED_MEMBER_EPOCH', 'UNRELEASED_INSTANCE_ID']);
const TOPOLOGY_ERRORS = new Set(['STREAMS_INVALID_TOPOLOGY', 'STREAMS_INVALID_TOPOLOGY_EPOCH', 'STREAMS_TOPOLOGY_FENCED']);
const AUTHORIZATION_ERRORS = new Set(['TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

/**
 * The Sluice error for a heartbeat's error code, with the broker's message; its cause is Kafka's error as kafkajs
 * raises them (`type`, `code`, `retriable`), so that isTransientKafkaError and isGroupMembershipError read it.
 */
export function streamsGroupHeartbeatError(groupId: string, errorCode: number, errorMessage: string | null): SluiceError {
  const known = HEARTBEAT_ERRORS.get(errorCode) ?? { type: `error code ${errorCode}`, retriable: false };
  const detail = errorMessage ? `${known.type}: ${errorMessage}` : known.type;
  const options = { cause: new KafkaJSProtocolError({ ...known, code: errorCode, message: errorMessage ?? known.type }) };
  if (COORDINATOR_ERRORS.has(known.type)) return new BrokerUnavailable(`the coordinator of streams group ${groupId} cannot answer: ${detail}`, options);
  if (FENCED_ERRORS.has(known.type)) return new StreamsMemberFenced(groupId, detail, options);
  if (TOPOLOGY_ERRORS.has(known.type)) return new StreamsTopologyRejected(groupId, detail, options);
  if (AUTHORIZATION_ERRORS.has(known.type)) return new Forbidden(`Kafka refused the heartbeat of streams group ${groupId}: ${detail}`, options);
  if (known.type === 'GROUP_ID_NOT_FOUND') return new StreamsGroupNotFound(groupId, detail, options);
  if (known.type === 'UNSUPPORTED_VERSION') return new StreamsProtocolUnsupported(`the group coordinator refused StreamsGroupHeartbeat v${STREAMS_GROUP_HEARTBEAT_VERSION}: ${detail}`, options);
  return new StreamsException(`the heartbeat of streams group ${groupId} failed: ${detail}`, options);
}

/** Whether the broker offers StreamsGroupHeartbeat at the version Sluice writes (as its ApiVersions answer said). */
export function offersStreamsGroupHeartbeat(broker: KafkajsBroker): boolean {
  return maxVersion(broker, STREAMS_GROUP_HEARTBEAT_API_KEY) >= STREAMS_GROUP_HEARTBEAT_VERSION;
}

/**
 * A heartbeat to `coordinator`, the group's (FindCoordinator, key type GROUP). Throws when the coordinator does not
 * offer the request, or answers an error (streamsGroupHeartbeatError); else the response, its status included.
 */
export async function sendStreamsGroupHeartbeat(coordinator: KafkajsBroker, request: StreamsGroupHeartbeatRequest): Promise<StreamsGroupHeartbeatResponse> {
  if (!offersStreamsGroupHeartbeat(coordinator)) {
    throw new StreamsProtocolUnsupported(
      `the group coordinator does not offer StreamsGroupHeartbeat (API key ${STREAMS_GROUP_HEARTBEAT_API_KEY}): it needs Kafka 4.2 or later, whose default enables it`,
    );
  }
  const api = { apiKey: STREAMS_GROUP_HEARTBEAT_API_KEY, apiVersion: STREAMS_GROUP_HEARTBEAT_VERSION, apiName: 'StreamsGroupHeartbeat' };
  const response = await sendEncoded(coordinator, api, encodeStreamsGroupHeartbeat(request), decodeStreamsGroupHeartbeat);
  if (response.errorCode !== 0) throw streamsGroupHeartbeatError(request.groupId, response.errorCode, response.errorMessage);
  return response;
}

const OFFSET_COMMIT_API_KEY = 8;
/** The first OffsetCommit that carries a member epoch in the generation's place (KIP-848); Kafka 4.2 asks it of streams members. */
const MEMBER_EPOCH_OFFSET_COMMIT_VERSION = 9;
/** A commit's partition errors that say the member's epoch is past (STALE_MEMBER_EPOCH: 113, unknown to kafkajs). */
const COMMIT_FENCED_ERRORS = new Map([
  [25, 'UNKNOWN_MEMBER_ID'],
  [110, 'FENCED_MEMBER_EPOCH'],
  [113, 'STALE_MEMBER_EPOCH'],
]);

/**
 * An OffsetCommit v9 to the group's coordinator as member `memberId` at `memberEpoch`. A partition's error throws:
 * a fenced or stale epoch as StreamsMemberFenced (the member's tasks may have moved), a moved coordinator as
 * BrokerUnavailable, any other as kafkajs raises Kafka's errors.
 */
export async function sendStreamsOffsetCommit(coordinator: KafkajsBroker, groupId: string, memberId: string, memberEpoch: number, offsets: readonly OffsetCommitPartition[]): Promise<void> {
  const supported = maxVersion(coordinator, OFFSET_COMMIT_API_KEY);
  if (supported < MEMBER_EPOCH_OFFSET_COMMIT_VERSION) {
    throw new StreamsProtocolUnsupported(`a streams group member commits with OffsetCommit v${MEMBER_EPOCH_OFFSET_COMMIT_VERSION}; the group coordinator offers v${supported}`);
  }
  const api = { apiKey: OFFSET_COMMIT_API_KEY, apiVersion: MEMBER_EPOCH_OFFSET_COMMIT_VERSION, apiName: 'OffsetCommit' };
  const results = await sendEncoded(coordinator, api, encodeOffsetCommitV9({ groupId, memberId, memberEpoch, offsets }), decodeOffsetCommitV9);
  const failed = results.find((r) => r.errorCode !== 0);
  if (failed === undefined) return;
  const fenced = COMMIT_FENCED_ERRORS.get(failed.errorCode);
  const where = `${failed.topic}-${failed.partition}`;
  if (fenced !== undefined) {
    const cause = new KafkaJSProtocolError({ type: fenced, code: failed.errorCode, retriable: false, message: fenced });
    throw new StreamsMemberFenced(groupId, `the commit of ${where} at member epoch ${memberEpoch}: ${fenced}`, { cause });
  }
  const error = createErrorFromCode(failed.errorCode);
  if (COORDINATOR_ERRORS.has(error.type)) throw new BrokerUnavailable(`the coordinator of streams group ${groupId} cannot take the commit: ${error.type}`, { cause: error });
  throw error;
}

const COORDINATOR_ATTEMPTS = 5;
const COORDINATOR_BACKOFF_MS = 200;

/**
 * The heartbeats and offset commits of one streams group's members, on a cluster connection of their own: to the
 * group's coordinator, found once and again after it moved.
 */
export class StreamsGroupHeartbeats {
  private readonly cluster: KafkajsCluster;
  private connected: Promise<void> | undefined;
  private coordinator: Promise<KafkajsBroker> | undefined;

  constructor(
    kafka: KafkaClient,
    readonly groupId: string,
  ) {
    this.cluster = createCluster(kafka, { allowAutoTopicCreation: false });
  }

  /** Whether the group's coordinator offers the streams rebalance protocol. */
  async offered(): Promise<boolean> {
    return offersStreamsGroupHeartbeat(await this.findCoordinator());
  }

  /**
   * Sends the heartbeat; a coordinator that moved or is still loading (as on a broker just started) is found again
   * and asked again, a few times, before its error is thrown.
   */
  heartbeat(request: Omit<StreamsGroupHeartbeatRequest, 'groupId'>): Promise<StreamsGroupHeartbeatResponse> {
    return this.toCoordinator((coordinator) => sendStreamsGroupHeartbeat(coordinator, { ...request, groupId: this.groupId }));
  }

  /** Commits offsets as member `memberId` at its current epoch (sendStreamsOffsetCommit), the coordinator found as for a heartbeat. */
  commitOffsets(memberId: string, memberEpoch: number, offsets: readonly OffsetCommitPartition[]): Promise<void> {
    return this.toCoordinator((coordinator) => sendStreamsOffsetCommit(coordinator, this.groupId, memberId, memberEpoch, offsets));
  }

  private async toCoordinator<T>(send: (coordinator: KafkajsBroker) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send(await this.findCoordinator());
      } catch (error) {
        // A lost connection or a moved coordinator: the next heartbeat asks which broker coordinates the group now.
        if (!(error instanceof SluiceError) || error instanceof BrokerUnavailable) this.coordinator = undefined;
        if (!(error instanceof BrokerUnavailable) || attempt === COORDINATOR_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, COORDINATOR_BACKOFF_MS * attempt));
      }
    }
  }

  async close(): Promise<void> {
    this.coordinator = undefined;
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.cluster.disconnect();
  }

  private findCoordinator(): Promise<KafkajsBroker> {
    this.connected ??= this.cluster.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    this.coordinator ??= this.connected
      .then(() => this.cluster.findGroupCoordinator({ groupId: this.groupId }))
      .catch((error: unknown) => {
        this.coordinator = undefined;
        throw error;
      });
    return this.coordinator;
  }
}
