import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { EARLIEST, RecordArray, type TopicPartition, TopicPartitionMap } from '../kafka';
import { RecordList } from '../kafka/testing/record-list';
import { Serdes } from '../serdes/serdes';
import { Stores } from '../state/stores';
import type { KeyValueStore } from '../state/store';
import { ThreadCache } from '../state/thread-cache';
import { Topology } from '../topology/topology';
import type { ChangelogToRestore, RestoredPosition } from './changelog-restorer';
import { Committer } from './committer';
import { KafkaRecordCollector } from './kafka-record-collector';
import { PartitionPositions } from './partition-positions';
import { namedHandlers } from './exception-handlers';
import { StateDirectory } from './state-directory';
import { StreamTask } from './task';
import { TaskCheckpoints } from './task-checkpoints';
import { taskIdToString } from './task-id';
import { TaskManager, type TaskRestorer } from './task-manager';
import type { OffsetToCommit } from './task-transaction';
import { TopologyMetadata } from './topology-metadata';

const logger = pino({ level: 'silent' });
const CHANGELOG = 'app-latest-changelog';

/** input → remember (writes each value into the logged store `latest`); a second sub-topology reads `other`. */
function topology(): Topology {
  return new Topology()
    .addSource('source', 'input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor(
      'remember',
      () => {
        let store: KeyValueStore<string, string>;
        return {
          init: (context) => void (store = context.getStateStore('latest')),
          process: (record) => store.put(record.key as string, record.value as string),
        };
      },
      'source',
    )
    .addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('latest'), Serdes.String(), Serdes.String()), 'remember')
    .addSource('other-source', 'other');
}

/** A restorer that records what it is asked, and hands out checkpoint positions it is told to. */
class FakeRestorer implements TaskRestorer {
  readonly registered = new Map<string, ChangelogToRestore[]>();
  readonly unregistered: string[] = [];
  progress: RestoredPosition[] = [];

  register(taskId: string, changelogs: readonly ChangelogToRestore[]): void {
    this.registered.set(taskId, [...changelogs]);
  }

  unregister(taskId: string): void {
    this.unregistered.push(taskId);
  }

  takeCheckpoint(taskId: string): RestoredPosition[] {
    return this.progress.filter((p) => taskId.endsWith(`_${p.partition}`));
  }
}

describe('TaskManager', () => {
  let stateDir: string;
  let directory: StateDirectory;
  let restorer: FakeRestorer;
  let committed: OffsetToCommit[][];
  let released: string[];
  const metadata = new TopologyMetadata(topology(), 'app');

  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-task-manager-'));
    directory = new StateDirectory(stateDir, 'app');
    restorer = new FakeRestorer();
    committed = [];
    released = [];
  });
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  function manager(exactlyOnce = false, owner = 'StreamThread-1'): TaskManager {
    const checkpoints = new TaskCheckpoints(directory, exactlyOnce);
    const committer = new Committer(async (offsets) => void committed.push([...offsets]), new PartitionPositions(), checkpoints, { exactlyOnce, taskTimeoutMs: 1_000, logger });
    return new TaskManager({
      metadata,
      stateDirectory: directory,
      checkpoints,
      committer,
      restorer,
      owner,
      lockWaitMs: 10_000,
      logger,
      createTask: async (id) => {
        const name = taskIdToString(id);
        const collector = new KafkaRecordCollector({ sendBatch: async () => [] }, new Map([[CHANGELOG, 4]]));
        const task = new StreamTask(id, metadata.subtopologies[id.subtopology]!.definition, metadata.topology, {
          applicationId: 'app',
          config: {},
          defaultKeySerde: Serdes.String() as never,
          defaultValueSerde: Serdes.String() as never,
          collector,
          cache: new ThreadCache(0),
          taskDir: directory.taskDir(name),
          resolveTopic: (t) => metadata.topicName(t),
          changelogTopic: (s) => metadata.changelogTopic(s),
          exceptionHandlers: namedHandlers(() => undefined),
          wallClock: Date.now,
        });
        return { task, output: { collector }, metrics: { restoreRemaining: () => undefined, processed: () => undefined }, release: () => void released.push(name) };
      },
    });
  }

  const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });

  it('creates one task per sub-topology and partition, restoring each logged store from the log start', async () => {
    const tasks = manager();
    const { created } = await tasks.handleAssignment([tp('input', 0), tp('input', 1), tp('other', 1), tp('unknown', 0)]);
    expect(created.map((t) => `${t.name} ${t.partitions.map((p) => `${p.topic}-${p.partition}`).join(',')}`)).toEqual(['0_0 input-0', '0_1 input-1', '1_1 other-1']);
    expect([...restorer.registered.keys()]).toEqual(['0_0', '0_1', '1_1']);
    expect(restorer.registered.get('0_1')!.map((c) => [c.store, c.topic, c.partition, c.startOffset])).toEqual([['latest', CHANGELOG, 1, EARLIEST]]);
    expect(restorer.registered.get('1_1')).toEqual([]);
    // Restoring tasks neither process nor answer queries.
    expect(tasks.running('0_0')).toBeUndefined();
    expect(tasks.restoring).toBe(true);
  });

  it('restores into the store, then hands the task over to processing with a checkpoint at the changelog end', async () => {
    const tasks = manager();
    await tasks.handleAssignment([tp('input', 2)]);
    const [changelog] = restorer.registered.get('0_2')!;
    changelog!.apply(new RecordList([{ key: Buffer.from('k'), value: Buffer.from('restored'), timestamp: 1, offset: 0 }]));
    tasks.restoreProgress(changelog!, { taskId: '0_2', topic: CHANGELOG, partition: 2, startOffset: 0, endOffset: 1, startedAt: 0, restored: 1, total: 1, remaining: 0, done: true }, { startingOffset: 0, endingOffset: 1, durationMs: 3 });
    expect(await tasks.finishRestoring('0_2')).toEqual([tp('input', 2)]);
    expect(await tasks.finishRestoring('0_2')).toBeUndefined();
    const running = tasks.running('0_2')!;
    expect((running.task.stores.get('latest') as KeyValueStore<string, string>).get('k')).toBe('restored');
    expect(directory.readCheckpoint('0_2')?.get(CHANGELOG, 2)).toBe(1);
    expect(tasks.restorations.get(CHANGELOG, 2)).toMatchObject({ totalRestored: 1, startingOffset: 0, endingOffset: 1 });
    expect(tasks.restoring).toBe(false);
  });

  it('starts a restore at the checkpoint, and wipes local state that no checkpoint vouches for', async () => {
    directory.lock('0_0', 'test');
    directory.writeCheckpoint('0_0', new TopicPartitionMap<number>().set(CHANGELOG, 0, 57));
    directory.unlock('0_0', 'test');
    fs.mkdirSync(directory.taskDir('0_1'), { recursive: true });
    fs.writeFileSync(path.join(directory.taskDir('0_1'), 'stale'), 'x');
    await manager().handleAssignment([tp('input', 0), tp('input', 1)]);
    expect(restorer.registered.get('0_0')![0]!.startOffset).toBe(57);
    expect(fs.existsSync(path.join(directory.taskDir('0_1'), 'stale'))).toBe(false);
  });

  it('commits and closes the tasks an assignment takes away, and keeps the others', async () => {
    const tasks = manager();
    await tasks.handleAssignment([tp('input', 0), tp('input', 1)]);
    await tasks.finishRestoring('0_0');
    await tasks.finishRestoring('0_1');
    const kept = tasks.get('0_0');
    tasks.running('0_1')!.task.addRecords(new RecordArray('input', 1, [{ topic: 'input', partition: 1, offset: 4, timestamp: 10, key: Buffer.from('a'), value: Buffer.from('b'), headers: {} }]));
    tasks.running('0_1')!.task.process();
    const { created, closedPartitions } = await tasks.handleAssignment([tp('input', 0)]);
    expect(created).toEqual([]);
    expect(closedPartitions).toEqual([tp('input', 1)]);
    expect(committed).toEqual([[{ topic: 'input', partition: 1, offset: 5 }]]);
    expect(tasks.get('0_0')).toBe(kept);
    expect(tasks.get('0_1')).toBeUndefined();
    expect(released).toEqual(['0_1']);
    expect(restorer.unregistered).toEqual(['0_1']);
    // Its directory is unlocked: another owner (here, a new manager) can take the task.
    expect(() => directory.lock('0_1', 'test')).not.toThrow();
  });

  it('lets a task that moves to another thread open there only once the thread that had it has closed it', async () => {
    const first = manager(false, 'StreamThread-1');
    const second = manager(false, 'StreamThread-2');
    await first.handleAssignment([tp('input', 0)]);
    const events: string[] = [];
    const taken = second.handleAssignment([tp('input', 0)]).then(() => events.push('opened by the second'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual([]);
    await first.handleAssignment([]);
    events.push('closed by the first');
    await taken;
    expect(events).toEqual(['closed by the first', 'opened by the second']);
    expect(directory.lockOwner('0_0')).toBe('StreamThread-2');
    await second.closeAll(true);
  });

  it('checkpoints how far a restoring task got when it closes', async () => {
    const tasks = manager();
    await tasks.handleAssignment([tp('input', 3)]);
    restorer.progress = [{ topic: CHANGELOG, partition: 3, offset: 12_345 }];
    await tasks.closeAll(true);
    expect(directory.readCheckpoint('0_3')?.get(CHANGELOG, 3)).toBe(12_345);
  });

  it('exactly-once: no checkpoint on disk while the task runs; a clean close writes it, an unclean one does not', async () => {
    const tasks = manager(true);
    await tasks.handleAssignment([tp('input', 0), tp('input', 1)]);
    for (const id of ['0_0', '0_1']) {
      const [changelog] = restorer.registered.get(id)!;
      tasks.restoreProgress(changelog!, { taskId: id, topic: CHANGELOG, partition: changelog!.partition, startOffset: 0, endOffset: 8, startedAt: 0, restored: 8, total: 8, remaining: 0, done: true }, { startingOffset: 0, endingOffset: 8, durationMs: 1 });
      await tasks.finishRestoring(id);
      expect(directory.readCheckpoint(id)).toBeUndefined();
    }
    await tasks.close('0_0', true);
    await tasks.close('0_1', false);
    expect(directory.readCheckpoint('0_0')?.get(CHANGELOG, 0)).toBe(8);
    expect(directory.readCheckpoint('0_1')).toBeUndefined();
  });
});
