/**
 * OffsetCommit v9 (Kafka 3.7, KIP-848), which kafkajs 2.2.4 lacks (it stops at v7): a member of a streams group
 * (KIP-1071) commits with its member id and member epoch in the generation's place, and Kafka 4.2's coordinator
 * refuses a non-transactional commit of such a member in a version below 9. v9 is flexible: written and read with
 * flexible-codec.ts.
 */
import { FlexibleReader, FlexibleWriter } from './flexible-codec';

export interface OffsetCommitPartition {
  topic: string;
  partition: number;
  /** The next record to read. */
  offset: number;
}

export interface OffsetCommitRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  offsets: readonly OffsetCommitPartition[];
}

export interface OffsetCommitPartitionResult {
  topic: string;
  partition: number;
  errorCode: number;
}

/** Kafka's "no leader epoch known": the committed offset carries none. */
const NO_LEADER_EPOCH = -1;

/** The request after kafkajs' header: the header's tagged fields, then the body. */
export function encodeOffsetCommitV9(request: OffsetCommitRequest): Buffer {
  const byTopic = new Map<string, OffsetCommitPartition[]>();
  for (const o of request.offsets) (byTopic.get(o.topic) ?? byTopic.set(o.topic, []).get(o.topic)!).push(o);
  const w = new FlexibleWriter().noTaggedFields();
  w.compactString(request.groupId).int32(request.memberEpoch).compactString(request.memberId).compactNullableString(null);
  w.compactArray([...byTopic], ([topic, partitions]) => {
    w.compactString(topic);
    w.compactArray(partitions, ({ partition, offset }) => {
      w.int32(partition).int64(offset).int32(NO_LEADER_EPOCH).compactNullableString(null).noTaggedFields();
    });
    w.noTaggedFields();
  });
  return w.noTaggedFields().toBuffer();
}

/** The response after the correlation id (as kafkajs hands it over): the header's tagged fields, then the body. */
export function decodeOffsetCommitV9(payload: Buffer): OffsetCommitPartitionResult[] {
  const r = new FlexibleReader(payload);
  r.skipTaggedFields();
  r.int32(); // throttle_time_ms
  const results: OffsetCommitPartitionResult[] = [];
  for (let topics = r.compactArrayLength(); topics > 0; topics--) {
    const topic = r.compactString();
    for (let partitions = r.compactArrayLength(); partitions > 0; partitions--) {
      results.push({ topic, partition: r.int32(), errorCode: r.int16() });
      r.skipTaggedFields();
    }
    r.skipTaggedFields();
  }
  r.skipTaggedFields();
  return results;
}
