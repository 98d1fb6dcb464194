import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CorruptedTaskState, InvalidApplicationId, PathOutsideStateDirectory } from '../../errors';
import { TopicPartitionMap } from '../kafka';
import { pathInside, StateDirectory } from './state-directory';
import { liveWorkerThreadIds } from './worker-thread-ids';

let root: string;
let stateDir: string;
let sentinel: string;

beforeEach(() => {
  // The state directory and, beside it, a directory that nothing derived from an id may touch.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-state-dir-'));
  stateDir = path.join(root, 'state');
  fs.mkdirSync(stateDir);
  sentinel = path.join(root, 'sentinel');
  fs.mkdirSync(sentinel);
  fs.writeFileSync(path.join(sentinel, 'keep.txt'), 'keep');
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('pathInside', () => {
  it('resolves paths below the root', () => {
    expect(pathInside(stateDir, 'app', '0_1')).toBe(path.join(stateDir, 'app', '0_1'));
    expect(pathInside(`${stateDir}/`, '..state')).toBe(path.join(stateDir, '..state'));
  });

  it.each([[['.']], [['..']], [['..', 'sentinel']], [['app', '..', '..']], [['/etc']], [['']], [['app/../../sentinel']]])(
    'refuses %j: the root itself or anything outside it',
    (segments) => {
      expect(() => pathInside(stateDir, ...segments)).toThrow(PathOutsideStateDirectory);
    },
  );
});

describe('StateDirectory', () => {
  it('keeps an application and its tasks under <state.dir>/<application.id>', () => {
    const dir = new StateDirectory(stateDir, 'app');
    expect(dir.appDir).toBe(path.join(stateDir, 'app'));
    expect(dir.taskDir('0_1')).toBe(path.join(stateDir, 'app', '0_1'));
    dir.lock('0_1', 'test');
    dir.unlock('0_1', 'test');
    dir.cleanUp();
    expect(fs.existsSync(path.join(stateDir, 'app'))).toBe(false);
    expect(fs.existsSync(stateDir)).toBe(true);
  });

  it.each(['..', '.', '../sentinel', 'a/b', ''])('refuses the application id %j before touching anything', (id) => {
    expect(() => new StateDirectory(path.join(stateDir, 'sub'), id)).toThrow(InvalidApplicationId);
    expect(fs.readdirSync(root).sort()).toEqual(['sentinel', 'state']);
    expect(fs.readFileSync(path.join(sentinel, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it("refuses a task directory another thread of the instance holds, and leaves its lock to it", () => {
    const dir = new StateDirectory(stateDir, 'app');
    dir.lock('0_1', 'StreamThread-1');
    expect(() => dir.lock('0_1', 'StreamThread-2')).toThrow(`is locked by thread StreamThread-1 of this instance`);
    dir.unlock('0_1', 'StreamThread-2');
    expect(dir.lockOwner('0_1')).toBe('StreamThread-1');
    dir.unlock('0_1', 'StreamThread-1');
    expect(dir.lockOwner('0_1')).toBeUndefined();
    dir.lock('0_1', 'StreamThread-2');
    dir.unlock('0_1', 'StreamThread-2');
  });

  it("refuses a task directory a live worker thread of the process holds, and takes one over from a worker that ended", () => {
    const dir = new StateDirectory(stateDir, 'app');
    fs.mkdirSync(dir.taskDir('0_2'), { recursive: true });
    const lockFile = path.join(dir.taskDir('0_2'), '.lock');
    fs.writeFileSync(lockFile, `${process.pid}:${dir.processRun}:42`);
    liveWorkerThreadIds.add(42);
    try {
      expect(() => dir.lock('0_2', 'StreamThread-1')).toThrow('is locked by thread 42 of this process');
    } finally {
      liveWorkerThreadIds.delete(42);
    }
    dir.lock('0_2', 'StreamThread-1');
    expect(fs.readFileSync(lockFile, 'utf8')).toBe(`${process.pid}:${dir.processRun}:0`);
    dir.unlock('0_2', 'StreamThread-1');
    fs.writeFileSync(lockFile, `${process.pid}:${dir.processRun}:42`);
    dir.releaseLocksOfThread(7);
    expect(fs.existsSync(lockFile)).toBe(true);
    dir.releaseLocksOfThread(42);
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('takes over a lock an earlier process left under the same pid (a container restarted as PID 1), whatever thread it names', () => {
    const dir = new StateDirectory(stateDir, 'app');
    fs.mkdirSync(dir.taskDir('0_3'), { recursive: true });
    const lockFile = path.join(dir.taskDir('0_3'), '.lock');
    liveWorkerThreadIds.add(42);
    try {
      for (const earlier of [`${process.pid}:an-earlier-run:42`, `${process.pid}:42`, `${process.pid}`]) {
        fs.writeFileSync(lockFile, earlier);
        dir.lock('0_3', 'StreamThread-1');
        expect(fs.readFileSync(lockFile, 'utf8')).toBe(`${process.pid}:${dir.processRun}:0`);
        dir.unlock('0_3', 'StreamThread-1');
      }
      // A worker of this run releasing its locks leaves an earlier run's alone.
      fs.writeFileSync(lockFile, `${process.pid}:an-earlier-run:42`);
      dir.releaseLocksOfThread(42);
      expect(fs.existsSync(lockFile)).toBe(true);
    } finally {
      liveWorkerThreadIds.delete(42);
    }
  });

  it('never lets a task id lead out of the application directory', () => {
    const dir = new StateDirectory(stateDir, 'app');
    for (const taskId of ['..', '../..', '../../sentinel']) {
      expect(() => dir.taskDir(taskId)).toThrow(PathOutsideStateDirectory);
      expect(() => dir.wipeTaskState(taskId)).toThrow(PathOutsideStateDirectory);
      expect(() => dir.lock(taskId, 'test')).toThrow(PathOutsideStateDirectory);
    }
    expect(fs.readFileSync(path.join(sentinel, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('checkpoint files', () => {
  const write = (dir: StateDirectory, text: string) => fs.writeFileSync(path.join(dir.taskDir('0_0'), '.checkpoint'), text);

  it('reads back what it wrote, and nothing when there is no file', () => {
    const dir = new StateDirectory(stateDir, 'app');
    dir.lock('0_0', 'test');
    expect(dir.readCheckpoint('0_0')).toBeUndefined();
    dir.writeCheckpoint('0_0', new TopicPartitionMap<number>().set('app-a-changelog', 0, 42).set('app-b-changelog', 0, 0));
    expect([...dir.readCheckpoint('0_0')!.entries()].map(([tp, offset]) => `${tp.topic}:${offset}`)).toEqual(['app-a-changelog:42', 'app-b-changelog:0']);
    dir.unlock('0_0', 'test');
  });

  it('skips a negative offset, as Kafka Streams does: that changelog restores in full', () => {
    const dir = new StateDirectory(stateDir, 'app');
    dir.lock('0_0', 'test');
    write(dir, '0\n2\na 0 -1\nb 0 7\n');
    expect([...dir.readCheckpoint('0_0')!.entries()].map(([tp, offset]) => `${tp.topic}:${offset}`)).toEqual(['b:7']);
    dir.unlock('0_0', 'test');
  });

  it.each([
    ['another version', '1\n1\na 0 5\n'],
    ['an empty file', ''],
    ['fewer entries than announced', '0\n2\na 0 5\n'],
    ['more entries than announced', '0\n1\na 0 5\nb 0 6\n'],
    ['an entry cut short', '0\n1\na 0 \n'],
    ['an offset that is not a number', '0\n1\na 0 5x\n'],
    ['a partition that is not a number', '0\n1\na zero 5\n'],
    ['an entry with a fourth field', '0\n1\na 0 5 6\n'],
    ['binary garbage', '\u0000\u0001\u0002'],
  ])('refuses %s as corrupted, naming the file', (_what, text) => {
    const dir = new StateDirectory(stateDir, 'app');
    dir.lock('0_0', 'test');
    write(dir, text);
    expect(() => dir.readCheckpoint('0_0')).toThrow(CorruptedTaskState);
    expect(() => dir.readCheckpoint('0_0')).toThrow(path.join(dir.taskDir('0_0'), '.checkpoint'));
    dir.unlock('0_0', 'test');
  });

  it('marks a task whose stores are opening until they have opened', () => {
    const dir = new StateDirectory(stateDir, 'app');
    dir.lock('0_0', 'test');
    expect(dir.openingInterrupted('0_0')).toBe(false);
    dir.openingStores('0_0');
    expect(dir.openingInterrupted('0_0')).toBe(true);
    dir.storesOpened('0_0');
    expect(dir.openingInterrupted('0_0')).toBe(false);
    dir.unlock('0_0', 'test');
  });
});
