/**
 * The kafkajs types the rest of Sluice uses, under Sluice's names: other layers import them from here, never
 * from kafkajs, so that the client can be replaced behind this folder.
 */
import type * as kafkajs from 'kafkajs';
import type { RecordHeaders } from './record-batch';

export type { RecordHeaders } from './record-batch';

/** A consumed record: what the consumer hands out, and what a task processes, still serialized. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RecordHeaders;
  /** Where the key and value lie in the fetched bytes, for a record Sluice decoded: read there, no view is made. */
  readonly bytes?: RecordBytes;
}

/** The records of one fetched partition, as the stream threads read them: records are made when taken. */
export interface FetchedRecordList {
  readonly topic: string;
  readonly partition: number;
  readonly length: number;
  offsetAt(index: number): number;
  timestampAt(index: number): number;
  /** The record, made now: each call makes a new object. */
  recordAt(index: number): ConsumedRecord;
  /** These records from `index` on. */
  skip(index: number): FetchedRecordList;
}

/** A fetched record's key and value as bounds in the fetched bytes; a start of -1 is null. */
export interface RecordBytes {
  readonly data: Buffer;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/**
 * The client: its consumers hand out records as Sluice decodes them (consumer-records.ts), its producers take
 * timestamps as numbers too (produce-request.ts).
 */
export type KafkaClient = Omit<kafkajs.Kafka, 'consumer' | 'producer'> & {
  consumer(config: kafkajs.ConsumerConfig): KafkaConsumer;
  producer(config?: kafkajs.ProducerConfig): KafkaProducer;
};
export type KafkaAdmin = kafkajs.Admin;
export type KafkaProducer = Omit<kafkajs.Producer, 'sendBatch' | 'transaction'> & {
  sendBatch(batch: OutgoingBatch): Promise<RecordMetadata[]>;
  transaction(): Promise<KafkaTransaction>;
};
export type KafkaTransaction = Omit<kafkajs.Transaction, 'sendBatch'> & { sendBatch(batch: OutgoingBatch): Promise<RecordMetadata[]> };
export type KafkaConsumer = Omit<kafkajs.Consumer, 'run'> & { run(config?: ConsumerRunConfig): Promise<void> };

/** A record to produce: key and value as bytes (or UTF-8 strings), optional partition, timestamp (ms), headers. */
export interface OutgoingRecord extends Omit<kafkajs.Message, 'timestamp'> {
  timestamp?: number | string;
}
/** Records to produce, by topic. */
export interface OutgoingBatch extends Omit<kafkajs.ProducerBatch, 'topicMessages'> {
  topicMessages: { topic: string; messages: OutgoingRecord[] }[];
}
export type RecordMetadata = kafkajs.RecordMetadata;
export interface FetchedBatch extends Omit<kafkajs.Batch, 'messages'> {
  /** The records, each made when read: for consumers that read a batch as kafkajs hands it. */
  messages: ConsumedRecord[];
  /** The same records as the stream threads read them, a record made when taken. */
  records: FetchedRecordList;
}
export interface EachMessagePayload extends Omit<kafkajs.EachMessagePayload, 'message'> {
  message: ConsumedRecord;
}
export interface EachBatchPayload extends Omit<kafkajs.EachBatchPayload, 'batch'> {
  batch: FetchedBatch;
}
export interface ConsumerRunConfig extends Omit<kafkajs.ConsumerRunConfig, 'eachMessage' | 'eachBatch'> {
  eachMessage?: (payload: EachMessagePayload) => Promise<void>;
  eachBatch?: (payload: EachBatchPayload) => Promise<void>;
}
export type TopicPartitionOffset = kafkajs.TopicPartitionOffsetAndMetadata;

// Group membership and assignment: what a custom assignor and the host map work with.
export type PartitionAssigner = kafkajs.PartitionAssigner;
export type GroupMember = kafkajs.GroupMember;
export type GroupMemberAssignment = kafkajs.GroupMemberAssignment;
export type GroupDescription = kafkajs.GroupDescription;
export type MemberDescription = kafkajs.MemberDescription;
export type ConsumerGroupJoinEvent = kafkajs.ConsumerGroupJoinEvent;
