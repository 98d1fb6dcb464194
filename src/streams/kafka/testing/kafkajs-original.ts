import * as fs from 'node:fs';
import { createRequire } from 'node:module';

/** kafkajs' own version of a module Sluice replaced, evaluated from its file (the module registry holds Sluice's). */
export function kafkajsOriginal<T>(module: string): T {
  const file = require.resolve(module);
  const exported = { exports: {} as unknown };
  new Function('module', 'exports', 'require', fs.readFileSync(file, 'utf8'))(exported, exported.exports, createRequire(file));
  return exported.exports as T;
}
