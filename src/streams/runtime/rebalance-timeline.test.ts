import type { RestoreEvent } from './instance-view';
import { membershipChanges, RebalanceTimeline, type NodeTasks, type RebalanceEntry, type RestoreEntry, type TimelineEntry } from './rebalance-timeline';
import type { GroupMemberSummary } from './streams-metadata';

const NODE = { processId: 'p1', endpoint: 'a:8080' };

function tasks(active: string[], standby: string[] = [], warmup: string[] = []): NodeTasks {
  return { active, standby, warmup };
}

function member(memberId: string, processId: string, endpoint?: string): GroupMemberSummary {
  return { memberId, processId, endpoint };
}

function restore(taskId: string, restored: number, total: number, done = false): RestoreEvent {
  return { store: 'counts', taskId, topic: 'app-counts-changelog', partition: Number(taskId.split('_')[1]), startOffset: 0, endOffset: total, startedAt: 1000, restored, total, remaining: total - restored, done };
}

describe('RebalanceTimeline', () => {
  let now: number;
  let told: TimelineEntry[];
  let timeline: RebalanceTimeline;

  beforeEach(() => {
    now = 1000;
    told = [];
    timeline = new RebalanceTimeline(NODE, (entry) => told.push(entry), { now: () => now });
  });

  const rebalances = () => timeline.entries().filter((e): e is RebalanceEntry => e.type === 'rebalance');
  const restores = () => timeline.entries().filter((e): e is RestoreEntry => e.type === 'restore');

  it("dates a rebalance from the node's join to its assignment, with the node's own cause, the group's generation and the tasks gained", () => {
    timeline.cause({ type: 'instance_started' });
    timeline.joining();
    now = 1400;
    timeline.assigned(7, false, tasks(['0_0', '0_1']));
    const [rebalance] = rebalances();
    expect(rebalance).toMatchObject({ id: 1, processId: 'p1', endpoint: 'a:8080', startedAt: 1000, endedAt: 1400, durationMs: 400, generation: 7 });
    expect(rebalance!.causes).toEqual([{ type: 'instance_started' }]);
    expect(rebalance!.gained).toEqual([
      { taskId: '0_0', role: 'active' },
      { taskId: '0_1', role: 'active' },
    ]);
    expect(told.map((e) => e.id)).toEqual([1, 1]);
  });

  it("extends one rebalance over its threads' assignments of the same generation, even a thread that learned of it late", () => {
    timeline.joining();
    now = 1100;
    timeline.assigned(3, false, tasks(['0_0']));
    // The second thread's revocation is told after the first thread applied its assignment.
    timeline.joining();
    now = 1300;
    timeline.assigned(3, false, tasks(['0_0', '0_1']));
    expect(rebalances()).toHaveLength(1);
    expect(rebalances()[0]).toMatchObject({ generation: 3, endedAt: 1300, durationMs: 300 });
    expect(rebalances()[0]!.gained.map((t) => t.taskId)).toEqual(['0_0', '0_1']);
  });

  it("tells the membership change it reads from the group after a rebalance; nothing it saw explains one: unknown", () => {
    timeline.joining();
    timeline.assigned(1, false, tasks(['0_0', '0_1', '0_2']));
    timeline.groupRead([member('m1', 'p1'), member('m2', 'p2', 'b:8080'), member('m3', 'p3', 'c:8080')], tasks(['0_0', '0_1', '0_2']));
    // The first rebalance of the node has no read before it to compare with.
    expect(rebalances()[0]!.causes).toEqual([{ type: 'unknown' }]);

    timeline.joining();
    timeline.assigned(2, false, tasks(['0_0', '0_1', '0_2', '0_3']));
    timeline.groupRead([member('m1', 'p1'), member('m2', 'p2', 'b:8080'), member('m4', 'p4', 'd:8080')], tasks(['0_0', '0_1', '0_2', '0_3']));
    expect(rebalances()[1]!.causes).toEqual([
      { type: 'member_left', processId: 'p3', endpoint: 'c:8080', members: 1 },
      { type: 'member_joined', processId: 'p4', endpoint: 'd:8080', members: 1 },
    ]);
    // A later read changes nothing of a settled rebalance.
    timeline.groupRead([member('m1', 'p1')], tasks([]));
    expect(rebalances()[1]!.causes).toHaveLength(2);
  });

  it('takes the read of the group the instance makes before it tells the assignment, but not a read from before the assignment', () => {
    timeline.joining();
    timeline.assigned(1, false, tasks(['0_0']));
    timeline.groupRead([member('m1', 'p1'), member('m2', 'p2')], tasks(['0_0']));
    now = 2000;
    timeline.cause({ type: 'thread_added', thread: 't2' });
    timeline.joining();
    // A periodic read while this node's new thread joins: the group as it was.
    timeline.groupRead([member('m1', 'p1'), member('m2', 'p2')], tasks(['0_0']));
    const readsBefore = timeline.groupReads;
    timeline.groupRead([member('m1', 'p1'), member('m3', 'p1'), member('m4', 'p3')], tasks(['0_0']));
    timeline.assigned(2, false, tasks(['0_0']), readsBefore);
    expect(rebalances()[1]!.causes).toEqual([
      { type: 'thread_added', thread: 't2' },
      { type: 'member_left', processId: 'p2', endpoint: undefined, members: 1 },
      { type: 'member_joined', processId: 'p3', endpoint: undefined, members: 1 },
    ]);
  });

  it('tells gained and lost tasks by role: a warm-up, a standby, a standby that became active', () => {
    timeline.joining();
    timeline.assigned(1, false, tasks(['0_0', '0_1'], ['0_2']));
    timeline.groupRead([member('m1', 'p1')], tasks(['0_0', '0_1'], ['0_2']));
    timeline.joining();
    // As the instance tells them: the read of the group (which says which standbys are warm-ups), then the assignment.
    const readsBefore = timeline.groupReads;
    timeline.groupRead([member('m1', 'p1')], tasks(['0_0', '0_2'], ['0_3', '0_4'], ['0_4']));
    timeline.assigned(2, false, tasks(['0_0', '0_2'], ['0_3', '0_4'], ['0_4']), readsBefore);
    const last = rebalances()[1]!;
    expect(last.gained).toEqual([
      { taskId: '0_2', role: 'active' },
      { taskId: '0_3', role: 'standby' },
      { taskId: '0_4', role: 'warmup' },
    ]);
    expect(last.lost).toEqual([{ taskId: '0_1', role: 'active' }]);
  });

  it("adds a cause told while the rebalance is open; one told between rebalances goes to the next; a dropped member's join says so", () => {
    timeline.joining();
    timeline.cause({ type: 'thread_failed', thread: 't1', error: 'boom' });
    timeline.assigned(1, true, tasks(['0_0']));
    timeline.cause({ type: 'probing_rebalance', tasks: ['0_1'] });
    timeline.joining();
    timeline.assigned(2, false, tasks(['0_0']));
    expect(rebalances().map((r) => r.causes.map((c) => c.type))).toEqual([['thread_failed', 'dropped_from_group'], ['probing_rebalance']]);
  });

  it('keeps a restore per store partition: offsets, records, rate and time left, its end; and sums it into the gained task', () => {
    timeline.joining();
    now = 2000;
    timeline.restore(restore('0_1', 100, 400));
    timeline.assigned(1, false, tasks(['0_1']));
    expect(restores()[0]).toMatchObject({ taskId: '0_1', store: 'counts', partition: 1, startOffset: 0, endOffset: 400, restored: 100, remaining: 300, rate: 100, estimatedRemainingMs: 3000, done: false, endedAt: undefined });
    now = 3000;
    timeline.restore(restore('0_1', 400, 400, true));
    expect(restores()).toHaveLength(1);
    expect(restores()[0]).toMatchObject({ restored: 400, done: true, endedAt: 3000, durationMs: 2000, rate: 200, estimatedRemainingMs: undefined });
    expect(rebalances()[0]!.gained).toEqual([{ taskId: '0_1', role: 'active', restore: { records: 400, done: true } }]);
  });

  it("tells a restore's progress at most once a second, its first and its end always", () => {
    timeline.restore(restore('0_1', 10, 100));
    now += 300;
    timeline.restore(restore('0_1', 20, 100));
    now += 800;
    timeline.restore(restore('0_1', 30, 100));
    now += 10;
    timeline.restore(restore('0_1', 100, 100, true));
    expect(told.map((e) => (e as RestoreEntry).restored)).toEqual([10, 30, 100]);
  });

  it('lists no restore that found nothing to restore, but counts it for the gained task; a followed changelog ends once caught up', () => {
    timeline.joining();
    timeline.restore(restore('0_0', 0, 0, true));
    timeline.restore({ ...restore('global', 50, 50), done: false });
    timeline.assigned(1, false, tasks(['0_0']));
    expect(restores().map((r) => [r.taskId, r.done])).toEqual([['global', true]]);
    expect(rebalances()[0]!.gained).toEqual([{ taskId: '0_0', role: 'active', restore: { records: 0, done: true } }]);
  });

  it('keeps the last entries only', () => {
    timeline = new RebalanceTimeline(NODE, () => undefined, { capacity: 3, now: () => now });
    for (let g = 1; g <= 5; g++) {
      timeline.joining();
      timeline.assigned(g, false, tasks([]));
    }
    expect(timeline.entries().map((e) => (e as RebalanceEntry).generation)).toEqual([3, 4, 5]);
  });
});

describe('membershipChanges', () => {
  it("tells processes that joined, left, rejoined under new member ids or changed their threads; the node's own are its causes", () => {
    const before = [member('a1', 'p1'), member('b1', 'p2'), member('c1', 'p3'), member('c2', 'p3'), member('d1', 'p4')];
    const after = [member('a2', 'p1'), member('b2', 'p2'), member('c1', 'p3'), member('d1', 'p4'), member('e1', 'p5')];
    expect(membershipChanges(before, after, 'p1')).toEqual([
      { type: 'member_rejoined', processId: 'p2', endpoint: undefined, members: 1 },
      { type: 'members_changed', processId: 'p3', endpoint: undefined, before: 2, after: 1 },
      { type: 'member_joined', processId: 'p5', endpoint: undefined, members: 1 },
    ]);
    expect(membershipChanges(undefined, after, 'p1')).toEqual([]);
  });
});
