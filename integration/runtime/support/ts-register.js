'use strict';
/**
 * A require hook for child processes of the integration tests: compiles each `.ts` file as it is required, with
 * TypeScript's transpileModule (no type check: jest's ts-jest and `npm run typecheck` do that), so that a child
 * runs the repository's current sources without a build step. Used as `node -r <this file> <script.ts>`.
 */
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  resolveJsonModule: true,
  inlineSourceMap: true,
  inlineSources: true,
};

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
