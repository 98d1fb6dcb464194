import type { MemberSubscription } from './partition-assignor';
import { assignTasks, tasksFor } from './partition-assignor';

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

  it('gives a process that joins its share of the stateful tasks, not only stateless ones', () => {
    const all = tasks.map((t) => t.taskId);
    const result = assignTasks([member('a', 'A', all, all), member('b', 'B')], tasks);
    const stateful = (id: string): boolean => id.startsWith('1_');
    expect(result.get('a')!.filter(stateful)).toEqual(['1_0', '1_1']);
    expect(result.get('b')!.filter(stateful)).toEqual(['1_2', '1_3']);
    expect(result.get('b')!.length).toBe(4);
  });
});
