import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerSetup } from './protocol';

/** The worker's module, beside this one: compiled JavaScript, or the TypeScript source when Sluice runs from source. */
const ENTRY = path.join(__dirname, `stream-thread-worker${path.extname(__filename)}`);

/**
 * Run from TypeScript sources (tests, ts-node), the worker compiles each `.ts` module as it is required, with
 * TypeScript's transpileModule, as the parent's loader did: a worker does not inherit the parent's require hooks.
 */
const FROM_SOURCE = `
const fs = require('node:fs');
const ts = require('typescript');
const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true, inlineSourceMap: true };
require.extensions['.ts'] = (module, filename) =>
  module._compile(ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename }).outputText, filename);
require(require('node:worker_threads').workerData.entry);
`;

/** Starts the worker of one stream thread. */
export function spawnStreamThreadWorker(setup: Omit<WorkerSetup, 'entry'>): Worker {
  const workerData: WorkerSetup = { ...setup, entry: ENTRY };
  return ENTRY.endsWith('.ts') ? new Worker(FROM_SOURCE, { eval: true, workerData }) : new Worker(ENTRY, { workerData });
}
