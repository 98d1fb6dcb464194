/**
 * `sluice events`: follows an event stream across dropped connections. When the stream ends or breaks, it connects
 * again (backoff doubling from 250 ms to 5 s) and resumes after the last event printed (`Last-Event-ID`), so that no
 * event is printed twice; a node gone for longer than `--reconnect-for` ends the command as unreachable. The first
 * connection is not retried: a node that never answered is reported at once, as by every other command.
 */

import { InvalidArgumentError, Option } from 'commander';
import { ServerUnreachable, SluiceError } from '../../errors';
import { SluiceApiError, type EventPosition, type SluiceClient, type SluiceEvent } from '../../client';

export interface FollowOptions {
  /** How long the node may be gone before the command gives up, in ms. */
  reconnectForMs: number;
  /** Ends the command (Ctrl-C). */
  signal: AbortSignal;
  print: (event: SluiceEvent) => void;
  /** Tells the user of a drop, on standard error. */
  say: (line: string) => void;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('must be a positive number of seconds.');
  return n;
}

/** `--reconnect-for`, of the commands that follow an event stream. */
export function reconnectForOption(): Option {
  return new Option('--reconnect-for <seconds>', 'how long to keep reconnecting to a node that went away before exiting 4 (unreachable)').argParser(seconds).default(30);
}

/** A line for the user on standard error (a dropped stream). */
export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs `follow` until Ctrl-C (SIGINT) or SIGTERM aborts its signal. */
export async function untilInterrupted(follow: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const close = () => stop.abort();
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
  try {
    await follow(stop.signal);
  } finally {
    process.off('SIGINT', close);
    process.off('SIGTERM', close);
  }
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5000;

/** Worth another try: the node did not answer, answered 5xx (as while it starts or stops), or the connection broke. */
function isDrop(error: unknown): boolean {
  if (error instanceof SluiceApiError) return error.status >= 500;
  if (error instanceof SluiceError) return error.exception === ServerUnreachable.exception;
  return true;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function followEvents(client: SluiceClient, application: string, type: string, options: FollowOptions): Promise<void> {
  const { signal } = options;
  let position: EventPosition | undefined;
  let droppedAt: number | undefined;
  let backoff = FIRST_BACKOFF_MS;
  while (!signal.aborted) {
    const subscription = client.events(application, type, { signal, ...(position === undefined ? {} : { resume: position }) });
    let problem = 'the node ended the event stream';
    try {
      for await (const event of subscription) options.print(event);
    } catch (error) {
      // The first connection is not retried: a node that never answered is reported at once.
      if ((position === undefined && droppedAt === undefined && !subscription.opened) || !isDrop(error)) throw error;
      problem = (error as Error).message;
    }
    if (signal.aborted) return;
    position = subscription.position ?? position;
    if (subscription.opened) {
      // It was back: the time it may be gone starts again.
      droppedAt = undefined;
      backoff = FIRST_BACKOFF_MS;
    }
    if (droppedAt === undefined) {
      droppedAt = Date.now();
      options.say(`sluice: lost the event stream (${problem}); reconnecting for up to ${options.reconnectForMs / 1000} s`);
    } else if (Date.now() - droppedAt >= options.reconnectForMs) {
      throw new ServerUnreachable(client.url, `gone for ${options.reconnectForMs / 1000} s while following events (${problem})`);
    }
    await sleep(backoff, signal);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
