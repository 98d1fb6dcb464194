/**
 * Builds the web console into dist/console: esbuild bundles ui/src (Preact, dagre) into one script and one
 * stylesheet whose names carry their content's hash, and writes index.html pointing at them. `npm run build` runs it
 * (so `npm run demo` and the image get the console); the browser tests run it before they start a node.
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';

export interface ConsoleBuild {
  /** Output path (relative to dist/console) to size in bytes. */
  files: Record<string, number>;
}

/** `out` (dist/console unless given) lets a test build a console of its own while nodes serve the shared one. */
export async function buildConsole(root: string, options: { typecheck?: boolean; out?: string } = {}): Promise<ConsoleBuild> {
  const ui = path.join(root, 'ui');
  const out = options.out ?? path.join(root, 'dist', 'console');
  if (options.typecheck) {
    // esbuild strips types without checking them.
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ui, 'tsconfig.json')], { stdio: 'inherit' });
  }
  fs.rmSync(out, { recursive: true, force: true });
  const result = await build({
    entryPoints: { console: path.join(ui, 'src', 'main.tsx') },
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: path.join(out, 'assets'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const js = outputs.find((file) => file.endsWith('.js'));
  const css = outputs.find((file) => file.endsWith('.css'));
  if (js === undefined || css === undefined) throw new Error(`the console build wrote ${outputs.join(', ')}: a script and a stylesheet were expected`);
  const html = fs.readFileSync(path.join(ui, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
  fs.writeFileSync(path.join(out, 'index.html'), html);
  const files: Record<string, number> = { 'index.html': Buffer.byteLength(html) };
  for (const file of [js, css]) files[`assets/${file}`] = fs.statSync(path.join(out, 'assets', file)).size;
  return { files };
}

if (require.main === module) {
  // Compiled to dist/ui/build.js: the repository is two folders up.
  buildConsole(path.resolve(__dirname, '..', '..'), { typecheck: true }).then(
    ({ files }) => {
      const total = Object.values(files).reduce((sum, size) => sum + size, 0);
      process.stdout.write(`Web console built into dist/console (${(total / 1024).toFixed(0)} KB before gzip)\n`);
    },
    (error: Error) => {
      process.stderr.write(`Web console build failed: ${error.message}\n`);
      process.exit(1);
    },
  );
}
