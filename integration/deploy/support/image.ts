/**
 * The container image as deploy/Dockerfile builds it, read from the repository (no Docker engine here): its stages
 * and instructions, which repository file each path of the final image comes from, and what .dockerignore leaves
 * in the build context.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';

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
  env: Record<string, string>;
  user?: string;
  expose: number[];
  volumes: string[];
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
      stage = { base: base!, name: as?.toUpperCase() === 'AS' ? name : undefined, workdir: '/', copies: [], runs: [], env: {}, expose: [], volumes: [] };
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
        for (const match of args.matchAll(/(\w+)=(\S+)/g)) stage.env[match[1]!] = match[2]!;
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

/** `tsc -p <tsconfig>` as `npm run build` runs it: where a source file's output lands, relative to the project. */
export function buildOutput(): { tsconfig: string; outDir: string; rootDir: string } {
  const script = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build!;
  const match = /^tsc -p (\S+)$/.exec(script);
  if (!match) throw new Error(`npm run build is '${script}', not tsc -p <tsconfig>`);
  const tsconfig = match[1]!;
  const options = (file: string): { extends?: string; compilerOptions?: { outDir?: string; rootDir?: string } } =>
    parseYaml(fs.readFileSync(path.join(REPO, file), 'utf8'));
  const own = options(tsconfig);
  const base = own.extends ? options(own.extends) : {};
  const outDir = own.compilerOptions?.outDir ?? base.compilerOptions?.outDir;
  const rootDir = own.compilerOptions?.rootDir ?? base.compilerOptions?.rootDir;
  if (outDir === undefined || rootDir === undefined) throw new Error(`${tsconfig} sets no outDir and rootDir`);
  return { tsconfig, outDir: path.posix.normalize(outDir), rootDir: path.posix.normalize(rootDir) };
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
      const copiedInto = copy.destination.endsWith('/') && copy.sources.length === 1 && !copy.from
        ? (fs.existsSync(path.join(REPO, source)) && fs.statSync(path.join(REPO, source)).isDirectory() ? copy.destination : `${copy.destination}${path.posix.basename(source)}`)
        : copy.destination.endsWith('/') ? `${copy.destination}${path.posix.basename(source)}` : copy.destination;
      const rest = below(target, copiedInto);
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
      const sourceInStage = path.posix.resolve(stage.workdir, rootDir, rest.replace(/\.js$/, '.ts'));
      const source = originOf(stages, stage, sourceInStage);
      if (source?.kind === 'context') return { kind: 'compiled', source: source.path };
    }
  }
  return undefined;
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
