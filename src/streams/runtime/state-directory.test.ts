import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidApplicationId, PathOutsideStateDirectory } from '../../errors';
import { pathInside, StateDirectory } from './state-directory';

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
    dir.lock('0_1');
    dir.unlock('0_1');
    dir.cleanUp();
    expect(fs.existsSync(path.join(stateDir, 'app'))).toBe(false);
    expect(fs.existsSync(stateDir)).toBe(true);
  });

  it.each(['..', '.', '../sentinel', 'a/b', ''])('refuses the application id %j before touching anything', (id) => {
    expect(() => new StateDirectory(path.join(stateDir, 'sub'), id)).toThrow(InvalidApplicationId);
    expect(fs.readdirSync(root).sort()).toEqual(['sentinel', 'state']);
    expect(fs.readFileSync(path.join(sentinel, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('never lets a task id lead out of the application directory', () => {
    const dir = new StateDirectory(stateDir, 'app');
    for (const taskId of ['..', '../..', '../../sentinel']) {
      expect(() => dir.taskDir(taskId)).toThrow(PathOutsideStateDirectory);
      expect(() => dir.wipeTaskState(taskId)).toThrow(PathOutsideStateDirectory);
      expect(() => dir.lock(taskId)).toThrow(PathOutsideStateDirectory);
    }
    expect(fs.readFileSync(path.join(sentinel, 'keep.txt'), 'utf8')).toBe('keep');
  });
});
