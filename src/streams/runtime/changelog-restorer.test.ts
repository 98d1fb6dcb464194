import pino from 'pino';
import { EARLIEST, type FetchedPartition, type ChangelogRecord, type ChangelogRecordList, type ReadPosition } from '../kafka';
import { RecordList } from '../kafka/testing/record-list';
import { ChangelogRestorer, type ChangelogSource, type ChangelogToRestore, type RestoreProgress } from './changelog-restorer';

/** A changelog in memory: per partition, its log start, end, and records; hands out `perFetch` records a fetch. */
class FakeChangelogs implements ChangelogSource {
  readonly fetches: ReadPosition[][] = [];
  failures: Error[] = [];
  readonly logs = new Map<string, { start: number; end: number; appendAfterFirstFetch?: number }>();
  fetchBytes = 50 * 1024 * 1024;

  limitFetch(bytes: number): void {
    this.fetchBytes = bytes;
  }

  constructor(private readonly perFetch: number) {}

  log(topic: string, partition: number, start: number, end: number): void {
    this.logs.set(`${topic}-${partition}`, { start, end });
  }

  async fetch(positions: readonly ReadPosition[]): Promise<FetchedPartition[]> {
    await new Promise((resolve) => setImmediate(resolve));
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.fetches.push(positions.map((p) => ({ ...p })));
    return positions.map(({ topic, partition, offset }) => {
      const log = this.logs.get(`${topic}-${partition}`)!;
      const from = offset === EARLIEST ? log.start : offset;
      const to = Math.min(log.end, from + this.perFetch);
      const records: ChangelogRecord[] = [];
      for (let o = from; o < to; o++) records.push({ key: Buffer.from(`k${o}`), value: Buffer.from(`v${o}`), timestamp: o, offset: o });
      const endOffset = log.end;
      // Records written after the first fetch lie beyond the end the restore took: never applied.
      if (log.appendAfterFirstFetch) log.end += log.appendAfterFirstFetch;
      log.appendAfterFirstFetch = undefined;
      return { topic, partition, errorCode: 0, highWatermark: endOffset, lastStableOffset: endOffset, logStartOffset: log.start, endOffset, records: new RecordList(records), fetchOffset: from, nextOffset: to };
    });
  }

  async close(): Promise<void> {}
}

function transient(): Error {
  return Object.assign(new Error('Connection error'), { retriable: true });
}

describe('ChangelogRestorer', () => {
  const logger = pino({ level: 'silent' });
  let source: FakeChangelogs;
  let applied: Map<string, number[]>;
  let progress: RestoreProgress[];
  let restoredTasks: string[];
  let errors: unknown[];
  let restorer: ChangelogRestorer;

  const changelog = (taskId: string, partition: number, startOffset = EARLIEST): ChangelogToRestore => ({
    taskId,
    store: 'counts',
    topic: 'app-counts-changelog',
    partition,
    startOffset,
    apply: (records: ChangelogRecordList) => {
      const list = applied.get(taskId) ?? [];
      for (const r of records) list.push(Number(r.key.toString().slice(1)));
      applied.set(taskId, list);
    },
  });

  const settled = async (): Promise<void> => {
    for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  beforeEach(() => {
    source = new FakeChangelogs(10);
    applied = new Map();
    progress = [];
    restoredTasks = [];
    errors = [];
    restorer = new ChangelogRestorer(
      source,
      {
        onProgress: (_changelog, p) => progress.push(p),
        onTaskRestored: (taskId) => restoredTasks.push(taskId),
        onError: (error) => errors.push(error),
      },
      { retryForMs: 60_000, logger },
    );
  });

  afterEach(() => restorer.close());

  it('reads each partition from the log start to its end, in several fetches, and stops', async () => {
    source.log('app-counts-changelog', 0, 5, 42);
    restorer.register('1_0', [changelog('1_0', 0)]);
    await settled();
    expect(applied.get('1_0')).toEqual(Array.from({ length: 37 }, (_, i) => i + 5));
    expect(restoredTasks).toEqual(['1_0']);
    expect(progress[progress.length - 1]).toMatchObject({ taskId: '1_0', topic: 'app-counts-changelog', partition: 0, startOffset: 5, endOffset: 42, restored: 37, total: 37, remaining: 0, done: true });
    expect(progress.every((p) => p.remaining >= 0 && p.restored <= p.total)).toBe(true);
    const fetchCount = source.fetches.length;
    await settled();
    expect(source.fetches.length).toBe(fetchCount);
  });

  it('starts at the checkpoint', async () => {
    source.log('app-counts-changelog', 0, 0, 30);
    restorer.register('1_0', [changelog('1_0', 0, 25)]);
    await settled();
    expect(applied.get('1_0')).toEqual([25, 26, 27, 28, 29]);
    expect(progress[progress.length - 1]).toMatchObject({ restored: 5, total: 5, done: true });
  });

  it('ends at the end offset of its first fetch, not at records written later', async () => {
    source.log('app-counts-changelog', 0, 0, 15);
    source.logs.get('app-counts-changelog-0')!.appendAfterFirstFetch = 100;
    restorer.register('1_0', [changelog('1_0', 0)]);
    await settled();
    expect(applied.get('1_0')).toHaveLength(15);
    expect(restoredTasks).toEqual(['1_0']);
  });

  it('hands back a small task while a large one still restores', async () => {
    source.log('app-counts-changelog', 0, 0, 1000);
    source.log('app-counts-changelog', 1, 0, 20);
    restorer.register('1_0', [changelog('1_0', 0)]);
    restorer.register('1_1', [changelog('1_1', 1)]);
    while (restoredTasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(restoredTasks).toEqual(['1_1']);
    expect(applied.get('1_0')!.length).toBeLessThan(1000);
    expect(applied.get('1_1')).toHaveLength(20);
    // However long the machine takes: no fixed time, the large task is handed back once it is done.
    while (restoredTasks.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(restoredTasks).toEqual(['1_1', '1_0']);
    expect(applied.get('1_0')).toHaveLength(1000);
  });

  it('a task with several changelogs is restored when the last one is', async () => {
    source.log('app-counts-changelog', 0, 0, 5);
    source.log('app-counts-changelog', 1, 0, 50);
    restorer.register('1_0', [changelog('1_0', 0), changelog('1_0', 1)]);
    await settled();
    expect(restoredTasks).toEqual(['1_0']);
    expect(applied.get('1_0')).toHaveLength(55);
  });

  it('an empty changelog, or none, restores at once', async () => {
    source.log('app-counts-changelog', 0, 7, 7);
    restorer.register('1_0', [changelog('1_0', 0)]);
    restorer.register('0_0', []);
    await settled();
    expect(restoredTasks.sort()).toEqual(['0_0', '1_0']);
    expect(applied.get('1_0')).toBeUndefined();
  });

  it('writes nothing more for a task unregistered while restoring', async () => {
    source.log('app-counts-changelog', 0, 0, 1000);
    restorer.register('1_0', [changelog('1_0', 0)]);
    while ((applied.get('1_0')?.length ?? 0) < 30) await new Promise((resolve) => setImmediate(resolve));
    restorer.unregister('1_0');
    const count = applied.get('1_0')!.length;
    await settled();
    expect(applied.get('1_0')).toHaveLength(count);
    expect(restoredTasks).toEqual([]);
    expect(restorer.isRestoring('1_0')).toBe(false);
  });

  it('retries transient failures, and reports others', async () => {
    source.log('app-counts-changelog', 0, 0, 10);
    source.failures.push(transient());
    restorer.register('1_0', [changelog('1_0', 0)]);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(errors).toEqual([]);
    expect(restoredTasks).toEqual(['1_0']);

    source.log('app-counts-changelog', 1, 0, 10);
    source.failures.push(new Error('Topic authorization failed'));
    restorer.register('1_1', [changelog('1_1', 1)]);
    await settled();
    expect(errors).toEqual([new Error('Topic authorization failed')]);
    expect(restoredTasks).toEqual(['1_0']);
  });

  it('follows a changelog as it grows, never done, its progress the lag, until unregistered; restored once, when first caught up', async () => {
    source.log('app-counts-changelog', 0, 0, 25);
    restorer.register('1_0', [changelog('1_0', 0, 5)], { follow: true });
    await settled();
    expect(applied.get('1_0')).toEqual(Array.from({ length: 20 }, (_, i) => i + 5));
    expect(progress[progress.length - 1]).toMatchObject({ remaining: 0, done: false });
    expect(restoredTasks).toEqual(['1_0']);
    source.logs.get('app-counts-changelog-0')!.end = 40;
    await settled();
    expect(applied.get('1_0')).toEqual(Array.from({ length: 35 }, (_, i) => i + 5));
    expect(restoredTasks).toEqual(['1_0']);
    expect(restorer.takeCheckpoint('1_0', 0)).toEqual([{ topic: 'app-counts-changelog', partition: 0, offset: 40 }]);
    restorer.unregister('1_0');
    const fetchCount = source.fetches.length;
    await settled();
    expect(source.fetches.length).toBeLessThanOrEqual(fetchCount + 1);
    expect(applied.get('1_0')).toHaveLength(35);
  });

  it('calls a followed task restored only once every one of its changelogs reached its first end', async () => {
    source.log('app-counts-changelog', 0, 0, 5);
    source.log('app-counts-changelog', 1, 0, 30);
    restorer.register('global', [changelog('global', 0), changelog('global', 1)], { follow: true });
    for (let i = 0; i < 200 && restoredTasks.length === 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (restoredTasks.length === 0) expect(applied.get('global')?.length ?? 0).toBeLessThan(35);
    }
    expect(restoredTasks).toEqual(['global']);
    expect(applied.get('global')).toHaveLength(35);
  });
});
