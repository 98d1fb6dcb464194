// A stream thread's worker when Sluice runs from its TypeScript sources (tests): a worker does not inherit the
// parent's require hooks, so this one compiles each `.ts` module as it is required, then loads the worker's entry.
// Compiled Sluice (the build, the image) starts its workers from the JavaScript entry and never loads this file.
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true, inlineSourceMap: true };
require.extensions['.ts'] = (module, filename) =>
  module._compile(ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename }).outputText, filename);
require(require('node:worker_threads').workerData.entry);
