/**
 * A record as the consumer hands it to a task, still serialized: the Kafka layer's record itself, one object from
 * the fetch to the processors.
 */
export type { ConsumedRecord } from '../kafka';
