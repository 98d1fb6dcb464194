import type { Logger } from 'pino';
import { EARLIEST, type FetchedPartition, type ChangelogRecordList, isTransientKafkaError, OffsetOutOfRange, type ReadPosition, TopicPartitionMap } from '../kafka';

/** The part of the Kafka adapter's ChangelogReader that restoration uses. */
export interface ChangelogSource {
  fetch(positions: readonly ReadPosition[], options?: { maxWaitMs?: number }): Promise<FetchedPartition[]>;
  close(): Promise<void>;
  /** Caps what one round of fetches may bring (the node's memory budget's share). */
  limitFetch(bytes: number): void;
  /** The most one round of fetches may bring now. */
  readonly fetchBytes: number;
}

/** One changelog partition of a task's store, to read from `startOffset` to the end it has when first fetched. */
export interface ChangelogToRestore {
  taskId: string;
  store: string;
  topic: string;
  partition: number;
  /** The task's checkpoint, or EARLIEST (the adapter's constant): from the log start. */
  startOffset: number;
  /** Writes restored records into the store (a global store: runs them through its processor). */
  apply(records: ChangelogRecordList): void;
}

export interface RestoreProgress {
  taskId: string;
  topic: string;
  partition: number;
  /** Where the restore began and is to end: the offsets its first fetch found. */
  startOffset: number;
  endOffset: number;
  /** Epoch ms the restore began (its task registered). */
  startedAt: number;
  /** Records applied so far. */
  restored: number;
  /** Records to apply in all: the changelog's end offset, when first fetched, minus the start offset. */
  total: number;
  /** Offsets still to read (Kafka Streams' remaining records): 0 once done. */
  remaining: number;
  done: boolean;
}

/** Where a changelog's restore began and ends, and how long it has taken since its task was registered. */
export interface RestoreSpan {
  startingOffset: number;
  endingOffset: number;
  durationMs: number;
}

/** A changelog position to write in its task's checkpoint. */
export interface RestoredPosition {
  topic: string;
  partition: number;
  offset: number;
}

export interface RestoreListener {
  onProgress(changelog: ChangelogToRestore, progress: RestoreProgress, span: RestoreSpan): void;
  /** Every changelog of the task has reached its end (its stores still hold unflushed writes). */
  onTaskRestored(taskId: string): void;
  /** Restoration cannot go on: a non-transient failure, or transient ones for longer than `retryForMs`. */
  onError(error: unknown): void;
  /**
   * A changelog of the task no longer holds the offset to read from (truncated or deleted and created again since
   * the checkpoint): the task's restore is dropped, the others go on. Kafka Streams' TaskCorruptedException: the
   * task's stores are to be wiped and restored from the log start. Without this handler, onError.
   */
  onTaskCorrupted?(taskId: string, error: OffsetOutOfRange): void;
}

interface RestoringChangelog {
  changelog: ChangelogToRestore;
  /** Fixed by the first fetch when the changelog is read from its log start. */
  startOffset: number;
  position: number;
  /** Fixed by the first fetch: the high watermark, or under read_committed the last stable offset. */
  endOffset: number | undefined;
  restored: number;
  /** The position last handed out for a checkpoint. */
  checkpointed: number;
  registeredAt: number;
  /** A followed changelog (standby, global store): read on as it grows, never done. */
  follow: boolean;
  /** Reached the end offset of its first fetch once (a followed changelog stays registered after). */
  caughtUp: boolean;
}

const RETRY_BACKOFF_MS = 1000;

/**
 * Kafka Streams' StoreChangelogReader: restores the changelogs of a thread's new tasks, all partitions in each
 * fetch, while the thread keeps processing its restored tasks. Each changelog partition is read from the
 * task's checkpoint (or the log start) to the end offset its first fetch reports, and then stops; a task is
 * handed back the moment all of its changelogs are done, without waiting for other tasks. A task unregistered
 * meanwhile (revoked, closed) is dropped between two fetches, and nothing more is written to its stores.
 */
export class ChangelogRestorer {
  private readonly restoring = new TopicPartitionMap<RestoringChangelog>();
  private loop: Promise<void> | undefined;
  private closed = false;
  private failingSince: number | undefined;

  constructor(
    private readonly source: ChangelogSource,
    private readonly listener: RestoreListener,
    private readonly options: { retryForMs: number; logger: Logger },
  ) {}

  /**
   * Starts restoring a task's changelogs; a task with none is restored at once (unless followed). A followed task is
   * restored once each of its changelogs has reached the end offset its first fetch reported, and is read on.
   */
  register(taskId: string, changelogs: readonly ChangelogToRestore[], options: { follow?: boolean } = {}): void {
    const follow = options.follow ?? false;
    if (changelogs.length === 0) {
      if (follow) return;
      queueMicrotask(() => this.listener.onTaskRestored(taskId));
      return;
    }
    const registeredAt = Date.now();
    for (const changelog of changelogs) {
      const start = changelog.startOffset;
      this.restoring.set(changelog.topic, changelog.partition, { changelog, startOffset: start, position: start, endOffset: undefined, restored: 0, checkpointed: start, registeredAt, follow, caughtUp: false });
    }
    this.ensureRunning();
  }

  private ensureRunning(): void {
    if (this.loop !== undefined || this.closed) return;
    this.loop = this.run().finally(() => {
      this.loop = undefined;
      if (this.restoring.size > 0) this.ensureRunning();
    });
  }

  /** Stops restoring a task (revoked or closed); what it restored so far stays in its stores. */
  unregister(taskId: string): void {
    for (const r of [...this.restoring.values()]) if (r.changelog.taskId === taskId) this.restoring.delete(r.changelog.topic, r.changelog.partition);
  }

  isRestoring(taskId: string): boolean {
    for (const r of this.restoring.values()) if (r.changelog.taskId === taskId) return true;
    return false;
  }

  /** Whether a changelog of the task has not yet reached the end offset of its first fetch. */
  private catchingUp(taskId: string): boolean {
    for (const r of this.restoring.values()) if (r.changelog.taskId === taskId && !r.caughtUp) return true;
    return false;
  }

  /** How far a changelog partition being restored is read (the next offset), or undefined when it is not restoring. */
  position(topic: string, partition: number): number | undefined {
    const r = this.restoring.get(topic, partition);
    return r === undefined || r.position === EARLIEST ? undefined : r.position;
  }

  /** Where the restore of a changelog partition began and is to end (undefined until its first fetch says). */
  span(topic: string, partition: number): { startingOffset: number; endingOffset: number | undefined } | undefined {
    const r = this.restoring.get(topic, partition);
    return r === undefined || r.follow || r.startOffset === EARLIEST ? undefined : { startingOffset: r.startOffset, endingOffset: r.endOffset };
  }

  /**
   * The positions of a task's restoring changelogs that moved at least `minProgress` offsets since they were last
   * taken, marked as taken: what its checkpoint should now say.
   */
  takeCheckpoint(taskId: string, minProgress: number): RestoredPosition[] {
    const positions: RestoredPosition[] = [];
    for (const r of this.restoring.values()) {
      if (r.changelog.taskId !== taskId || r.position === EARLIEST || r.position - r.checkpointed < minProgress) continue;
      r.checkpointed = r.position;
      positions.push({ topic: r.changelog.topic, partition: r.changelog.partition, offset: r.position });
    }
    return positions;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.restoring.clear();
    await this.loop;
    await this.source.close();
  }

  private async run(): Promise<void> {
    // The next round is fetched while the records of this one are written: the broker reads while LMDB writes.
    let next: Promise<Round> | undefined;
    while (this.restoring.size > 0 && !this.closed) {
      const { round, fetched, error } = await (next ?? this.fetchRound());
      next = undefined;
      if (this.closed) return;
      if (error !== undefined) {
        if (error instanceof OffsetOutOfRange && this.listener.onTaskCorrupted) {
          const taskId = this.restoring.get(error.topic, error.partition)?.changelog.taskId;
          if (taskId !== undefined) {
            this.unregister(taskId);
            this.listener.onTaskCorrupted(taskId, error);
            continue;
          }
        }
        const first = this.failingSince === undefined;
        if (isTransientKafkaError(error) && Date.now() - (this.failingSince ??= Date.now()) < this.options.retryForMs) {
          // One short line per outage; its retries at debug.
          this.options.logger[first ? 'warn' : 'debug']({ reason: (error as Error).message }, 'reading changelogs failed; retrying until task.timeout.ms');
          await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
          continue;
        }
        this.restoring.clear();
        this.listener.onError(error);
        return;
      }
      this.failingSince = undefined;
      const applied: { r: RestoringChangelog; records: ChangelogRecordList }[] = [];
      for (const partition of fetched) {
        const r = this.restoring.get(partition.topic, partition.partition);
        // Unregistered, or registered again for a new task, while the fetch was under way.
        if (r === undefined || !round.includes(r) || partition.errorCode !== 0) continue;
        if (r.endOffset === undefined) {
          r.startOffset = partition.fetchOffset;
          r.endOffset = Math.max(partition.endOffset, partition.fetchOffset);
        } else if (r.follow) {
          r.endOffset = Math.max(partition.endOffset, r.position);
        }
        const end = r.endOffset;
        const records = partition.records;
        let count = records.length;
        while (count > 0 && records.offsetAt(count - 1) >= end) count--;
        records.truncate(count);
        applied.push({ r, records });
        r.position = Math.min(Math.max(partition.fetchOffset, partition.nextOffset), end);
        if (r.position >= end && !r.follow) this.restoring.delete(partition.topic, partition.partition);
      }
      if (this.restoring.size > 0) next = this.fetchRound();
      const finishedTasks = new Set<string>();
      for (const { r, records } of applied) {
        try {
          if (records.length > 0) r.changelog.apply(records);
        } catch (applyError) {
          this.restoring.clear();
          this.listener.onError(applyError);
          return;
        }
        r.restored += records.length;
        const end = r.endOffset!;
        const done = r.position >= end && !r.follow;
        const { topic, partition } = r.changelog;
        const progress = { taskId: r.changelog.taskId, topic, partition, startOffset: r.startOffset, endOffset: end, startedAt: r.registeredAt, restored: r.restored, total: end - r.startOffset, remaining: end - r.position, done };
        this.listener.onProgress(r.changelog, progress, { startingOffset: r.startOffset, endingOffset: end, durationMs: Date.now() - r.registeredAt });
        if (r.position >= end && !r.caughtUp) {
          r.caughtUp = true;
          finishedTasks.add(r.changelog.taskId);
        }
      }
      for (const taskId of finishedTasks) if (!this.catchingUp(taskId)) this.listener.onTaskRestored(taskId);
    }
  }

  /** One fetch of every changelog still restoring, from its position; never rejects. */
  private async fetchRound(): Promise<Round> {
    const round = [...this.restoring.values()];
    try {
      // A partition not fetched yet may already be at its end: the broker is not to wait for data then.
      const probing = round.some((r) => r.endOffset === undefined);
      const fetched = await this.source.fetch(
        round.map((r) => ({ topic: r.changelog.topic, partition: r.changelog.partition, offset: r.position })),
        probing ? { maxWaitMs: 0 } : undefined,
      );
      return { round, fetched };
    } catch (error) {
      return { round, fetched: [], error };
    }
  }
}

interface Round {
  round: RestoringChangelog[];
  fetched: FetchedPartition[];
  error?: unknown;
}
