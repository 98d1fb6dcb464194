/**
 * One log per instance and event type, shared by its subscribers: it numbers the events (`id:`, monotonic within
 * the log) and keeps the last `replaySize` of them, so that a client that lost its connection and comes back with
 * `Last-Event-ID` gets what it missed, and nothing twice. A log outlives its last subscriber by `lingerMs` (the time
 * a client has to come back), then lets go of the instance. Each log has an id of its own (the `Sluice-Event-Log`
 * header): a `Last-Event-ID` of another log (an earlier process, or a log that ended) is not taken as this one's.
 */

import { randomUUID } from 'node:crypto';
import type { LocalInstance } from '../context';
import type { EventStream } from './event-stream';
import { snapshotOf, subscribe, type EventSink } from './instance-events';

export interface EventLogOptions {
  /** Events kept for clients that come back; default 1 000. */
  readonly replaySize: number;
  /** How long a log with no subscriber keeps logging; default 60 s. */
  readonly lingerMs: number;
}

export const DEFAULT_EVENT_LOG_OPTIONS: EventLogOptions = { replaySize: 1000, lingerMs: 60_000 };

/** The header that names a stream's log, in the answer and in a client's request to resume. */
export const EVENT_LOG_HEADER = 'sluice-event-log';

/** Where a returning client left off: the last id it got, and the log it got it from (when it says). */
export interface ResumeFrom {
  readonly lastEventId: string;
  readonly log: string | undefined;
}

interface LoggedEvent {
  readonly event: string;
  readonly data: unknown;
}

export class EventLog implements EventSink {
  readonly id = randomUUID();
  private sequence = 0;
  /** A ring: event `id` at `id % replaySize`, the last `replaySize` ids kept. */
  private readonly kept: LoggedEvent[] = [];
  private readonly streams = new Set<EventStream>();
  private readonly cleanups: (() => void)[] = [];
  private linger: NodeJS.Timeout | undefined;

  constructor(
    private readonly instance: LocalInstance,
    private readonly type: string,
    private readonly options: EventLogOptions,
    private readonly onEnd: () => void,
  ) {}

  send(event: string, data: unknown): void {
    this.sequence += 1;
    this.kept[this.sequence % this.options.replaySize] = { event, data };
    for (const stream of this.streams) stream.send(event, data, this.sequence);
  }

  onClose(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  /** Adds a subscriber: what it missed since `resume`, else the type's snapshot; then every event. */
  join(stream: EventStream, resume: ResumeFrom | undefined): void {
    clearTimeout(this.linger);
    this.streams.add(stream);
    stream.onClose(() => this.leave(stream));
    const last = this.lastIdOf(resume);
    if (last !== undefined) {
      const forgotten = this.forgotten;
      if (last < forgotten) stream.send('dropped', { dropped: forgotten - last }, forgotten);
      for (let id = Math.max(last, forgotten) + 1; id <= this.sequence; id++) {
        const { event, data } = this.kept[id % this.options.replaySize]!;
        stream.send(event, data, id);
      }
      return;
    }
    const snapshot = snapshotOf(this.instance, this.type);
    if (snapshot === undefined) return;
    // The first subscriber's snapshot starts the log; a later one's is its own, as of the log's last event.
    if (this.sequence === 0) this.send(this.type, snapshot);
    else stream.send(this.type, snapshot, this.sequence);
  }

  /** Ends the log at once: the server is closing. */
  end(): void {
    clearTimeout(this.linger);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.onEnd();
  }

  /** The id of the newest event no longer kept. */
  private get forgotten(): number {
    return Math.max(0, this.sequence - this.options.replaySize);
  }

  /** The id a client resumes after, when it is one of this log's. */
  private lastIdOf(resume: ResumeFrom | undefined): number | undefined {
    if (resume === undefined || !/^\d{1,15}$/.test(resume.lastEventId)) return undefined;
    const last = Number(resume.lastEventId);
    // A client that names no log (a browser's EventSource) is taken at its word while its id can be this log's.
    if (resume.log === undefined ? last > this.sequence : resume.log !== this.id) return undefined;
    return last;
  }

  private leave(stream: EventStream): void {
    this.streams.delete(stream);
    if (this.streams.size > 0) return;
    this.linger = setTimeout(() => this.end(), this.options.lingerMs);
    this.linger.unref();
  }
}

/** The event logs of a server's instances, made when the first subscriber of an instance and type comes. */
export class EventLogs {
  private readonly logs = new Map<LocalInstance, Map<string, EventLog>>();

  constructor(
    private readonly options: EventLogOptions,
    private readonly metricsIntervalMs: number,
  ) {}

  /** The log of the instance's events of a type, made and subscribed to the instance if there is none. */
  logOf(instance: LocalInstance, type: string): EventLog {
    let byType = this.logs.get(instance);
    if (byType === undefined) this.logs.set(instance, (byType = new Map()));
    let log = byType.get(type);
    if (log === undefined) {
      const created = new EventLog(instance, type, this.options, () => {
        byType.delete(type);
        if (byType.size === 0) this.logs.delete(instance);
      });
      subscribe(created, instance, type, this.metricsIntervalMs);
      byType.set(type, (log = created));
    }
    return log;
  }

  close(): void {
    for (const byType of [...this.logs.values()]) for (const log of [...byType.values()]) log.end();
  }
}
