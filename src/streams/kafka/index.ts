/**
 * The kafkajs adapter: everything the rest of Sluice needs from Kafka, and the only way in. Nothing outside this
 * folder imports kafkajs or a file of this folder other than this one. kafkajs.ts installs Sluice's replacements of
 * kafkajs internals first, before any module below loads kafkajs' consumer and producer.
 */
export { KAFKAJS_VERSION } from './kafkajs';
export * from './admin';
export * from './changelog-reader';
export * from './client';
export * from './committed-offsets';
export * from './errors';
export * from './group-protocol';
export * from './join-hooks';
export * from './log-sink';
export * from './static-membership';
export * from './streams-group-heartbeat';
export type { OffsetCommitPartition } from './offset-commit';
export * from './murmur2';
export * from './security';
export * from './topic-partition';
export { RecordArray } from './fetched-records';
export { ProducedRecords, producedRecordsMessage, producedRecordsOf } from './produced-records';
export type * from './types';
