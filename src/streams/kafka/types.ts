/**
 * The kafkajs types the rest of Sluice uses, under Sluice's names: other layers import them from here, never
 * from kafkajs, so that the client can be replaced behind this folder.
 */
import type * as kafkajs from 'kafkajs';

export type KafkaClient = kafkajs.Kafka;
export type KafkaAdmin = kafkajs.Admin;
export type KafkaProducer = kafkajs.Producer;
export type KafkaTransaction = kafkajs.Transaction;
export type KafkaConsumer = kafkajs.Consumer;

/** A record to produce: key and value as bytes (or UTF-8 strings), optional partition, timestamp, headers. */
export type OutgoingRecord = kafkajs.Message;
/** A consumed record as kafkajs delivers it (offset and timestamp are decimal strings). */
export type ConsumedRecord = kafkajs.KafkaMessage;
export type RecordHeaders = kafkajs.IHeaders;
export type RecordMetadata = kafkajs.RecordMetadata;
export type EachMessagePayload = kafkajs.EachMessagePayload;
export type EachBatchPayload = kafkajs.EachBatchPayload;
export type TopicPartitionOffset = kafkajs.TopicPartitionOffsetAndMetadata;

// Group membership and assignment: what a custom assignor and the host map work with.
export type PartitionAssigner = kafkajs.PartitionAssigner;
export type GroupMember = kafkajs.GroupMember;
export type GroupMemberAssignment = kafkajs.GroupMemberAssignment;
export type GroupDescription = kafkajs.GroupDescription;
export type MemberDescription = kafkajs.MemberDescription;
export type ConsumerGroupJoinEvent = kafkajs.ConsumerGroupJoinEvent;
