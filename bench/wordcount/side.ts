/** What the word-count benchmark needs of each implementation it measures (Sluice, Kafka Streams). */

/** Settings both sides run with, so that their figures compare. */
export interface CommonSettings {
  readonly threads: number;
  readonly commitIntervalMs: number;
  /** Record cache of the count store (`cache.max.bytes.buffering`). */
  readonly cacheBytes: number;
  /** `processing.guarantee`. */
  readonly guarantee: 'at_least_once' | 'exactly_once_v2';
}

import type { MeasuredProcess } from '../support/child-process';

/** A word count under way: failure() says why it can no longer finish. */
export type Running = MeasuredProcess;

export interface Side {
  readonly label: string;
  readonly input: string;
  readonly output: string;
  /** Starts counting words of `input` with the given application id (the consumer group watched). */
  start(bootstrapServers: string, applicationId: string): Promise<Running>;
}
