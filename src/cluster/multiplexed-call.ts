import * as grpc from '@grpc/grpc-js';
import type { MultiplexedChunkMessage, MultiplexedQueryMessage, PeerQueryMessage, QueryChunkMessage } from './peer-service';

/** A failure as grpc-js gives one, so that the caller reads a lost call or a missed deadline as it reads a failed call. */
function callError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/**
 * The peer ended the call while queries were waiting (it is shutting down): they are not available there any more,
 * and the caller's retries follow their partitions elsewhere.
 */
export class MultiplexedCallEnded extends Error {
  constructor() {
    super('the peer ended the multiplexed call (shutting down)');
  }
}

/** The messages of one query as they come, until the call fails or the query's time is up. */
class Inbox {
  private readonly messages: QueryChunkMessage[] = [];
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(message: QueryChunkMessage): void {
    this.messages.push(message);
    this.wake?.();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake?.();
  }

  async next(): Promise<QueryChunkMessage> {
    while (this.messages.length === 0 && this.failure === undefined) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    if (this.messages.length === 0) throw this.failure!.error;
    return this.messages.shift()!;
  }
}

/** Ids wrap around before proto's uint32 does. */
const MAX_ID = 0xffffffff;

/**
 * One long-lived Multiplexed call to a peer (proto/sluice.proto), on which queries are asked under ids. A query's
 * messages reach it as they come. When the call ends or fails, every query still waiting fails with the call's
 * error and the call is closed: the next query needs a new one.
 */
export class MultiplexedCall {
  private readonly inboxes = new Map<number, Inbox>();
  private lastId = 0;
  private closed = false;

  constructor(
    private readonly call: grpc.ClientDuplexStream<MultiplexedQueryMessage, MultiplexedChunkMessage>,
    /** Told once, when the call has closed. */
    private readonly onClosed: () => void,
  ) {
    // A chunk for an id nobody waits for answers a query given up at its deadline: dropped.
    call.on('data', ({ id, chunk }: MultiplexedChunkMessage) => {
      const inbox = this.inboxes.get(id);
      if (chunk) inbox?.push(chunk);
      else inbox?.fail(new Error('the peer sent a message without its chunk'));
    });
    call.on('error', (error) => this.close(error));
    // A call that ends well was ended by the peer, which is shutting down.
    call.on('status', () => this.close(new MultiplexedCallEnded()));
  }

  get open(): boolean {
    return !this.closed;
  }

  /**
   * The messages that answer `query`, up to the one with its end. Throws the call's error when the call fails first,
   * and a DEADLINE_EXCEEDED error at `deadline`. Returning early lets the query go (its late messages are dropped).
   */
  async *ask(query: PeerQueryMessage, deadline: number): AsyncGenerator<QueryChunkMessage, void, undefined> {
    this.lastId = this.lastId >= MAX_ID ? 1 : this.lastId + 1;
    const id = this.lastId;
    const inbox = new Inbox();
    this.inboxes.set(id, inbox);
    const timer = setTimeout(() => inbox.fail(callError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded')), Math.max(0, deadline - Date.now()));
    try {
      if (this.closed) throw callError(grpc.status.UNAVAILABLE, 'the multiplexed call has closed');
      this.call.write({ id, query });
      for (;;) {
        const message = await inbox.next();
        yield message;
        if (message.end) return;
      }
    } finally {
      clearTimeout(timer);
      this.inboxes.delete(id);
    }
  }

  /** Ends this side: the peer answers the queries under way, then ends the call. */
  end(): void {
    if (!this.closed) this.call.end();
  }

  private close(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    for (const inbox of this.inboxes.values()) inbox.fail(error);
    this.onClosed();
  }
}
