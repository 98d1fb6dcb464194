/**
 * One server-sent-events subscriber: `event:`, `id:`, `data:` (one-line JSON) per event, a comment line as
 * keepalive, and a bounded queue of what the connection has not taken yet. A slow client never makes the server
 * buffer without bound: past the bound the oldest events are dropped and a `dropped` event says how many.
 */

export interface EventStreamOptions {
  /** Events waiting for the connection, at most; default 10 000. */
  readonly queueSize: number;
  /** A comment line this often keeps proxies from closing an idle stream; default 15 s. */
  readonly keepaliveMs: number;
}

export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = { queueSize: 10_000, keepaliveMs: 15_000 };

/** The part of a response (`ServerResponse`) the stream writes to. */
export interface EventSink {
  write(chunk: string): boolean;
  end(): unknown;
  once(event: 'drain', listener: () => void): unknown;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

interface PendingEvent {
  readonly event: string;
  readonly data: string;
  /** The id its log gave it (event-log.ts); without one, the stream numbers its events itself. */
  readonly id?: number;
}

export class EventStream {
  private queue: PendingEvent[] = [];
  private dropped = 0;
  /** The id of the newest event dropped: the `dropped` event takes it, so that a client resuming from it skips them. */
  private lastDroppedId: number | undefined;
  private sequence = 0;
  private waitingForDrain = false;
  private closed = false;
  private readonly keepalive: NodeJS.Timeout;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly sink: EventSink,
    private readonly options: EventStreamOptions = DEFAULT_EVENT_STREAM_OPTIONS,
  ) {
    this.keepalive = setInterval(() => this.writeRaw(': keepalive\n\n'), options.keepaliveMs);
    this.keepalive.unref();
  }

  /** Events queued and not yet handed to the connection. */
  get pending(): number {
    return this.queue.length;
  }

  /** Runs when the stream closes (the client left or the server shuts down): where subscriptions are removed. */
  onClose(cleanup: () => void): void {
    if (this.closed) cleanup();
    else this.cleanups.push(cleanup);
  }

  send(event: string, data: unknown, id?: number): void {
    if (this.closed) return;
    this.queue.push({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) });
    if (this.queue.length > this.options.queueSize) {
      this.lastDroppedId = this.queue.shift()!.id;
      this.dropped += 1;
    }
    this.flush();
  }

  /** Releases everything at once: timers, subscriptions, queued events; ends the response if it is still open. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepalive);
    this.queue = [];
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    if (!this.sink.writableEnded && !this.sink.destroyed) this.sink.end();
  }

  private flush(): void {
    while (!this.closed && !this.waitingForDrain && (this.queue.length > 0 || this.dropped > 0)) {
      let next: PendingEvent;
      if (this.dropped > 0) {
        next = { event: 'dropped', data: JSON.stringify({ dropped: this.dropped }), ...(this.lastDroppedId === undefined ? {} : { id: this.lastDroppedId }) };
        this.dropped = 0;
        this.lastDroppedId = undefined;
      } else {
        next = this.queue.shift()!;
      }
      this.sequence += 1;
      this.writeRaw(`event: ${next.event}\nid: ${next.id ?? this.sequence}\ndata: ${next.data}\n\n`);
    }
  }

  private writeRaw(text: string): void {
    if (this.closed || this.sink.writableEnded || this.sink.destroyed) return;
    if (!this.sink.write(text) && !this.waitingForDrain) {
      this.waitingForDrain = true;
      this.sink.once('drain', () => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
  }
}
