/**
 * The rebalances this node took part in and the restores it ran, with what the node can tell of their causes: its own
 * reasons to join (from the instance), and the group's membership before and after (from its reads of the group). Kept
 * in memory, the last `capacity` entries; fed by the instance's events (joins, assignments, restore progress per
 * fetch), never per record.
 */

import type { RestoreProgress } from './changelog-restorer';
import type { GroupMemberSummary } from './streams-metadata';

/** A restore's progress, as the instance tells it (its `restore` event). */
type RestoreEvent = RestoreProgress & { readonly store: string };

/** Entries kept; the oldest go first. */
export const TIMELINE_CAPACITY = 200;
/** A running restore's entry is told again at most this often (its end always). */
const UPDATE_INTERVAL_MS = 1000;

/** A process of the group as a cause names it. */
interface ProcessRef {
  readonly processId: string;
  /** `application.server`, when the process set one. */
  readonly endpoint: string | undefined;
}

/**
 * Why a rebalance happened, as far as this node knows. Its own reasons are told as they happen; the membership
 * changes are read from the group after the rebalance. The group does not say whether a member that is gone sent a
 * LeaveGroup or let its session time out: `member_left` is either.
 */
export type RebalanceCause =
  | { readonly type: 'instance_started' }
  | { readonly type: 'thread_added'; readonly thread: string }
  | { readonly type: 'thread_removed'; readonly thread: string }
  | { readonly type: 'thread_failed'; readonly thread: string; readonly error: string }
  | { readonly type: 'thread_replaced'; readonly thread: string; readonly replacement: string }
  | { readonly type: 'probing_rebalance'; readonly tasks: readonly string[] }
  | { readonly type: 'new_topics'; readonly topics: readonly string[] }
  | { readonly type: 'shutdown_requested'; readonly error: string }
  | { readonly type: 'dropped_from_group' }
  | ({ readonly type: 'member_joined' | 'member_left' | 'member_rejoined'; readonly members: number } & ProcessRef)
  | ({ readonly type: 'members_changed'; readonly before: number; readonly after: number } & ProcessRef)
  | { readonly type: 'unknown' };

/** One line for a person. */
export function describeCause(cause: RebalanceCause): string {
  const process = (p: ProcessRef): string => (p.endpoint === undefined ? p.processId : `${p.endpoint} (${p.processId})`);
  switch (cause.type) {
    case 'instance_started':
      return 'this node started the application';
    case 'thread_added':
      return `this node added stream thread ${cause.thread}`;
    case 'thread_removed':
      return `this node removed stream thread ${cause.thread}`;
    case 'thread_failed':
      return `stream thread ${cause.thread} of this node failed and left the group: ${cause.error}`;
    case 'thread_replaced':
      return `this node replaced failed stream thread ${cause.thread} with ${cause.replacement}`;
    case 'probing_rebalance':
      return `this node's assignor probes whether warm-ups caught up (${cause.tasks.join(', ')})`;
    case 'new_topics':
      return `new topics match a source pattern: ${cause.topics.join(', ')}`;
    case 'shutdown_requested':
      return `this node asked the application to shut down: ${cause.error}`;
    case 'dropped_from_group':
      return "the group had dropped this node's member (session or poll timeout); it joined again";
    case 'member_joined':
      return `member joined: ${process(cause)}, ${cause.members} thread(s)`;
    case 'member_left':
      return `member left or timed out: ${process(cause)}, ${cause.members} thread(s)`;
    case 'member_rejoined':
      return `member rejoined under new member ids (restarted, or dropped and back): ${process(cause)}`;
    case 'members_changed':
      return `member's threads changed: ${process(cause)}, ${cause.before} → ${cause.after}`;
    case 'unknown':
      return 'another member asked for it (its threads, a probing rebalance of its own, its subscription); the group does not say';
  }
}

export type TaskRole = 'active' | 'standby' | 'warmup';

/** The tasks a node holds. `warmup`: those of `standby` that are warm-ups. */
export interface NodeTasks {
  readonly active: readonly string[];
  readonly standby: readonly string[];
  readonly warmup: readonly string[];
}

export interface MovedTask {
  readonly taskId: string;
  readonly role: TaskRole;
  /** A gained active task: what its stores restored after this rebalance (records), and whether every restore ended. */
  readonly restore?: { readonly records: number; readonly done: boolean };
}

/** Which node an entry is from, so that the timelines of several nodes can be merged. */
export interface TimelineNode {
  readonly processId: string;
  readonly endpoint: string | undefined;
}

export interface RebalanceEntry extends TimelineNode {
  readonly type: 'rebalance';
  /** The entry's number on this node's timeline (from 1): an update of an entry has the same. */
  readonly id: number;
  /** Epoch ms this node began to join (a thread's revocation, or a new thread's first join). */
  readonly startedAt: number;
  /** Epoch ms the assignment was applied (by its last thread); undefined while the node waits for it. */
  readonly endedAt: number | undefined;
  readonly durationMs: number | undefined;
  /** The group's generation; undefined until the assignment. */
  readonly generation: number | undefined;
  readonly causes: readonly RebalanceCause[];
  readonly gained: readonly MovedTask[];
  readonly lost: readonly MovedTask[];
}

export interface RestoreEntry extends TimelineNode {
  readonly type: 'restore';
  readonly id: number;
  readonly taskId: string;
  readonly store: string;
  readonly topic: string;
  readonly partition: number;
  readonly startOffset: number;
  readonly endOffset: number;
  /** Records restored so far. */
  readonly restored: number;
  /** Offsets still to read. */
  readonly remaining: number;
  /** Records restored per second, over the restore so far. */
  readonly rate: number;
  /** While it runs, the time left at that rate; undefined once done or before a record. */
  readonly estimatedRemainingMs: number | undefined;
  readonly done: boolean;
  readonly startedAt: number;
  readonly endedAt: number | undefined;
  readonly durationMs: number;
}

export type TimelineEntry = RebalanceEntry | RestoreEntry;

interface OpenRebalance {
  readonly type: 'rebalance';
  readonly id: number;
  startedAt: number;
  endedAt: number | undefined;
  generation: number | undefined;
  readonly causes: RebalanceCause[];
  /** Changes of the group's membership, once read after the assignment. */
  membership: RebalanceCause[] | undefined;
  readonly tasksBefore: NodeTasks;
  tasksAfter: NodeTasks | undefined;
  /** The group as the last read before the rebalance found it; undefined before the node's first read. */
  readonly membersBefore: readonly GroupMemberSummary[] | undefined;
  /** The restores begun after it, by task and changelog partition: their records so far, and whether they ended. */
  readonly restores: Map<string, Map<string, { restored: number; ended: boolean }>>;
  lastSentAt: number;
}

interface OpenRestore {
  readonly type: 'restore';
  readonly id: number;
  endedAt: number | undefined;
  lastSentAt: number;
  latest: RestoreEvent;
}

/** A restore under way: its entry (none when there was nothing to restore) and the rebalance it began after. */
interface RunningRestore {
  readonly entry: OpenRestore | undefined;
  readonly rebalance: OpenRebalance | undefined;
}

type Stored = OpenRebalance | OpenRestore;

const NO_TASKS: NodeTasks = { active: [], standby: [], warmup: [] };

export interface TimelineOptions {
  readonly capacity?: number;
  readonly now?: () => number;
}

export class RebalanceTimeline {
  private readonly stored: Stored[] = [];
  private nextId = 1;
  /** Causes told while no rebalance was open: the next one's. */
  private pending: RebalanceCause[] = [];
  private tasks: NodeTasks = NO_TASKS;
  private members: readonly GroupMemberSummary[] | undefined;
  /** Reads of the group told so far. */
  private reads = 0;
  /** Restores under way, by task, changelog and partition. */
  private readonly restoring = new Map<string, RunningRestore>();
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(
    private readonly node: TimelineNode,
    private readonly onEntry: (entry: TimelineEntry) => void,
    options: TimelineOptions = {},
  ) {
    this.capacity = options.capacity ?? TIMELINE_CAPACITY;
    this.now = options.now ?? Date.now;
  }

  /** A reason of this node's for the group to rebalance: the open rebalance's, else the next one's. */
  cause(cause: RebalanceCause): void {
    const open = this.openRebalance();
    if (open) {
      open.causes.push(cause);
      this.send(open);
    } else {
      this.pending.push(cause);
    }
  }

  /** A thread of this node begins to join the group: a rebalance begins, unless one is open already. */
  joining(): void {
    if (!this.openRebalance()) this.open();
  }

  /** Reads of the group told so far: the instance notes them as a thread applies an assignment (see `assigned`). */
  get groupReads(): number {
    return this.reads;
  }

  /**
   * A thread applied an assignment of `generation`; `tasks`: the node's after it. The node's other threads apply
   * theirs for the same generation after it, each extending the same entry. The instance tells this once it has read
   * the group again: a read past `readsBefore` (the count when the thread applied it) is the membership after it.
   */
  assigned(generation: number, lost: boolean, tasks: NodeTasks, readsBefore = this.reads): void {
    let entry = this.latestRebalance();
    const previous = entry && entry.endedAt === undefined ? this.rebalanceBefore(entry) : undefined;
    if (entry && entry.endedAt === undefined && previous?.generation === generation && entry.causes.length === 0) {
      // A thread that learned of the rebalance after another applied it: the same rebalance.
      this.drop(entry);
      entry = previous;
    } else if (!entry || (entry.endedAt !== undefined && entry.generation !== generation)) {
      // A join this node saw no start of.
      entry = this.open();
    }
    entry.generation = generation;
    entry.endedAt = this.now();
    entry.tasksAfter = tasks;
    this.tasks = tasks;
    if (lost && !entry.causes.some((c) => c.type === 'dropped_from_group')) entry.causes.push({ type: 'dropped_from_group' });
    if (entry.membership === undefined && this.members !== undefined && this.reads > readsBefore) {
      entry.membership = membershipChanges(entry.membersBefore, this.members, this.node.processId);
    }
    this.send(entry, true);
  }

  /** A read of the group, stable: the membership change of the last rebalance, and the node's tasks (warm-ups are known by reads only). */
  groupRead(members: readonly GroupMemberSummary[], tasks: NodeTasks): void {
    this.members = members;
    this.reads++;
    this.tasks = tasks;
    const entry = this.latestRebalance();
    if (!entry || entry.endedAt === undefined || entry.membership !== undefined) return;
    entry.membership = membershipChanges(entry.membersBefore, members, this.node.processId);
    entry.tasksAfter = tasks;
    this.send(entry, true);
  }

  /**
   * A restore's progress (per fetch). One that found nothing to restore gets no entry of its own: a node starting on
   * empty changelogs would fill the timeline with them. A followed changelog (a global store's) ends once caught up.
   */
  restore(event: RestoreEvent): void {
    const key = `${event.taskId}\u0000${event.topic}\u0000${event.partition}`;
    const ended = event.done || event.remaining === 0;
    let running = this.restoring.get(key);
    const first = running === undefined;
    if (!running) {
      const entry: OpenRestore | undefined = ended && event.total === 0 ? undefined : { type: 'restore', id: this.nextId++, endedAt: undefined, lastSentAt: 0, latest: event };
      running = { entry, rebalance: this.latestRebalance() };
      if (entry) this.add(entry);
      if (!ended) this.restoring.set(key, running);
    }
    const { entry, rebalance } = running;
    if (ended) this.restoring.delete(key);
    if (entry) {
      entry.latest = event;
      if (ended) entry.endedAt = this.now();
      this.send(entry, first || ended);
    }
    if (rebalance) {
      const byTask = rebalance.restores.get(event.taskId) ?? new Map<string, { restored: number; ended: boolean }>();
      byTask.set(`${event.topic}\u0000${event.partition}`, { restored: event.restored, ended });
      rebalance.restores.set(event.taskId, byTask);
      this.send(rebalance, first || ended);
    }
  }

  /** Every entry, oldest first. */
  entries(): TimelineEntry[] {
    const now = this.now();
    return this.stored.map((s) => this.snapshot(s, now));
  }

  private open(): OpenRebalance {
    const entry: OpenRebalance = {
      type: 'rebalance',
      id: this.nextId++,
      startedAt: this.now(),
      endedAt: undefined,
      generation: undefined,
      causes: this.pending,
      membership: undefined,
      tasksBefore: this.tasks,
      tasksAfter: undefined,
      membersBefore: this.members,
      restores: new Map(),
      lastSentAt: 0,
    };
    this.pending = [];
    this.add(entry);
    this.send(entry, true);
    return entry;
  }

  /** Adds an entry, dropping the oldest past the capacity (a restore still running is told on, not listed). */
  private add(entry: Stored): void {
    this.stored.push(entry);
    if (this.stored.length > this.capacity) this.stored.splice(0, this.stored.length - this.capacity);
  }

  private drop(entry: Stored): void {
    const at = this.stored.indexOf(entry);
    if (at >= 0) this.stored.splice(at, 1);
  }

  private openRebalance(): OpenRebalance | undefined {
    const latest = this.latestRebalance();
    return latest?.endedAt === undefined ? latest : undefined;
  }

  private latestRebalance(): OpenRebalance | undefined {
    for (let i = this.stored.length - 1; i >= 0; i--) {
      const s = this.stored[i]!;
      if (s.type === 'rebalance') return s;
    }
    return undefined;
  }

  private rebalanceBefore(entry: OpenRebalance): OpenRebalance | undefined {
    for (let i = this.stored.indexOf(entry) - 1; i >= 0; i--) {
      const s = this.stored[i]!;
      if (s.type === 'rebalance') return s;
    }
    return undefined;
  }

  /** Tells an entry's new state; a restore's progress (and its rebalance's, which sums it) at most once a second. */
  private send(entry: Stored, force = true): void {
    const now = this.now();
    if (!force && now - entry.lastSentAt < UPDATE_INTERVAL_MS) return;
    entry.lastSentAt = now;
    this.onEntry(this.snapshot(entry, now));
  }

  private snapshot(entry: Stored, now: number): TimelineEntry {
    return entry.type === 'rebalance' ? this.rebalanceSnapshot(entry) : this.restoreSnapshot(entry, now);
  }

  private rebalanceSnapshot(entry: OpenRebalance): RebalanceEntry {
    const after = entry.tasksAfter;
    const restoreOf = (taskId: string): MovedTask['restore'] => {
      const own = [...(entry.restores.get(taskId)?.values() ?? [])];
      if (own.length === 0) return undefined;
      return { records: own.reduce((sum, r) => sum + r.restored, 0), done: own.every((r) => r.ended) };
    };
    const causes = [...entry.causes, ...(entry.membership ?? [])];
    // Settled (the group read after it) and nothing this node saw explains it.
    if (causes.length === 0 && entry.membership !== undefined) causes.push({ type: 'unknown' });
    const gained = after ? moved(after, entry.tasksBefore).map((t) => (t.role === 'active' ? withRestore(t, restoreOf(t.taskId)) : t)) : [];
    return {
      type: 'rebalance',
      id: entry.id,
      ...this.node,
      startedAt: entry.startedAt,
      endedAt: entry.endedAt,
      durationMs: entry.endedAt === undefined ? undefined : entry.endedAt - entry.startedAt,
      generation: entry.generation,
      causes,
      gained,
      lost: after ? moved(entry.tasksBefore, after, false) : [],
    };
  }

  private restoreSnapshot(entry: OpenRestore, now: number): RestoreEntry {
    const e = entry.latest;
    const durationMs = Math.max(0, (entry.endedAt ?? now) - e.startedAt);
    const rate = durationMs > 0 ? (e.restored * 1000) / durationMs : 0;
    return {
      type: 'restore',
      id: entry.id,
      ...this.node,
      taskId: e.taskId,
      store: e.store,
      topic: e.topic,
      partition: e.partition,
      startOffset: e.startOffset,
      endOffset: e.endOffset,
      restored: e.restored,
      remaining: e.remaining,
      rate: Math.round(rate * 10) / 10,
      estimatedRemainingMs: entry.endedAt !== undefined || rate === 0 ? undefined : Math.round((e.remaining * 1000) / rate),
      done: entry.endedAt !== undefined,
      startedAt: e.startedAt,
      endedAt: entry.endedAt,
      durationMs,
    };
  }
}

function withRestore(task: MovedTask, restore: MovedTask['restore']): MovedTask {
  return restore === undefined ? task : { ...task, restore };
}

function roleOf(tasks: NodeTasks, taskId: string): TaskRole | undefined {
  if (tasks.active.includes(taskId)) return 'active';
  if (tasks.warmup.includes(taskId)) return 'warmup';
  if (tasks.standby.includes(taskId)) return 'standby';
  return undefined;
}

/**
 * The tasks `to` holds in a role `from` did not hold them in. A standby that became active is gained as active and
 * not lost: `promotions` false leaves it out (the lost side).
 */
function moved(to: NodeTasks, from: NodeTasks, promotions = true): MovedTask[] {
  const result: MovedTask[] = [];
  for (const taskId of new Set([...to.active, ...to.standby])) {
    const role = roleOf(to, taskId)!;
    const other = roleOf(from, taskId);
    if (other === role || (!promotions && other === 'active')) continue;
    result.push({ taskId, role });
  }
  return result.sort((a, b) => a.taskId.localeCompare(b.taskId, undefined, { numeric: true }) || a.role.localeCompare(b.role));
}

/**
 * What changed in the group's membership between two reads, per process other than this node (its own changes are
 * its own causes). A process whose every member is new rejoined: restarted (it keeps its process id in its state
 * directory) or dropped and back. Undefined `before` (no read yet): nothing to compare.
 */
export function membershipChanges(before: readonly GroupMemberSummary[] | undefined, after: readonly GroupMemberSummary[], localProcessId: string): RebalanceCause[] {
  if (before === undefined) return [];
  const byProcess = (members: readonly GroupMemberSummary[]) => {
    const map = new Map<string, { endpoint: string | undefined; ids: Set<string> }>();
    for (const m of members) {
      if (m.processId === localProcessId) continue;
      const entry = map.get(m.processId) ?? { endpoint: m.endpoint, ids: new Set<string>() };
      entry.ids.add(m.memberId);
      map.set(m.processId, entry);
    }
    return map;
  };
  const was = byProcess(before);
  const is = byProcess(after);
  const causes: RebalanceCause[] = [];
  for (const [processId, { endpoint, ids }] of was) {
    if (!is.has(processId)) causes.push({ type: 'member_left', processId, endpoint, members: ids.size });
  }
  for (const [processId, { endpoint, ids }] of is) {
    const old = was.get(processId);
    if (!old) {
      causes.push({ type: 'member_joined', processId, endpoint, members: ids.size });
      continue;
    }
    const kept = [...ids].filter((id) => old.ids.has(id)).length;
    if (kept === ids.size && kept === old.ids.size) continue;
    if (kept === 0 && ids.size === old.ids.size) causes.push({ type: 'member_rejoined', processId, endpoint, members: ids.size });
    else causes.push({ type: 'members_changed', processId, endpoint, before: old.ids.size, after: ids.size });
  }
  return causes;
}
