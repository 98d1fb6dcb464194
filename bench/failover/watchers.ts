/**
 * What the rolling restart watches on each node while it is up: its records processed (the stream threads'
 * `process-total`, read from /prometheus every SAMPLE_MS; a moment each time it went up), and `get` queries, one
 * after the other, with and without `allow_stale`, of a key of each partition in turn (so that a partition's
 * failures are seen within a few queries); an answer without the key's value is a failure of the key's partition.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { keyOf, valueOf } from '../support/keyed-input';
import { prometheusSum } from '../support/prometheus';
import { sleep } from '../support/program';
import { keysOf, PARTITIONS, STORE, type ClusterNode } from './cluster';
import { FailureStretches, Moments } from './pauses';

const SAMPLE_MS = 250;
const QUERY_PAUSE_MS = 20;
const KEYS_PER_PARTITION = 50;
const QUERY_TIMEOUT_MS = 5000;

export class NodeWatch {
  readonly processed = new Moments();
  readonly queries = new FailureStretches();
  readonly staleQueries = new FailureStretches();
  private stopped = false;
  private readonly loops: Promise<void>[];
  /** Keys of each partition, by partition. */
  private readonly sample: number[][];

  constructor(
    readonly node: ClusterNode,
    private readonly applicationId: string,
    keys: number,
  ) {
    this.sample = Array.from({ length: PARTITIONS }, (_, partition) => keysOf([partition], keys, KEYS_PER_PARTITION));
    this.loops = [this.sampleProcessed(), this.query(false), this.query(true)];
  }

  /** Its node is being restarted. */
  away(): void {
    this.processed.away();
    const at = performance.now();
    this.queries.closeAll(at);
    this.staleQueries.closeAll(at);
  }

  back(): void {
    this.processed.back();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async sampleProcessed(): Promise<void> {
    let previous: number | undefined;
    let watching = false;
    while (!this.stopped) {
      if (watching !== this.processed.watching) {
        // Back from a restart: a new process counts from 0.
        watching = this.processed.watching;
        previous = undefined;
      }
      if (watching) {
        try {
          const response = await request(`${this.node.process.url}/prometheus`);
          const count = prometheusSum(await response.body.text(), 'streams_process_total', { group: 'stream-thread-metrics' });
          if (count !== undefined && previous !== undefined && count > previous) this.processed.add(performance.now());
          previous = count ?? previous;
        } catch {
          // Not answering is no increase.
        }
      }
      await sleep(SAMPLE_MS);
    }
  }

  private async query(allowStale: boolean): Promise<void> {
    const stretches = allowStale ? this.staleQueries : this.queries;
    for (let n = 0; !this.stopped; n++) {
      // Its own node's restart pauses it, as it does the processing watch.
      if (this.processed.watching) {
        const partition = n % PARTITIONS;
        const keys = this.sample[partition]!;
        const i = keys[Math.floor(n / PARTITIONS) % keys.length]!;
        const sentAt = performance.now();
        let failure: string | undefined;
        try {
          const answer = await this.node.client.query(this.applicationId, STORE, {
            type: 'key_value',
            query: { get: { key: keyOf(i) } },
            set_options: { query_timeout_ms: QUERY_TIMEOUT_MS, ...(allowStale ? { allow_stale: true } : {}) },
          });
          const part = answer.result.success[0];
          if (answer.status !== 'SUCCESS' || part?.records[0]?.value !== valueOf(i)) {
            failure = `${answer.status} ${JSON.stringify(answer.result.failure.length > 0 ? answer.result.failure : answer.result.success)}`;
          }
        } catch (error) {
          failure = (error as Error).message;
        }
        if (failure === undefined) stretches.answered(partition, performance.now());
        // A query that ran into its own node's restart is not counted.
        else if (this.processed.watching) stretches.failed(partition, sentAt, `${this.node.label}: ${failure.slice(0, 600)}`);
      }
      await sleep(QUERY_PAUSE_MS);
    }
  }
}
