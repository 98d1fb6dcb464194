/**
 * Store queries at a steady rate, round the nodes, each a `get` of a word of the vocabulary drawn at random. A
 * node answers the words of the partitions it holds and forwards the others to their owner over gRPC, so with three
 * nodes about a third are answered locally: the answer's part says which (`remote`). An answer that is not 2xx, a
 * status other than SUCCESS, a failure part, or a word missing (every word was counted before the soak began) is
 * an error.
 */
import { performance } from 'node:perf_hooks';
import type { SluiceClient } from '../../src/client';
import { ErrorTally, errorKind, errorMessage } from './errors';
import { wordOf } from './input';
import { steadily } from '../support/steady';

/** Queries in flight at most: past it a node has stalled, and piling more on would only measure the harness. */
const MAX_IN_FLIGHT = 2000;

export interface QueryMinute {
  local: number;
  forwarded: number;
  /** Of every query answered in the minute, in ms, ascending. */
  latencies: number[];
}

export class QueryLoad {
  private pace: { stop(): void } | undefined;
  private sent = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private minute: QueryMinute = { local: 0, forwarded: 0, latencies: [] };

  constructor(
    private readonly clients: readonly SluiceClient[],
    private readonly applicationId: string,
    private readonly store: string,
    private readonly vocabulary: number,
    private readonly errors: ErrorTally,
  ) {}

  start(perSecond: number): void {
    this.pace = steadily(perSecond, (n) => {
      for (let i = 0; i < n; i++) this.launch();
    });
  }

  /** The minute's figures; the next minute starts empty. */
  takeMinute(): QueryMinute {
    const minute = this.minute;
    this.minute = { local: 0, forwarded: 0, latencies: [] };
    minute.latencies.sort((a, b) => a - b);
    return minute;
  }

  /** Stops sending and waits for the answers still due. */
  async stop(): Promise<void> {
    this.pace?.stop();
    await Promise.all(this.inFlight);
  }

  private launch(): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      this.errors.add('query not sent', `${this.inFlight.size} queries in flight`);
      return;
    }
    const client = this.clients[this.sent++ % this.clients.length]!;
    const query = this.one(client, wordOf(Math.floor(Math.random() * this.vocabulary)));
    this.inFlight.add(query);
    void query.finally(() => this.inFlight.delete(query));
  }

  private async one(client: SluiceClient, word: string): Promise<void> {
    const started = performance.now();
    try {
      const answer = await client.query(this.applicationId, this.store, { type: 'key_value', query: { get: { key: word } } });
      this.minute.latencies.push(performance.now() - started);
      const { status, result } = answer;
      if (status !== 'SUCCESS' || result.failure.length > 0) {
        this.errors.add(`query ${status}`, `get ${word} on ${client.url}: ${JSON.stringify(result.failure)}`);
      } else if (result.total !== 1) {
        this.errors.add('query without the word', `get ${word} on ${client.url}: ${JSON.stringify(result.success)}`);
      } else if (result.success[0]!.remote) {
        this.minute.forwarded += 1;
      } else {
        this.minute.local += 1;
      }
    } catch (error) {
      this.errors.add(`query ${errorKind(error)}`, `get ${word} on ${client.url}: ${errorMessage(error)}`);
    }
  }
}
