/**
 * The documentation's code and links, checked (README.md and docs/*.md):
 *
 * - every ```ts block type-checks on its own, as a module of an application that depends on Sluice (`sluice` and
 *   `sluice/client` map to this repository's src), strict; a block whose info string says `fragment` (```ts fragment)
 *   is a deliberate excerpt and is skipped;
 * - a block whose info string says `prints` (```ts prints) also runs, and what it logs must be the block that
 *   follows it (```text), line for line;
 * - every relative link (a page, a file of the repository, an image, a `#heading` of a page) resolves, and every
 *   page under docs/ is listed in the index, docs/README.md;
 * - README.md stays a front door: at most 350 lines (the details belong in docs/).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
const README_MAX_LINES = 350;

interface Page {
  /** Relative to the repository root, with forward slashes: `README.md`, `docs/queries.md`. */
  readonly name: string;
  readonly text: string;
}

interface CodeBlock {
  readonly page: string;
  /** The block's number on its page, from 1, counting every fenced block. */
  readonly index: number;
  /** The line of its opening fence, from 1. */
  readonly line: number;
  readonly language: string;
  readonly flags: readonly string[];
  readonly code: string;
}

function pages(): Page[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`);
  return ['README.md', ...docs].map((name) => ({ name, text: fs.readFileSync(path.join(ROOT, name), 'utf8') }));
}

/** A fence: ``` at the start of a line, or indented (a block inside a list item). */
const FENCE = /^(\s*)```(.*)$/;

/** The fenced blocks of a page, with their info strings; an indented block loses its indentation. */
function codeBlocks(page: Page): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = page.text.split('\n');
  let open: { line: number; indent: number; info: string; body: string[] } | undefined;
  lines.forEach((line, i) => {
    const fence = FENCE.exec(line);
    if (open === undefined) {
      if (fence) open = { line: i + 1, indent: fence[1]!.length, info: fence[2]!.trim(), body: [] };
      return;
    }
    if (fence && fence[2]!.trim() === '') {
      const [language = '', ...flags] = open.info.split(/\s+/).filter((word) => word !== '');
      blocks.push({ page: page.name, index: blocks.length + 1, line: open.line, language, flags, code: open.body.join('\n') });
      open = undefined;
      return;
    }
    const indent = open.indent;
    open.body.push(line.slice(0, indent).trim() === '' ? line.slice(indent) : line);
  });
  if (open !== undefined) throw new Error(`${page.name}: the block opened at line ${open.line} is never closed`);
  return blocks;
}

const isTypeScript = (block: CodeBlock) => block.language === 'ts' || block.language === 'typescript';

function describeBlock(block: CodeBlock): string {
  return `${block.page}, block ${block.index} (\`\`\`${[block.language, ...block.flags].join(' ')} at line ${block.line})`;
}

/** A block as a file of its own: a module (so that top-level await works and blocks do not share names). */
function moduleSource(block: CodeBlock): string {
  return /^\s*(import|export)\s/m.test(block.code) ? block.code : `${block.code}\nexport {};\n`;
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  strict: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
  typeRoots: [path.join(ROOT, 'node_modules/@types')],
  baseUrl: ROOT,
  paths: {
    sluice: [path.join(ROOT, 'src/index.ts')],
    'sluice/client': [path.join(ROOT, 'src/client/index.ts')],
  },
};

/** Type-checks the blocks in one program (Sluice's sources are read once): each block's errors, by block. */
function typeCheck(blocks: readonly CodeBlock[]): Map<CodeBlock, string[]> {
  // The blocks are files of a directory inside the repository that exists only in memory, so that packages
  // (kafkajs, undici, ...) resolve from the repository's node_modules as an application's would.
  const dir = path.join(ROOT, '.docs-code-blocks');
  const files = new Map<string, CodeBlock>();
  blocks.forEach((block) => files.set(path.join(dir, `${block.page.replace(/[/.]/g, '_')}_block${block.index}.ts`), block));
  const host = ts.createCompilerHost(COMPILER_OPTIONS, true);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (file) => files.has(file) || fileExists(file);
  host.readFile = (file) => (files.has(file) ? moduleSource(files.get(file)!) : readFile(file));
  host.getSourceFile = (file, language, onError, create) => {
    const block = files.get(file);
    return block ? ts.createSourceFile(file, moduleSource(block), language, true, ts.ScriptKind.TS) : getSourceFile(file, language, onError, create);
  };
  const program = ts.createProgram([...files.keys()], COMPILER_OPTIONS, host);
  const errors = new Map<CodeBlock, string[]>();
  for (const [file, block] of files) {
    const source = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    errors.set(
      block,
      diagnostics.map((d) => {
        const at = d.start === undefined ? '' : `line ${source.getLineAndCharacterOfPosition(d.start).line + 1} of the block: `;
        return `${at}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
  return errors;
}

/** Runs a block (its imports of `sluice` and `sluice/client` get this repository's src), and answers what it logged. */
async function run(block: CodeBlock): Promise<string[]> {
  const { outputText } = ts.transpileModule(block.code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  const logged: string[] = [];
  const log = (...args: unknown[]) => logged.push(...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ').split('\n'));
  const capture = { ...console, log, info: log };
  const load = (id: string): unknown => {
    if (id === 'sluice') return require('./index');
    if (id === 'sluice/client') return require('./client');
    return require(id);
  };
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  const exports = {};
  await new AsyncFunction('require', 'module', 'exports', 'console', outputText)(load, { exports }, exports, capture);
  return logged;
}

/** GitHub's anchors of a page's headings (`## Paging` is `#paging`; a repeated heading gets `-1`, `-2`, ...). */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** The relative link targets of a page, outside code: `[text](target)` and `![alt](target)`. */
function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let inFence = false;
  text.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) found.push({ target, line: i + 1 });
    }
  });
  return found;
}

describe('the documentation (README.md, docs/)', () => {
  const all = pages();
  const blocks = all.flatMap(codeBlocks);
  const typescript = blocks.filter((block) => isTypeScript(block) && !block.flags.includes('fragment'));

  it('has TypeScript blocks that type-check', () => {
    expect(typescript.length).toBeGreaterThan(0);
    const failures = [...typeCheck(typescript)]
      .filter(([, errors]) => errors.length > 0)
      .map(([block, errors]) => `${describeBlock(block)}:\n${errors.map((e) => `  ${e}`).join('\n')}`);
    expect(failures).toEqual([]);
  });

  it('prints what it says its examples print', async () => {
    const runnable = blocks.filter((block) => isTypeScript(block) && block.flags.includes('prints'));
    expect(runnable.length).toBeGreaterThan(0);
    for (const block of runnable) {
      const next = blocks.find((b) => b.page === block.page && b.index === block.index + 1);
      if (next === undefined || next.language !== 'text') {
        throw new Error(`${describeBlock(block)} says it prints, but no \`\`\`text block of its output follows it`);
      }
      const printed = await run(block).catch((error: unknown) => {
        throw new Error(`${describeBlock(block)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      });
      expect({ block: describeBlock(block), printed }).toEqual({ block: describeBlock(block), printed: next.code.split('\n') });
    }
  });

  it('links to pages, files and headings that exist', () => {
    const byName = new Map(all.map((page) => [page.name, page]));
    const broken: string[] = [];
    for (const page of all) {
      for (const { target, line } of links(page.text)) {
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? page.name : path.posix.normalize(path.posix.join(path.posix.dirname(page.name), decodeURI(file)));
        if (resolved.startsWith('..') || !fs.existsSync(path.join(ROOT, resolved))) {
          broken.push(`${page.name}:${line}: ${target} (no file ${resolved} in the repository)`);
          continue;
        }
        if (anchor === undefined) continue;
        const linked = byName.get(resolved)?.text ?? (resolved.endsWith('.md') ? fs.readFileSync(path.join(ROOT, resolved), 'utf8') : undefined);
        if (linked === undefined || !anchors(linked).has(anchor)) broken.push(`${page.name}:${line}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists every page of docs/ in its index', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const listed = new Set(links(index).map(({ target }) => target.split('#')[0]));
    const missing = all.map((page) => page.name).filter((name) => name.startsWith('docs/') && name !== 'docs/README.md' && !listed.has(name.slice('docs/'.length)));
    expect(missing).toEqual([]);
  });

  it('keeps README.md a front door', () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    if (lines > README_MAX_LINES) {
      throw new Error(`README.md has ${lines} lines, more than ${README_MAX_LINES}: move the details to the page of docs/ on their topic`);
    }
  });
});
