/**
 * The container image as deploy/Dockerfile builds it, read from the repository (no Docker engine here): its stages
 * and instructions, which repository file each path of the final image comes from, and what .dockerignore leaves
 * in the build context.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export const REPO = path.resolve(__dirname, '../../..');
export const DOCKERFILE = path.join(REPO, 'deploy/Dockerfile');

export interface CopyInstruction {
  /** The stage copied from, or undefined for the build context. */
  from?: string;
  sources: string[];
  /** Absolute, with a trailing slash when it names a directory. */
  destination: string;
}

export interface Stage {
  name?: string;
  base: string;
  workdir: string;
  copies: CopyInstruction[];
  runs: string[];
  user?: string;
  expose: number[];
  volumes: string[];
  /** ENV, as the image's processes get it. */
  env: Record<string, string>;
  entrypoint?: string[];
}

/** Lines with their continuations joined, without comments and blank lines, as [INSTRUCTION, arguments]. */
function instructions(text: string): [string, string][] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
      return [keyword!.toUpperCase(), rest!];
    });
}

function parseCopy(args: string, workdir: string): CopyInstruction {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
  }
  const destinationWord = words.pop()!;
  const resolved = path.posix.resolve(workdir, destinationWord);
  const isDirectory = destinationWord.endsWith('/') || destinationWord === '.' || words.length > 1;
  return { from, sources: words, destination: isDirectory ? `${resolved}/` : resolved };
}

export function readDockerfile(file = DOCKERFILE): Stage[] {
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  for (const [keyword, args] of instructions(fs.readFileSync(file, 'utf8'))) {
    if (keyword === 'ARG' && stage === undefined) continue;
    if (keyword === 'FROM') {
      const [base, as, name] = args.split(/\s+/);
      stage = { base: base!, name: as?.toUpperCase() === 'AS' ? name : undefined, workdir: '/', copies: [], runs: [], expose: [], volumes: [], env: {} };
      stages.push(stage);
      continue;
    }
    if (stage === undefined) throw new Error(`${keyword} before FROM`);
    switch (keyword) {
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args);
        break;
      case 'COPY':
        stage.copies.push(parseCopy(args, stage.workdir));
        break;
      case 'RUN':
        stage.runs.push(args);
        break;
      case 'ENV':
        for (const [, name, quoted, bare] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S+))/g)) stage.env[name!] = quoted ?? bare!;
        break;
      // Nothing that these tests check depends on it.
      case 'ARG':
        break;
      case 'USER':
        stage.user = args;
        break;
      case 'EXPOSE':
        stage.expose.push(...args.split(/\s+/).map(Number));
        break;
      case 'VOLUME':
        stage.volumes.push(...(args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/)));
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`instruction ${keyword} is not read by these tests`);
    }
  }
  return stages;
}

/**
 * `tsc -p <tsconfig>` as `npm run build` runs it first (then the web console's build and the ES module entry points, into the same outDir): its
 * outDir and rootDir, relative to the repository, as tsc reads them.
 */
export function buildOutput(): { tsconfig: string; outDir: string; rootDir: string } {
  const script = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build!;
  const match = /^tsc -p (\S+)(?: && node \S+)*$/.exec(script);
  if (!match) throw new Error(`npm run build is '${script}', not tsc -p <tsconfig>`);
  const tsconfig = match[1]!;
  const read = ts.readConfigFile(path.join(REPO, tsconfig), ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const { options } = ts.parseJsonConfigFileContent(read.config, ts.sys, REPO);
  if (options.outDir === undefined || options.rootDir === undefined) throw new Error(`${tsconfig} sets no outDir and rootDir`);
  return { tsconfig, outDir: path.relative(REPO, options.outDir), rootDir: path.relative(REPO, options.rootDir) || '.' };
}

/** Where an absolute path inside a stage comes from: a file of the build context, or `npm run build` of one. */
export type Origin = { kind: 'context'; path: string } | { kind: 'compiled'; source: string };

/** The part of `target` below `prefix` ('' for the path itself), or undefined when it is not below it. */
function below(target: string, prefix: string): string | undefined {
  const base = prefix.replace(/\/$/, '');
  if (target === base) return '';
  return target.startsWith(`${base}/`) ? target.slice(base.length + 1) : undefined;
}

/**
 * The origin of `target` in `stage`: the last COPY that covers it (later ones overwrite), followed into the stage it
 * copies from; in a stage that runs `npm run build`, paths under the compiler's outDir are compiled from the
 * sources at the same place under its rootDir (which that stage must have copied in).
 */
export function originOf(stages: Stage[], stage: Stage, target: string): Origin | undefined {
  for (const copy of [...stage.copies].reverse()) {
    for (const source of copy.sources) {
      const rest = below(target, copyTarget(copy, source));
      if (rest === undefined) continue;
      const from = rest === '' ? source : path.posix.join(source, rest);
      if (copy.from === undefined) return { kind: 'context', path: from };
      const origin = stages.find((candidate) => candidate.name === copy.from);
      if (origin === undefined) throw new Error(`COPY --from=${copy.from}: no such stage`);
      return originOf(stages, origin, from);
    }
  }
  if (stage.runs.some((run) => /\bnpm run build\b/.test(run))) {
    const { outDir, rootDir } = buildOutput();
    const rest = below(target, path.posix.resolve(stage.workdir, outDir));
    if (rest !== undefined) {
      const source = originOf(stages, stage, path.posix.resolve(stage.workdir, rootDir, rest.replace(/\.js$/, '.ts')));
      if (source?.kind === 'context') return { kind: 'compiled', source: source.path };
    }
  }
  return undefined;
}

/**
 * Where COPY puts `source`: a directory's contents go into the destination; a file goes to the destination, or
 * into it when it ends with a slash.
 */
function copyTarget(copy: CopyInstruction, source: string): string {
  if (!copy.destination.endsWith('/')) return copy.destination;
  if (copy.from !== undefined) throw new Error(`COPY --from=${copy.from} ${source} into a directory is not read by these tests`);
  const file = path.join(REPO, source);
  return fs.existsSync(file) && fs.statSync(file).isDirectory() ? copy.destination : `${copy.destination}${path.posix.basename(source)}`;
}

/** A glob of .dockerignore as a regular expression: `*` and `?` within a path segment, `**` across segments. */
function globRegex(pattern: string): RegExp {
  const body = pattern
    .replace(/^\/+|\/+$/g, '')
    .split(/(\*\*\/?|\*|\?)/)
    .map((part) => {
      if (part === '**/' || part === '**') return '(?:.*/)?';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
}

/** Whether .dockerignore keeps `file` (relative to the repository) in the build context: the last matching line decides. */
export function inBuildContext(file: string): boolean {
  const lines = fs
    .readFileSync(path.join(REPO, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  // A line that matches a directory matches everything in it.
  const prefixes = file.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  let kept = true;
  for (const line of lines) {
    const negated = line.startsWith('!');
    const regex = globRegex(negated ? line.slice(1) : line);
    if (prefixes.some((prefix) => regex.test(prefix))) kept = negated;
  }
  return kept;
}

/** The repository file a path of the final image comes from (for compiled output, its TypeScript source), or undefined. */
export function sourceInRepository(imagePath: string, stages = readDockerfile()): string | undefined {
  const origin = originOf(stages, stages[stages.length - 1]!, imagePath);
  if (origin === undefined) return undefined;
  return path.join(REPO, origin.kind === 'context' ? origin.path : origin.source);
}
