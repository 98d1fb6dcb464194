import type { MemberSubscription } from './task-assignor';
import { assignStandbyTasks, assignTasks, holdBackColdMoves, tasksFor } from './task-assignor';

const subtopologies = [
  { id: 0, sourceTopics: ['in'], stateful: false },
  { id: 1, sourceTopics: ['app-count-repartition'], stateful: true },
];
const tasks = tasksFor(subtopologies, (t) => (t === 'in' ? 4 : 4));

function member(memberId: string, processId: string, previousTasks: string[] = [], stateTasks: string[] = []): MemberSubscription {
  return { memberId, info: { version: 1, processId, previousTasks, stateTasks } };
}

describe('the Sluice assignor', () => {
  it('makes one task per sub-topology and partition', () => {
    expect(tasks.map((t) => t.taskId)).toEqual(['0_0', '0_1', '0_2', '0_3', '1_0', '1_1', '1_2', '1_3']);
    expect(tasks[5]!.partitions).toEqual([{ topic: 'app-count-repartition', partition: 1 }]);
  });

  it('takes the widest source topic for the task count of a sub-topology', () => {
    const joined = tasksFor([{ id: 0, sourceTopics: ['a', 'b'], stateful: true }], (t) => (t === 'a' ? 2 : 3));
    expect(joined.map((t) => [t.taskId, t.partitions.length])).toEqual([
      ['0_0', 2],
      ['0_1', 2],
      ['0_2', 1],
    ]);
  });

  it('balances tasks over processes in proportion to their threads', () => {
    const result = assignTasks([member('a-1', 'A'), member('a-2', 'A'), member('b-1', 'B'), member('b-2', 'B')], tasks);
    expect([...result.values()].map((list) => list.length)).toEqual([2, 2, 2, 2]);
    expect(new Set([...result.values()].flat()).size).toBe(tasks.length);
  });

  it('keeps tasks with their previous owner, then with the process that has their state', () => {
    const first = assignTasks([member('a', 'A', ['1_0', '1_1', '0_0']), member('b', 'B', [], ['1_2', '1_3'])], tasks);
    expect(first.get('a')).toEqual(expect.arrayContaining(['1_0', '1_1', '0_0']));
    expect(first.get('b')).toEqual(expect.arrayContaining(['1_2', '1_3']));
    expect(first.get('a')!.length).toBe(4);
    expect(first.get('b')!.length).toBe(4);
  });

  it('gives everything to the survivor when a member is gone, and is deterministic', () => {
    const input = [member('b', 'B', ['1_2', '1_3', '0_2', '0_3'])];
    const result = assignTasks(input, tasks);
    expect(result.get('b')).toEqual(tasks.map((t) => t.taskId));
    expect(assignTasks(input, tasks)).toEqual(result);
  });

  it("gives a process's thread that joins its share of the stateful tasks, not only stateless ones", () => {
    const all = tasks.map((t) => t.taskId);
    // The first thread ran every task; the second (a new member of the same process) joins.
    const result = assignTasks([member('a-1', 'A', all, all), member('a-2', 'A')], tasks);
    const stateful = (id: string): boolean => id.startsWith('1_');
    expect(result.get('a-1')!.filter(stateful)).toHaveLength(2);
    expect(result.get('a-2')!.filter(stateful)).toHaveLength(2);
    expect([...result.values()].map((list) => list.length)).toEqual([4, 4]);
    expect(new Set([...result.values()].flat()).size).toBe(tasks.length);
    // What each thread kept, it had before.
    expect(result.get('a-1')).toEqual(['0_0', '0_1', '1_0', '1_1']);
  });

  it('gives a process that joins its share of the stateful tasks, not only stateless ones', () => {
    const all = tasks.map((t) => t.taskId);
    const result = assignTasks([member('a', 'A', all, all), member('b', 'B')], tasks);
    const stateful = (id: string): boolean => id.startsWith('1_');
    expect(result.get('a')!.filter(stateful)).toEqual(['1_0', '1_1']);
    expect(result.get('b')!.filter(stateful)).toEqual(['1_2', '1_3']);
    expect(result.get('b')!.length).toBe(4);
  });
});

describe('standby placement', () => {
  const stateful = tasks.filter((t) => t.stateful).map((t) => t.taskId);
  const processOf = (members: MemberSubscription[], memberId: string): string => members.find((m) => m.memberId === memberId)!.info.processId;
  /** Each stateful task's copies: the client of its active, then those of its standbys. */
  function copies(members: MemberSubscription[], replicas: number) {
    const active = assignTasks(members, tasks);
    const standby = assignStandbyTasks(members, tasks, active, replicas);
    const activeClient = new Map<string, string>();
    for (const [memberId, list] of active) for (const t of list) activeClient.set(t, processOf(members, memberId));
    const standbyClients = new Map<string, string[]>();
    for (const [client, list] of standby) for (const t of list) standbyClients.set(t, [...(standbyClients.get(t) ?? []), client]);
    return { active, standby, activeClient, standbyClients };
  }

  it('places N standbys of every stateful task, never with its active nor twice on one process, and none of stateless tasks', () => {
    const members = [member('a', 'A'), member('b', 'B'), member('c', 'C'), member('d', 'D')];
    for (const replicas of [1, 2, 3]) {
      const { standby, activeClient, standbyClients } = copies(members, replicas);
      for (const t of stateful) {
        const holders = standbyClients.get(t) ?? [];
        expect(holders).toHaveLength(replicas);
        expect(new Set(holders).size).toBe(replicas);
        expect(holders).not.toContain(activeClient.get(t));
      }
      expect([...standby.values()].flat().every((t) => stateful.includes(t))).toBe(true);
      // 4 stateful tasks × N replicas over 4 processes of one thread each: N each.
      expect([...standby.values()].map((l) => l.length)).toEqual([replicas, replicas, replicas, replicas]);
    }
  });

  it('balances standbys in proportion to threads', () => {
    const members = [member('a-1', 'A'), member('a-2', 'A'), member('b', 'B'), member('c', 'C')];
    const many = tasksFor([{ id: 0, sourceTopics: ['t'], stateful: true }], () => 12);
    const active = assignTasks(members, many);
    const standby = assignStandbyTasks(members, many, active, 1);
    expect(standby.get('A')).toHaveLength(6);
    expect(standby.get('B')).toHaveLength(3);
    expect(standby.get('C')).toHaveLength(3);
  });

  it('keeps every process at its share of standbys when where they were would fill the only processes some tasks may use', () => {
    // As a CI run saw: C held standbys of 2..5 and B of 0..1 from earlier generations; the actives then went C: 0,1,
    // B: 2,3, A: 4,5, so the copies of 4 and 5 may only go to B or C, which their old standbys had filled.
    const six = tasksFor([{ id: 0, sourceTopics: ['t'], stateful: true }], () => 6);
    const members: MemberSubscription[] = [
      { memberId: 'a', info: { version: 1, processId: 'A', previousTasks: [], stateTasks: [] } },
      { memberId: 'b', info: { version: 1, processId: 'B', previousTasks: [], stateTasks: ['0_0', '0_1'], standbyTasks: ['0_0', '0_1'] } },
      { memberId: 'c', info: { version: 1, processId: 'C', previousTasks: [], stateTasks: ['0_2', '0_3', '0_4', '0_5'], standbyTasks: ['0_2', '0_3', '0_4', '0_5'] } },
    ];
    const active = new Map([
      ['a', ['0_4', '0_5']],
      ['b', ['0_2', '0_3']],
      ['c', ['0_0', '0_1']],
    ]);
    const standby = assignStandbyTasks(members, six, active, 1);
    expect([...standby.values()].map((list) => list.length)).toEqual([2, 2, 2]);
    expect(standby.get('A')!.some((t) => ['0_4', '0_5'].includes(t))).toBe(false);
    expect(standby.get('B')!.some((t) => ['0_2', '0_3'].includes(t))).toBe(false);
    expect(standby.get('C')!.some((t) => ['0_0', '0_1'].includes(t))).toBe(false);
    expect([...standby.values()].flat().sort()).toEqual(six.map((t) => t.taskId));
  });

  it('places as many copies as there are other processes', () => {
    const { standbyClients, activeClient } = copies([member('a', 'A'), member('b', 'B')], 2);
    for (const t of stateful) expect(standbyClients.get(t)).toEqual([activeClient.get(t) === 'A' ? 'B' : 'A']);
    const alone = copies([member('a', 'A')], 1);
    expect([...alone.standby.values()].flat()).toEqual([]);
  });

  it('keeps standbys where they were across a rebalance', () => {
    const members = [member('a', 'A'), member('b', 'B'), member('c', 'C')];
    const first = copies(members, 1);
    const again = members.map((m) => {
      const memberTasks = first.active.get(m.memberId)!;
      const standbyTasks = first.standby.get(m.info.processId)!;
      return { memberId: `${m.memberId}-2`, info: { ...m.info, previousTasks: memberTasks, stateTasks: [...memberTasks, ...standbyTasks], standbyTasks } };
    });
    const second = copies(again, 1);
    expect(second.standby).toEqual(first.standby);
    expect(second.activeClient).toEqual(first.activeClient);
  });

  it('prefers the process whose state is furthest along, and never holds two copies when an active moves to its standby', () => {
    const members: MemberSubscription[] = [
      member('a', 'A', ['1_0', '1_1', '1_2', '1_3']),
      { memberId: 'b', info: { version: 1, processId: 'B', previousTasks: [], stateTasks: ['1_0'], taskOffsetSums: { '1_0': 10 } } },
      { memberId: 'c', info: { version: 1, processId: 'C', previousTasks: [], stateTasks: ['1_0'], taskOffsetSums: { '1_0': 500 } } },
    ];
    const { standbyClients, activeClient } = copies(members, 1);
    expect(activeClient.get('1_0')).toBe('A');
    expect(standbyClients.get('1_0')).toEqual(['C']);

    // A dies: its tasks go to the processes with their state, and standbys go elsewhere.
    const survivors: MemberSubscription[] = [
      { memberId: 'b', info: { version: 1, processId: 'B', previousTasks: [], stateTasks: ['1_1', '1_3'], standbyTasks: ['1_1', '1_3'], taskOffsetSums: { '1_1': 90, '1_3': 90 } } },
      { memberId: 'c', info: { version: 1, processId: 'C', previousTasks: [], stateTasks: ['1_0', '1_2'], standbyTasks: ['1_0', '1_2'], taskOffsetSums: { '1_0': 90, '1_2': 90 } } },
    ];
    const after = copies(survivors, 1);
    expect(['1_1', '1_3'].map((t) => after.activeClient.get(t))).toEqual(['B', 'B']);
    expect(['1_0', '1_2'].map((t) => after.activeClient.get(t))).toEqual(['C', 'C']);
    for (const t of stateful) expect(after.standbyClients.get(t)).toEqual([after.activeClient.get(t) === 'B' ? 'C' : 'B']);
  });

  it('is deterministic', () => {
    const members = [member('a', 'A'), member('b', 'B'), member('c', 'C')];
    expect(copies(members, 2).standby).toEqual(copies(members, 2).standby);
  });
});

describe('warm-up moves (KIP-441)', () => {
  const stateful = ['1_0', '1_1', '1_2', '1_3'];
  const ends = new Map(stateful.map((t) => [t, 100_000]));
  const options = { acceptableRecoveryLag: 10_000, maxWarmupReplicas: 2, endOffsetSums: ends };
  const withSums = (m: MemberSubscription, sums: Record<string, number>): MemberSubscription => ({ ...m, info: { ...m.info, taskOffsetSums: sums } });

  it('keeps a stateful task on its owner while the joining process warms it up, and moves stateless ones at once', () => {
    const all = tasks.map((t) => t.taskId);
    const members = [member('a', 'A', all, all), member('b', 'B')];
    const balanced = assignTasks(members, tasks);
    expect(balanced.get('b')).toEqual(['0_2', '0_3', '1_2', '1_3']);
    const { active, warmups } = holdBackColdMoves(members, tasks, balanced, options);
    expect(active.get('a')).toEqual(['0_0', '0_1', '1_0', '1_1', '1_2', '1_3']);
    expect(active.get('b')).toEqual(['0_2', '0_3']);
    expect(warmups).toEqual(new Map([['B', ['1_2', '1_3']]]));
  });

  it('lets the move happen once the warm-up is within acceptable.recovery.lag', () => {
    const all = tasks.map((t) => t.taskId);
    const members = [member('a', 'A', all, all), withSums(member('b', 'B', [], ['1_2', '1_3']), { '1_2': 95_000, '1_3': 80_000 })];
    const { active, warmups } = holdBackColdMoves(members, tasks, assignTasks(members, tasks), options);
    expect(active.get('b')).toEqual(['0_2', '0_3', '1_2']);
    expect(active.get('a')).toContain('1_3');
    expect(warmups).toEqual(new Map([['B', ['1_3']]]));
  });

  it('gives at most max.warmup.replicas warm-ups in the group', () => {
    const all = tasks.map((t) => t.taskId);
    const members = [member('a', 'A', all, all), member('b', 'B'), member('c', 'C')];
    const { active, warmups } = holdBackColdMoves(members, tasks, assignTasks(members, tasks), { ...options, maxWarmupReplicas: 1 });
    expect([...warmups.values()].flat()).toHaveLength(1);
    // Every stateful task stays on A, the only caught-up process, warm-up or not.
    expect(active.get('a')!.filter((t) => t.startsWith('1_'))).toEqual(stateful);
  });

  it('moves a task at once when no process is caught up on it (its owner is gone)', () => {
    const members = [withSums(member('b', 'B'), { '1_0': 1_000 }), member('c', 'C')];
    const balanced = assignTasks(members, tasks);
    const { active, warmups } = holdBackColdMoves(members, tasks, balanced, options);
    expect(active).toEqual(balanced);
    expect(warmups.size).toBe(0);
  });

  it('hands a task whose owner is gone to the most caught-up standby', () => {
    const members = [withSums(member('b', 'B'), { '1_0': 50_000 }), withSums(member('c', 'C', [], ['1_0']), { '1_0': 99_000 })];
    const balanced = new Map([
      ['b', ['1_0', '1_1']],
      ['c', ['1_2', '1_3']],
    ]);
    const { active, warmups } = holdBackColdMoves(members, tasks, balanced, options);
    expect(active.get('c')).toEqual(['1_0', '1_2', '1_3']);
    expect(warmups).toEqual(new Map([['B', ['1_0']]]));
  });
});

describe('warm-up moves of small tasks', () => {
  it('moves a task at once when its whole changelog is within acceptable.recovery.lag', () => {
    const all = tasks.map((t) => t.taskId);
    const members = [member('a', 'A', all, all), member('b', 'B')];
    const balanced = assignTasks(members, tasks);
    const small = new Map(['1_0', '1_1', '1_2', '1_3'].map((t) => [t, 5_000]));
    const { active, warmups } = holdBackColdMoves(members, tasks, balanced, { acceptableRecoveryLag: 10_000, maxWarmupReplicas: 2, endOffsetSums: small });
    expect(active).toEqual(balanced);
    expect(warmups.size).toBe(0);
  });
});
