import { rebuildError, type TransferredError, transferError } from './transferred-error';

/** One side of a worker's message port: `Worker` on the main thread, `parentPort` in the worker. */
export interface Port {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** Functions one side offers the other: calls answer (possibly later), notes are one-way. */
type Functions = Record<string, (...args: never[]) => unknown>;

type Message =
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'reply'; id: number; result?: unknown; error?: TransferredError }
  | { kind: 'note'; note: string; args: unknown[] };

/**
 * Calls and notes between the main thread and a stream thread's worker over one port. `Calls` and `Notes` are what
 * the other side offers; `handlers` what this side answers. Arguments and results are structured-cloned: a Buffer
 * arrives as a Uint8Array.
 */
export class Channel<Calls extends Functions, Notes extends Functions> {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  private closed: Error | undefined;

  constructor(
    private readonly port: Port,
    private readonly handlers: Functions,
  ) {
    port.on('message', (message) => this.receive(message as Message));
  }

  call<K extends keyof Calls & string>(method: K, ...args: Parameters<Calls[K]>): Promise<Awaited<ReturnType<Calls[K]>>> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.port.postMessage({ kind: 'call', id, method, args });
    });
  }

  note<K extends keyof Notes & string>(note: K, ...args: Parameters<Notes[K]>): void {
    if (!this.closed) this.port.postMessage({ kind: 'note', note, args });
  }

  /** The other side is gone: calls under way and later ones fail with `error`. */
  close(error: Error): void {
    this.closed ??= error;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }

  private receive(message: Message): void {
    switch (message.kind) {
      case 'reply': {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiting?.reject(rebuildError(message.error));
        else waiting?.resolve(message.result);
        return;
      }
      case 'note':
        this.handlers[message.note]!(...(message.args as never[]));
        return;
      case 'call':
        Promise.resolve()
          .then(() => this.handlers[message.method]!(...(message.args as never[])))
          .then(
            (result) => this.port.postMessage({ kind: 'reply', id: message.id, result }),
            (error: unknown) => this.port.postMessage({ kind: 'reply', id: message.id, error: transferError(error) }),
          );
    }
  }
}
