/**
 * kafkajs' cluster layer of a Kafka object: its metadata, connections and authentication, for the requests that
 * Sluice sends itself because kafkajs' clients have no call for them (group-less Fetch, LeaveGroup by instance id).
 */
import { StreamsException } from '../../errors';
import type { KafkaClient } from './types';

export interface ClusterOptions {
  allowAutoTopicCreation?: boolean;
  isolationLevel?: number;
}

/** kafkajs builds clusters through a private factory of its Kafka object, which holds brokers, TLS and SASL. */
export function createCluster<C>(kafka: KafkaClient, options: ClusterOptions): C {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function') throw new StreamsException('kafkajs changed: its cluster factory was not found');
  return factory(options) as C;
}
