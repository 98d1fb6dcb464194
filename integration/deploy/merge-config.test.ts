/** deploy/merge-config.js, the init container that makes the pod's one configuration file from a ConfigMap and a Secret. */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { REPO } from './support/image';

const SCRIPT = path.join(REPO, 'deploy/merge-config.js');
let dir: string;
const file = (name: string, text?: string) => {
  const full = path.join(dir, name);
  if (text !== undefined) fs.writeFileSync(full, text);
  return full;
};
const merge = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-merge-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('merges objects key by key, later files winning; lists and scalars are replaced; the result is private', () => {
  const base = file('base.yaml', 'server: { host: 0.0.0.0, port: 8080 }\nstreams: { state.dir: /s }\ntopologies: [{ module: a }, { module: b }]\n');
  const auth = file('auth.json', '{"server": {"users": {"admin": "pw"}, "port": 9000}, "topologies": [{"module": "c"}]}');
  const result = merge(file('out.yaml'), base, auth);
  expect(result.status).toBe(0);
  expect(parse(fs.readFileSync(file('out.yaml'), 'utf8'))).toEqual({
    server: { host: '0.0.0.0', port: 9000, users: { admin: 'pw' } },
    streams: { 'state.dir': '/s' },
    topologies: [{ module: 'c' }],
  });
  expect(fs.statSync(file('out.yaml')).mode & 0o777).toBe(0o600);
});

it('leaves out inputs that do not exist (an optional Secret), and fails with one line when none does or one is not an object', () => {
  const base = file('base.yaml', 'log: { level: debug }\n');
  expect(merge(file('out.yaml'), base, path.join(dir, 'absent/auth.yaml')).status).toBe(0);
  expect(parse(fs.readFileSync(file('out.yaml'), 'utf8'))).toEqual({ log: { level: 'debug' } });

  const none = merge(file('none.yaml'), path.join(dir, 'a.yaml'), path.join(dir, 'b.yaml'));
  expect([none.status, none.stderr]).toEqual([1, `merge-config: none of ${path.join(dir, 'a.yaml')}, ${path.join(dir, 'b.yaml')} exists\n`]);
  const list = merge(file('list.yaml'), file('list-in.yaml', '- a\n'));
  expect([list.status, list.stderr]).toEqual([1, `merge-config: ${path.join(dir, 'list-in.yaml')} must hold an object at the top\n`]);
});
