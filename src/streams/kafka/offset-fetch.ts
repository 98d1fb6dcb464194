/**
 * OffsetFetch v7 (Kafka 2.5, KIP-447), which kafkajs 2.2.4 lacks (it stops at v4): the first version with
 * `require_stable`, which makes the coordinator answer UNSTABLE_OFFSET_COMMIT for a partition whose offsets a
 * transaction has sent but not yet committed or aborted, instead of the offset before them. v7 is a flexible version:
 * written and read with flexible-codec.ts.
 */
import { FlexibleReader, FlexibleWriter } from './flexible-codec';

/** The partitions of one topic whose committed offsets are asked for. */
export interface OffsetFetchTopic {
  topic: string;
  partitions: readonly number[];
}

export interface OffsetFetchRequest {
  groupId: string;
  topics: readonly OffsetFetchTopic[];
  requireStable: boolean;
}

/** One partition's answer: the committed offset (the next record to read; -1: none), or an error code. */
export interface FetchedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  /** Group-level error (a coordinator moved or loading, an authorization refused); 0: none. */
  errorCode: number;
  partitions: FetchedOffset[];
}

/** The request after kafkajs' header: the header's tagged fields, then the body. */
export function encodeOffsetFetchV7(request: OffsetFetchRequest): Buffer {
  const writer = new FlexibleWriter().noTaggedFields().compactString(request.groupId).uvarint(request.topics.length + 1);
  for (const { topic, partitions } of request.topics) {
    writer.compactString(topic).uvarint(partitions.length + 1);
    for (const partition of partitions) writer.int32(partition);
    writer.noTaggedFields();
  }
  return writer.int8(request.requireStable ? 1 : 0).noTaggedFields().toBuffer();
}

/** The response after the correlation id (as kafkajs hands it over): the header's tagged fields, then the body. */
export function decodeOffsetFetchV7(payload: Buffer): OffsetFetchResponse {
  const reader = new FlexibleReader(payload);
  reader.skipTaggedFields();
  const throttleTimeMs = reader.int32();
  const partitions: FetchedOffset[] = [];
  for (let topics = reader.compactArrayLength(); topics > 0; topics--) {
    const topic = reader.compactString();
    for (let count = reader.compactArrayLength(); count > 0; count--) {
      const partition = reader.int32();
      const offset = reader.int64();
      const leaderEpoch = reader.int32();
      const metadata = reader.compactNullableString();
      const errorCode = reader.int16();
      reader.skipTaggedFields();
      partitions.push({ topic, partition, offset, leaderEpoch, metadata, errorCode });
    }
    reader.skipTaggedFields();
  }
  const errorCode = reader.int16();
  reader.skipTaggedFields();
  return { throttleTimeMs, errorCode, partitions };
}
