/**
 * `sluice init <dir>`: a new application outside Sluice's repository, with Sluice as a dependency: a topology in
 * TypeScript and its TopologyTestDriver test, the configuration `npm start` runs, an image built on Sluice's and a
 * Kustomize overlay of Sluice's base. The files are the templates beside this module (`templates/`, each `<file>.tmpl`)
 * with the application's name and Sluice's version filled in; package.json is written here, with the versions Sluice
 * itself is built and tested with.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { InitDirectoryNotEmpty, InvalidApplicationId } from '../../errors';

export interface ScaffoldOptions {
  /** Where the application goes: a directory that does not exist yet, or an empty one. */
  dir: string;
  /** Its name (package, application.id, topic prefix, image); by default the directory's name, made legal. */
  name?: string;
  /** The sluice dependency as npm takes it (a range, a tarball, a git URL); by default `^` this Sluice's version. */
  sluice?: string;
}

export interface ScaffoldedApplication {
  dir: string;
  name: string;
  /** The files written, relative to `dir`. */
  files: string[];
}

/** The tools the generated package.json names, at the versions Sluice's own package.json gives them. */
const DEV_TOOLS = ['@types/jest', '@types/node', 'jest', 'ts-jest', 'typescript'];

/** Template files whose own name npm would not pack (or would take as its own ignore list). */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore', dockerignore: '.dockerignore' };

/**
 * A name legal everywhere it goes: an npm package name, an application id and topic prefix, a Docker image
 * name: lowercase letters and digits, separated by single '.', '_' or '-'.
 */
const NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 100;

interface SluicePackage {
  root: string;
  version: string;
  devDependencies: Record<string, string>;
}

/** Sluice's own package: the folder above this module (compiled or not) whose package.json is sluice's. */
function sluicePackage(): SluicePackage {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version: string; devDependencies?: Record<string, string> };
    if (manifest.name === 'sluice') return { root: dir, version: manifest.version, devDependencies: manifest.devDependencies ?? {} };
  }
  throw new Error(`no package.json of sluice above ${__dirname}`);
}

/** The templates: beside this module in the sources, or where the package ships them when compiled. */
function templatesDir(root: string): string {
  const candidates = [path.join(__dirname, 'templates'), path.join(root, 'src', 'host', 'init', 'templates')];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (found === undefined) throw new Error(`the templates of sluice init are missing; looked at ${candidates.join(', ')}`);
  return found;
}

/** The directory's name made legal: lowercase, other characters turned into single dashes. */
export function defaultName(dir: string): string {
  return path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function checkName(name: string): string {
  if (name.length > MAX_NAME_LENGTH) throw new InvalidApplicationId(name.slice(0, MAX_NAME_LENGTH), `it is longer than ${MAX_NAME_LENGTH} characters`);
  if (!NAME.test(name)) {
    throw new InvalidApplicationId(
      name,
      "sluice init uses it as the package's, the application's, its topics' and its image's name: lowercase letters and digits, separated by '.', '_' or '-' (--name)",
    );
  }
  return name;
}

/** Refuses a directory that holds anything but an empty Git repository's `.git`. */
function checkTarget(dir: string): void {
  if (!fs.existsSync(dir)) return;
  if (!fs.statSync(dir).isDirectory()) throw new InitDirectoryNotEmpty(dir, 'it is a file');
  const entries = fs.readdirSync(dir).filter((entry) => entry !== '.git');
  if (entries.length > 0) {
    const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? `, and ${entries.length - 3} more` : '');
    throw new InitDirectoryNotEmpty(dir, `it holds ${shown}`);
  }
}

/** The dependency on Sluice: a local tarball or folder relative to the application (npm's `file:`), else as given. */
function sluiceDependency(spec: string | undefined, version: string, dir: string): string {
  if (spec === undefined) return `^${version}`;
  const local = path.resolve(spec.replace(/^file:/, ''));
  if (!fs.existsSync(local)) return spec;
  return `file:${path.relative(dir, local).split(path.sep).join('/')}`;
}

function templateFiles(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(prefix, entry.name);
    if (entry.isDirectory()) return templateFiles(path.join(dir, entry.name), relative);
    return entry.name.endsWith('.tmpl') ? [relative] : [];
  });
}

function fill(template: string, values: Readonly<Record<string, string>>, file: string): string {
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template ${file} has an unknown placeholder ${placeholder}`);
    return value;
  });
}

function packageJson(name: string, dependency: string, sluice: SluicePackage): string {
  const devDependencies = Object.fromEntries(
    DEV_TOOLS.map((tool) => {
      const range = sluice.devDependencies[tool];
      if (range === undefined) throw new Error(`sluice's package.json gives no version of ${tool}`);
      return [tool, range];
    }),
  );
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    description: `${name}: Kafka Streams topologies in TypeScript, run by Sluice`,
    main: 'dist/index.js',
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      test: 'tsc --noEmit && jest',
      prestart: 'npm run build',
      start: 'sluice start --config sluice.yaml',
    },
    dependencies: { sluice: dependency },
    devDependencies,
    engines: { node: '>=20' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Writes the application; refuses a directory that is not empty (InitDirectoryNotEmpty) and an illegal name. */
export function scaffoldApplication(options: ScaffoldOptions): ScaffoldedApplication {
  const dir = path.resolve(options.dir);
  const name = checkName(options.name ?? defaultName(dir));
  checkTarget(dir);
  const sluice = sluicePackage();
  const templates = templatesDir(sluice.root);
  const values = { name, sluiceVersion: sluice.version };
  const written = new Map<string, string>([['package.json', packageJson(name, sluiceDependency(options.sluice, sluice.version, dir), sluice)]]);
  for (const template of templateFiles(templates)) {
    const base = path.posix.basename(template, '.tmpl');
    const target = path.posix.join(path.posix.dirname(template), RENAMED[base] ?? base);
    written.set(target, fill(fs.readFileSync(path.join(templates, template), 'utf8'), values, template));
  }
  for (const [file, text] of written) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return { dir, name, files: [...written.keys()].sort() };
}
