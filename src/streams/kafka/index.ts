/** The kafkajs adapter: everything the rest of Sluice needs from Kafka, without importing kafkajs itself. */
export * from './admin';
export * from './client';
export * from './murmur2';
export type * from './types';
