/**
 * The source's imports, checked: no import circle between files but the two ARCHITECTURE.md names (each within one
 * concern), and no layer importing any of the layers above it (ARCHITECTURE.md's order). Type-only imports count: a
 * circle of types still ties its files' concerns together.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = __dirname;

/** The circles kept, as ARCHITECTURE.md explains them ("Import circles kept"). */
const KEPT_CIRCLES = [
  ['host/config/exposure.ts', 'host/config/host-config.ts', 'host/config/peers.ts'],
  [
    'streams/kstream/cogrouped-kstream.ts',
    'streams/kstream/kgrouped-stream.ts',
    'streams/kstream/kgrouped-table.ts',
    'streams/kstream/kstream.ts',
    'streams/kstream/ktable.ts',
    'streams/kstream/session-windowed-kstream.ts',
    'streams/kstream/time-windowed-kstream.ts',
  ],
];

/** The layers, bottom up, as ARCHITECTURE.md lists them: each imports only those before it. */
const LAYERS = ['streams/', 'query/', 'cluster/', 'server/', 'host/'];

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => file.startsWith(layer));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Each file's relative imports (and re-exports), as paths relative to src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const imports = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false).importedFiles.map((i) => i.fileName);
    const targets: string[] = [];
    for (const spec of imports) {
      if (!spec.startsWith('.')) continue;
      const base = path.resolve(path.dirname(file), spec);
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
      if (found) targets.push(path.relative(SRC, found));
    }
    graph.set(path.relative(SRC, file), targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe("the source's imports", () => {
  const graph = importGraph();

  it('form no circle but the ones ARCHITECTURE.md names', () => {
    expect(circles(graph)).toEqual(KEPT_CIRCLES);
  });

  it('never go up a layer: runtime, query, cluster, server, host', () => {
    // Files outside the layers (the entry points, the client, the error catalogue) may import any of them.
    const inLayers = [...graph].filter(([file]) => layerOf(file) >= 0);
    const upward = inLayers.flatMap(([file, targets]) => targets.filter((t) => layerOf(t) > layerOf(file)).map((t) => `${file} -> ${t}`));
    expect(upward).toEqual([]);
  });
});
