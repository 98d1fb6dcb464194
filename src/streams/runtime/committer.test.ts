import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import type { CommittableTask } from './committer';
import { Committer } from './committer';
import { PartitionPositions } from './partition-positions';
import { StateDirectory } from './state-directory';
import { TaskCheckpoints } from './task-checkpoints';
import type { OffsetToCommit } from './task-transaction';

const logger = pino({ level: 'silent' });

/** A task that logs each call the committer makes, with a changelog written up to `written`. */
function fakeTask(name: string, log: string[], options: { consumed: number; written?: number; transactional?: boolean }): CommittableTask & { consumed: number; written: number | undefined } {
  const partition = Number(name.split('_')[1]);
  const task = {
    name,
    partition,
    stores: [{ name: 'counts', changelog: 'app-counts-changelog' }],
    consumed: options.consumed,
    written: options.written,
    writtenOffset: (topic: string, p: number) => (topic === 'app-counts-changelog' && p === partition ? task.written : undefined),
    prepareCommit: () => void log.push(`${name} caches`),
    flushOutput: async () => void log.push(`${name} output`),
    flushStores: async () => void log.push(`${name} stores`),
    consumedPositions: () => [{ topic: 'input', partition, offset: task.consumed }],
    ...(options.transactional
      ? { commitTransaction: async (offsets: readonly OffsetToCommit[]) => void log.push(`${name} transaction ${JSON.stringify(offsets)}`) }
      : {}),
  };
  return task;
}

describe('Committer', () => {
  let stateDir: string;
  let directory: StateDirectory;
  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-committer-'));
    directory = new StateDirectory(stateDir, 'app');
  });
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  function committer(exactlyOnce: boolean, commitOffsets: (offsets: readonly OffsetToCommit[]) => Promise<void>, clock?: () => number): { committer: Committer; positions: PartitionPositions } {
    const positions = new PartitionPositions();
    return { positions, committer: new Committer(commitOffsets, positions, new TaskCheckpoints(directory, exactlyOnce), { exactlyOnce, taskTimeoutMs: 10_000, logger, ...(clock ? { clock } : {}) }) };
  }

  it('at-least-once: caches, then output, then stores, then offsets, then checkpoints', async () => {
    const log: string[] = [];
    const { committer: c } = committer(false, async (offsets) => void log.push(`offsets ${JSON.stringify(offsets)}`));
    const tasks = [fakeTask('0_0', log, { consumed: 41, written: 9 }), fakeTask('0_1', log, { consumed: 7 })];
    for (const t of tasks) directory.lock(t.name, 'test');
    await c.commit(tasks);
    expect(log).toEqual([
      '0_0 caches',
      '0_1 caches',
      '0_0 output',
      '0_1 output',
      '0_0 stores',
      '0_1 stores',
      'offsets [{"topic":"input","partition":0,"offset":42},{"topic":"input","partition":1,"offset":8}]',
    ]);
    expect(directory.readCheckpoint('0_0')?.get('app-counts-changelog', 0)).toBe(10);
    // A task that wrote nothing to its changelog still gets a checkpoint: its (empty) state is vouched for.
    expect(directory.readCheckpoint('0_1')?.size).toBe(0);
  });

  it('at-least-once: commits only offsets that moved since the last commit', async () => {
    const committed: OffsetToCommit[][] = [];
    const { committer: c, positions } = committer(false, async (offsets) => void committed.push([...offsets]));
    const task = fakeTask('0_0', [], { consumed: 5 });
    directory.lock('0_0', 'test');
    await c.commit([task]);
    await c.commit([task]);
    task.consumed = 9;
    await c.commit([task]);
    expect(committed).toEqual([[{ topic: 'input', partition: 0, offset: 6 }], [{ topic: 'input', partition: 0, offset: 10 }]]);
    expect(positions.of('input', 0).committedOffset).toBe(10);
  });

  it('at-least-once: a rebalancing group leaves the offsets uncommitted, and the next commit carries them', async () => {
    const attempts: OffsetToCommit[][] = [];
    let rebalancing = true;
    const { committer: c, positions } = committer(false, async (offsets) => {
      attempts.push([...offsets]);
      if (rebalancing) throw Object.assign(new Error('The group is rebalancing'), { type: 'REBALANCE_IN_PROGRESS' });
    });
    directory.lock('0_0', 'test');
    const task = fakeTask('0_0', [], { consumed: 3 });
    await c.commit([task]);
    expect(positions.of('input', 0).committedOffset).toBe(-1);
    rebalancing = false;
    await c.commit([task]);
    expect(attempts).toEqual([[{ topic: 'input', partition: 0, offset: 4 }], [{ topic: 'input', partition: 0, offset: 4 }]]);
    expect(positions.of('input', 0).committedOffset).toBe(4);
  });

  it('at-least-once: an unreachable broker is tolerated for task.timeout.ms, then the commit fails', async () => {
    let now = 1_000;
    const { committer: c } = committer(
      false,
      async () => {
        throw Object.assign(new Error('Connection refused'), { retriable: true });
      },
      () => now,
    );
    directory.lock('0_0', 'test');
    const task = fakeTask('0_0', [], { consumed: 3 });
    await c.commit([task]);
    now += 9_999;
    await c.commit([task]);
    now += 1;
    await expect(c.commit([task])).rejects.toThrow('Connection refused');
  });

  it('exactly-once: each task flushes and commits its own transaction with its offsets, and writes no checkpoint', async () => {
    const log: string[] = [];
    const { committer: c, positions } = committer(true, async () => void log.push('consumer commit'));
    const tasks = [fakeTask('0_0', log, { consumed: 41, written: 9, transactional: true }), fakeTask('0_1', log, { consumed: 7, transactional: true })];
    for (const t of tasks) directory.lock(t.name, 'test');
    await c.commit(tasks);
    expect(log).toEqual([
      '0_0 caches',
      '0_0 output',
      '0_0 stores',
      '0_0 transaction [{"topic":"input","partition":0,"offset":42}]',
      '0_1 caches',
      '0_1 output',
      '0_1 stores',
      '0_1 transaction [{"topic":"input","partition":1,"offset":8}]',
    ]);
    expect(positions.of('input', 1).committedOffset).toBe(8);
    expect(directory.readCheckpoint('0_0')).toBeUndefined();
  });
});
