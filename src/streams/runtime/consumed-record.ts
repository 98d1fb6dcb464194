import type { Headers } from '../processor/record';

/** A record as the consumer hands it to a task, still serialized. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Headers;
}
