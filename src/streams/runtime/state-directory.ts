import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { CorruptedTaskState, IllegalState, PathOutsideStateDirectory, TaskDirectoryLocked } from '../../errors';
import { TopicPartitionMap } from '../kafka';
import { checkApplicationId } from './application-id';
import { liveWorkerThreadIds } from './worker-thread-ids';

const LOCK_FILE = '.lock';
const PROCESS_FILE = 'sluice-process-metadata';
const CHECKPOINT_FILE = '.checkpoint';
/** Present while a task's stores open: found at a start, the last opening killed the process. */
const OPENING_FILE = '.opening';
const CHECKPOINT_VERSION = 0;
/**
 * This run of the process, as lock files name it beside the pid: a later process given the same pid (a container's
 * PID 1, restarted on the same volume) takes over the locks an earlier one left. Drawn once per thread that loads
 * this module; a worker is given its main thread's (see StateDirectory's constructor).
 */
const THIS_RUN = randomUUID();

/** A changelog offset per topic-partition: where a restore of the task's local state would begin. */
export type Checkpoint = TopicPartitionMap<number>;

/**
 * `segments` resolved under `root`, which the result must lie strictly inside: never `root` itself, never outside
 * it. Every path built from an application id or a task id goes through here, so that no id can make a cleanup
 * remove anything but its own directory.
 */
export function pathInside(root: string, ...segments: string[]): string {
  const base = path.resolve(root);
  const target = path.resolve(base, ...segments);
  const relative = path.relative(base, target);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new PathOutsideStateDirectory(target, base);
  }
  return target;
}

/**
 * The state directory of an application on this machine: `<state.dir>/<application.id>/<taskId>/`, one lock
 * per task directory (so two instances never share one, nor two threads of one instance), and the `.checkpoint`
 * file of each task.
 */
export class StateDirectory {
  /** The task directories this process holds: the lock file's descriptor, and which of its threads holds it. */
  private readonly locks = new Map<string, { fd: number; owner: string }>();
  private readonly stateDir: string;
  private readonly applicationId: string;
  /** What a lock file holds: the process, its run and the thread (0: the main thread) that hold the lock. */
  private readonly holder: string;

  /** `processRun`: the run of the process that lock files name; a worker thread passes its main thread's. */
  constructor(
    stateDir: string,
    applicationId: string,
    readonly processRun: string = THIS_RUN,
  ) {
    this.stateDir = path.resolve(stateDir);
    this.applicationId = checkApplicationId(applicationId);
    this.holder = `${process.pid}:${processRun}:${threadId}`;
  }

  /** `<state.dir>/<application.id>`, checked to be inside the state directory each time it is built. */
  get appDir(): string {
    return pathInside(this.stateDir, this.applicationId);
  }

  /**
   * Kafka Streams' initializeProcessId: the process id kept in the application's directory, written on first use,
   * so that a restarted process is the same client. A fresh one for every run without `persistent` state.
   */
  processId(persistent: boolean): string {
    if (!persistent) return randomUUID();
    const file = path.join(this.appDir, PROCESS_FILE);
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { processId?: unknown };
      if (typeof parsed.processId === 'string') return parsed.processId;
    } catch {
      // No file yet: a new process id is written below.
    }
    const processId = randomUUID();
    fs.mkdirSync(this.appDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ processId, newProcessId: processId }));
    return processId;
  }

  taskDir(taskId: string): string {
    return pathInside(this.appDir, taskId);
  }

  /** Task ids that have a directory here (state left by an earlier run). */
  taskIdsWithState(): string[] {
    if (!fs.existsSync(this.appDir)) return [];
    return fs
      .readdirSync(this.appDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && /^\d+_\d+$/.test(e.name))
      .map((e) => e.name);
  }

  /**
   * Locks a task directory (creating it) for `owner`, a thread of this process. The lock file names the owning pid,
   * so a lock left by a process that died is taken over; one held by a live process, or by another thread of this
   * one (a task moving between threads: the old one still closes it), is refused.
   */
  lock(taskId: string, owner: string): void {
    const held = this.locks.get(taskId);
    if (held?.owner === owner) return;
    const dir = this.taskDir(taskId);
    if (held) throw new TaskDirectoryLocked(dir, `thread ${held.owner} of this instance`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
    const lockPath = path.join(dir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = fs.openSync(lockPath, 'wx');
        fs.writeSync(fd, this.holder);
        this.locks.set(taskId, { fd, owner });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = lockHolderIn(fs.readFileSync(lockPath, 'utf8'));
        if (this.isThisRun(holder) && holder.thread !== threadId && heldByAnotherThread(holder.thread)) {
          throw new TaskDirectoryLocked(dir, `thread ${holder.thread} of this process`);
        }
        // Left by this process, by an earlier run under the same pid, or by a process that died.
        if (holder.pid === process.pid || !isAlive(holder.pid)) {
          fs.rmSync(lockPath, { force: true });
          continue;
        }
        throw new TaskDirectoryLocked(dir, `process ${holder.pid}`);
      }
    }
    throw new TaskDirectoryLocked(dir, 'another process');
  }

  /** Removes the lock files a worker thread of this process left when it ended, for the other threads to take. */
  releaseLocksOfThread(thread: number): void {
    for (const taskId of this.taskIdsWithState()) {
      const lockPath = path.join(this.taskDir(taskId), LOCK_FILE);
      let holder;
      try {
        holder = lockHolderIn(fs.readFileSync(lockPath, 'utf8'));
      } catch {
        continue;
      }
      if (this.isThisRun(holder) && holder.thread === thread) fs.rmSync(lockPath, { force: true });
    }
  }

  private isThisRun(holder: LockHolder): boolean {
    return holder.pid === process.pid && holder.run === this.processRun;
  }

  /** The thread of this process that holds a task directory's lock, if one does. */
  lockOwner(taskId: string): string | undefined {
    return this.locks.get(taskId)?.owner;
  }

  /** Releases `owner`'s lock; a lock another thread took since is left alone. */
  unlock(taskId: string, owner: string): void {
    const held = this.locks.get(taskId);
    if (held === undefined || held.owner !== owner) return;
    this.locks.delete(taskId);
    fs.closeSync(held.fd);
    fs.rmSync(path.join(this.taskDir(taskId), LOCK_FILE), { force: true });
  }

  /**
   * A task's checkpoint for a report or a subscription: a corrupted one reads as none (the runtime deals with it when
   * it opens the task).
   */
  readableCheckpoint(taskId: string): Checkpoint | undefined {
    try {
      return this.readCheckpoint(taskId);
    } catch (error) {
      if (error instanceof CorruptedTaskState) return undefined;
      throw error;
    }
  }

  /**
   * Reads a task's checkpoint (Kafka Streams' text format: version, count, then `topic partition offset`). A file
   * that does not parse in full (wrong version, fewer or more entries than announced, a field that is not a
   * number) throws CorruptedTaskState: a checkpoint read in part would vouch for offsets nobody wrote.
   */
  readCheckpoint(taskId: string): Checkpoint | undefined {
    const file = path.join(this.taskDir(taskId), CHECKPOINT_FILE);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const corrupt = (detail: string) => new CorruptedTaskState(file, detail);
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines[0] !== String(CHECKPOINT_VERSION)) throw corrupt(`version ${JSON.stringify(lines[0] ?? '')}, expected ${CHECKPOINT_VERSION}`);
    const count = decimal(lines[1]);
    if (count === undefined) throw corrupt(`entry count ${JSON.stringify(lines[1] ?? '')} is not a number`);
    const entries = lines.slice(2);
    if (entries.length !== count) throw corrupt(`${count} entries announced, ${entries.length} found`);
    const checkpoint: Checkpoint = new TopicPartitionMap();
    for (const line of entries) {
      const [topic, partition, offset, ...rest] = line.split(' ');
      const number = decimal(partition);
      const position = offset?.startsWith('-') ? decimal(offset.slice(1)) : decimal(offset);
      if (!topic || rest.length > 0 || number === undefined || position === undefined) throw corrupt(`entry ${JSON.stringify(line)}`);
      // A negative offset vouches for nothing (Kafka Streams skips it too): that partition restores in full.
      if (!offset!.startsWith('-')) checkpoint.set(topic, number, position);
    }
    return checkpoint;
  }

  /** Writes a checkpoint atomically (temp file, then rename). */
  writeCheckpoint(taskId: string, checkpoint: Checkpoint): void {
    const dir = this.taskDir(taskId);
    const file = path.join(dir, CHECKPOINT_FILE);
    const entries = [...checkpoint.entries()];
    const text = [String(CHECKPOINT_VERSION), String(entries.length), ...entries.map(([tp, offset]) => `${tp.topic} ${tp.partition} ${offset}`)].join('\n') + '\n';
    fs.writeFileSync(file + '.tmp', text);
    fs.renameSync(file + '.tmp', file);
  }

  /** Removes a task's local state (its stores), keeping the lock: used when no checkpoint vouches for it. */
  wipeTaskState(taskId: string): void {
    const dir = this.taskDir(taskId);
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      if (entry !== LOCK_FILE) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    }
  }

  /** Marks a task's stores as opening, until `storesOpened`. */
  openingStores(taskId: string): void {
    fs.writeFileSync(path.join(this.taskDir(taskId), OPENING_FILE), String(process.pid));
  }

  storesOpened(taskId: string): void {
    fs.rmSync(path.join(this.taskDir(taskId), OPENING_FILE), { force: true });
  }

  /** Whether the process died while the task's stores were opening (LMDB reads a damaged file without a check). */
  openingInterrupted(taskId: string): boolean {
    return fs.existsSync(path.join(this.taskDir(taskId), OPENING_FILE));
  }

  deleteCheckpoint(taskId: string): void {
    fs.rmSync(path.join(this.taskDir(taskId), CHECKPOINT_FILE), { force: true });
  }

  /** Removes all local state of the application; refused while any task directory is locked by this process. */
  cleanUp(): void {
    if (this.locks.size > 0) throw new IllegalState('cannot clean up the state directory while tasks are open');
    fs.rmSync(this.appDir, { recursive: true, force: true });
  }
}

/** A non-negative decimal integer, or undefined. */
function decimal(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

interface LockHolder {
  pid: number;
  /** Undefined in a lock file of an earlier version, which named no run. */
  run: string | undefined;
  thread: number;
}

/** The process, run and thread a lock file names (earlier versions wrote `pid:thread`, and before that `pid`). */
function lockHolderIn(text: string): LockHolder {
  const parts = text.split(':');
  const [pid, run, thread] = parts.length >= 3 ? parts : [parts[0], undefined, parts[1]];
  return { pid: Number(pid), run, thread: Number(thread ?? 0) };
}

/**
 * Whether another thread of this process holds a lock it wrote. A worker cannot tell which threads live, so to it
 * the main thread's and other workers' locks are held (the main thread releases those of a worker that ended); the
 * main thread knows its workers, and takes over a lock left by one that ended, or by an earlier instance of its own.
 */
function heldByAnotherThread(thread: number): boolean {
  return isMainThread ? liveWorkerThreadIds.has(thread) : true;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
