import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InitDirectoryNotEmpty, InvalidApplicationId } from '../../errors';
import { loadHostConfig } from '../config/host-config';
import { defaultName, scaffoldApplication } from './scaffold';

const REPO = path.resolve(__dirname, '../../..');
let parent: string;

beforeEach(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-init-'));
});

afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

describe('sluice init', () => {
  it('writes the application, named after its directory, every placeholder filled', () => {
    const app = scaffoldApplication({ dir: path.join(parent, 'Order Totals') });
    expect(app.name).toBe('order-totals');
    expect(app.files).toEqual([
      '.dockerignore',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'deploy/kubernetes/kustomization.yaml',
      'deploy/kubernetes/sluice.yaml',
      'jest.config.js',
      'package.json',
      'sluice.yaml',
      'src/index.ts',
      'src/word-count.test.ts',
      'src/word-count.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    for (const file of app.files) expect({ file, text: read(app.dir, file) }).toEqual({ file, text: expect.not.stringMatching(/\{\{|\}\}/) });
    expect(read(app.dir, 'src/word-count.ts')).toContain("export const LINES_TOPIC = 'order-totals-lines';");
  });

  it("depends on this Sluice's version, with the tools Sluice is built with", () => {
    const sluice = JSON.parse(read(REPO, 'package.json')) as { version: string; devDependencies: Record<string, string> };
    const app = scaffoldApplication({ dir: path.join(parent, 'app') });
    const manifest = JSON.parse(read(app.dir, 'package.json')) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(manifest.name).toBe('app');
    expect(manifest.dependencies).toEqual({ sluice: `^${sluice.version}` });
    for (const [tool, range] of Object.entries(manifest.devDependencies)) expect([tool, range]).toEqual([tool, sluice.devDependencies[tool]]);
    expect(read(app.dir, 'Dockerfile')).toContain(`ARG SLUICE_IMAGE=sluice:${sluice.version}`);
  });

  it('takes a local tarball relative to the application, anything else as given', () => {
    const tarball = path.join(parent, 'sluice-9.9.9.tgz');
    fs.writeFileSync(tarball, '');
    const local = scaffoldApplication({ dir: path.join(parent, 'apps', 'local'), sluice: tarball });
    expect((JSON.parse(read(local.dir, 'package.json')) as { dependencies: object }).dependencies).toEqual({ sluice: 'file:../../sluice-9.9.9.tgz' });
    const git = scaffoldApplication({ dir: path.join(parent, 'git'), sluice: 'git+https://example.com/sluice.git#v1' });
    expect((JSON.parse(read(git.dir, 'package.json')) as { dependencies: object }).dependencies).toEqual({ sluice: 'git+https://example.com/sluice.git#v1' });
  });

  it('writes configurations that Sluice loads: the local one and the one of the image and its pods', () => {
    const app = scaffoldApplication({ dir: path.join(parent, 'app'), name: 'totals' });
    const local = loadHostConfig({ config: path.join(app.dir, 'sluice.yaml') }, {});
    expect(local.topologies).toEqual([{ module: path.join(app.dir, 'dist') }]);
    expect(local.instances).toEqual([{ topology: 'word-count', applicationId: 'totals' }]);
    const pod = loadHostConfig({ config: path.join(app.dir, 'deploy/kubernetes/sluice.yaml') }, { SLUICE_BOOTSTRAP_SERVERS: 'kafka:9092' });
    expect(pod.topologies).toEqual([{ module: '/app/topologies/totals' }]);
    expect(read(app.dir, 'Dockerfile')).toContain('COPY --from=build /build/dist /app/topologies/totals');
    const overlay = parseYaml(read(app.dir, 'deploy/kubernetes/kustomization.yaml')) as { resources: string[] };
    expect(overlay.resources).toEqual(['../../node_modules/sluice/deploy/kubernetes/base']);
  });

  it('refuses a directory that holds anything but .git, and writes nothing there', () => {
    const dir = path.join(parent, 'busy');
    fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
    expect(scaffoldApplication({ dir }).files).toContain('package.json');
    expect(() => scaffoldApplication({ dir })).toThrow(InitDirectoryNotEmpty);
    const other = path.join(parent, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'notes.txt'), 'mine');
    expect(() => scaffoldApplication({ dir: other })).toThrow(`Cannot create an application in ${other}: it holds notes.txt; sluice init needs a new or empty directory`);
    expect(fs.readdirSync(other)).toEqual(['notes.txt']);
    expect(() => scaffoldApplication({ dir: path.join(other, 'notes.txt') })).toThrow('it is a file');
  });

  it('refuses a name that is not legal for a package, an application, its topics and its image', () => {
    expect(defaultName('/tmp/My_App 2')).toBe('my-app-2');
    expect(() => scaffoldApplication({ dir: path.join(parent, 'x'), name: 'My App' })).toThrow(InvalidApplicationId);
    expect(() => scaffoldApplication({ dir: path.join(parent, '___') })).toThrow(InvalidApplicationId);
    expect(fs.readdirSync(parent)).toEqual([]);
  });
});
