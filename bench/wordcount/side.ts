/** What the word-count benchmark needs of each implementation it measures (Sluice, Kafka Streams). */

/** Settings both sides run with, so that their figures compare. */
export interface CommonSettings {
  readonly threads: number;
  readonly commitIntervalMs: number;
  /** Record cache of the count store (`cache.max.bytes.buffering`). */
  readonly cacheBytes: number;
  /** `processing.guarantee`. */
  readonly guarantee: 'at_least_once' | 'exactly_once_v2';
  /** The JVM's `-Xmx` (`1g`); undefined: the JVM's default. */
  readonly javaHeap?: string;
  /** Sluice in a memory cgroup of these MiB, which it takes as its memory budget; undefined: none. */
  readonly budgetMiB?: number;
}

import type { MeasuredProcess } from '../support/child-process';

/** A word count under way: failure() says why it can no longer finish; `limits()`, what held it (a memory cgroup). */
export type Running = MeasuredProcess & { limits?(): string };

export interface Side {
  readonly label: string;
  readonly input: string;
  readonly output: string;
  /** Starts counting words of `input` with the given application id (the consumer group watched). */
  start(bootstrapServers: string, applicationId: string): Promise<Running>;
}
