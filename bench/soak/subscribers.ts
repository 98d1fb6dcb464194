/**
 * SSE subscribers of the instance's `metrics` (every metrics.sse.interval.ms) and `state` (quiet after the first)
 * events, spread over the nodes and the two types; both send an event on connect, which is how a subscriber knows
 * its stream is open (compatibility file, section 6). A stream is meant to stay open as long as the node runs: one
 * that ends or fails while the soak runs is a disconnect, an error, and the subscriber connects again so that their
 * number holds. A `dropped` event (the server's queue for a subscriber overflowed) is an error too.
 */
import { setMaxListeners } from 'node:events';
import type { SluiceClient } from '../../src/client';
import { sleep } from '../support/program';
import { ErrorTally, errorKind, errorMessage } from './errors';

const RECONNECT_MS = 1000;
const TYPES = ['metrics', 'state'] as const;

export class Subscribers {
  private readonly controller = new AbortController();
  private readonly running: Promise<void>[] = [];
  private events = 0;
  private connected = 0;

  constructor(
    private readonly clients: readonly SluiceClient[],
    private readonly applicationId: string,
    private readonly errors: ErrorTally,
  ) {}

  start(count: number): void {
    // Each live subscription listens to the one signal that ends them all: that many is no leak.
    setMaxListeners(count, this.controller.signal);
    for (let i = 0; i < count; i++) {
      this.running.push(this.subscribe(this.clients[i % this.clients.length]!, TYPES[i % TYPES.length]!));
    }
  }

  /** Streams open at this moment. */
  get open(): number {
    return this.connected;
  }

  /** Events received since the last call. */
  takeMinute(): number {
    const events = this.events;
    this.events = 0;
    return events;
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.all(this.running);
  }

  private async subscribe(client: SluiceClient, type: string): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      let opened = false;
      try {
        for await (const event of client.events(this.applicationId, type, { signal })) {
          if (!opened) {
            opened = true;
            this.connected += 1;
          }
          this.events += 1;
          if (event.type === 'dropped') this.errors.add('SSE dropped events', `${type} on ${client.url}: ${JSON.stringify(event.data)}`);
        }
        if (!signal.aborted) this.errors.add('SSE disconnect', `the ${type} stream of ${client.url} ended`);
      } catch (error) {
        if (!signal.aborted) this.errors.add(`SSE ${errorKind(error)}`, `${type} on ${client.url}: ${errorMessage(error)}`);
      }
      if (opened) this.connected -= 1;
      if (!signal.aborted) await sleep(RECONNECT_MS);
    }
  }
}
