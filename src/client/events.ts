/**
 * A server-sent-events subscription as an async iterator: `for await (const event of client.events(app, 'state'))`.
 * It connects on the first iteration (an unknown instance or event type throws the 404's SluiceApiError there), and
 * ends without an error when closed, when the caller's signal aborts, or when the server ends the stream. The
 * stream is parsed by eventsource-parser; keep-alive comments are skipped.
 */

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { UnexpectedResponse } from '../errors';
import type { Transport } from './transport';
import type { EventData, RecordEventData } from './types';

export type DataOf<T extends string> = T extends keyof EventData ? EventData[T] : RecordEventData;

export interface SluiceEvent<T extends string = string, D = unknown> {
  /** The event's type: the subscribed one, or `dropped`. */
  type: T;
  /** The server's sequence number of the event. */
  id: string | undefined;
  data: D;
}

/** What a subscription to type T yields: its events, or `dropped` (narrow on `type`). */
export type SubscriptionEvent<T extends string> = SluiceEvent<T, DataOf<T>> | SluiceEvent<'dropped', EventData['dropped']>;

/** Where a subscription is in the node's event log: the last event id it got, and the log's id. */
export interface EventPosition {
  readonly lastEventId: string;
  readonly log: string | undefined;
}

/** The answer header that names the node's event log (src/server/sse/event-log.ts). */
const EVENT_LOG_HEADER = 'sluice-event-log';

export class EventSubscription<T extends string> implements AsyncIterable<SubscriptionEvent<T>> {
  private readonly controller = new AbortController();
  private started = false;
  private answered = false;
  private log: string | undefined;
  private lastEventId: string | undefined;
  /** Removed from the caller's signal once the subscription ends: a signal outlives many subscriptions. */
  private readonly onCallerAbort = (): void => this.close();

  constructor(
    private readonly transport: Transport,
    private readonly applicationId: string,
    private readonly eventType: T,
    private readonly callerSignal?: AbortSignal,
    private readonly resume?: EventPosition,
  ) {
    if (callerSignal?.aborted) this.controller.abort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Ends the subscription: the iteration finishes, the connection closes. */
  close(): void {
    this.controller.abort();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  get closed(): boolean {
    return this.controller.signal.aborted;
  }

  /** Whether the node answered the subscription with its stream (a stream may end or break before any event). */
  get opened(): boolean {
    return this.answered;
  }

  /** The last event yielded and its log, for a later subscription to resume after (`resume`); before any, the one resumed from. */
  get position(): EventPosition | undefined {
    return this.lastEventId === undefined ? this.resume : { lastEventId: this.lastEventId, log: this.log };
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionEvent<T>> {
    // One connection, one consumer: a second iteration would split the events between them.
    if (this.started) throw new UnexpectedResponse('an event subscription can be iterated once');
    this.started = true;
    return this.iterate();
  }

  private async *iterate(): AsyncGenerator<SubscriptionEvent<T>> {
    try {
      yield* this.read();
    } finally {
      // However it ended (the server, an error, the caller): nothing is left to close.
      this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    }
  }

  private async *read(): AsyncGenerator<SubscriptionEvent<T>> {
    if (this.closed) return;
    const signal = this.controller.signal;
    let response;
    try {
      const headers = this.resume === undefined ? undefined : { 'last-event-id': this.resume.lastEventId, ...(this.resume.log === undefined ? {} : { [EVENT_LOG_HEADER]: this.resume.log }) };
      response = await this.transport.open('subscribe', { params: { applicationId: this.applicationId, eventType: this.eventType }, signal, ...(headers === undefined ? {} : { headers }) });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    this.answered = true;
    const log = response.headers[EVENT_LOG_HEADER];
    this.log = typeof log === 'string' ? log : undefined;
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => pending.push(message) });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
        while (pending.length > 0) {
          const event = this.toEvent(pending.shift()!);
          if (event.id !== undefined) this.lastEventId = event.id;
          yield event;
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      response.body.destroy();
    }
  }

  private toEvent(message: EventSourceMessage): SubscriptionEvent<T> {
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      throw new UnexpectedResponse(`event ${message.event ?? 'message'} has data that is not JSON: ${message.data.slice(0, 200)}`);
    }
    // The server names each event's type; the data's shape is the one documented for that type.
    return { type: message.event ?? 'message', id: message.id, data } as SubscriptionEvent<T>;
  }
}
