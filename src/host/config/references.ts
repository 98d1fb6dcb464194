/**
 * Values the configuration file takes from elsewhere, so that secrets stay out of it (and out of ConfigMaps):
 * `${env:NAME}` is the environment variable NAME, `${file:/path}` the content of a file (a mounted Secret), its
 * trailing line breaks removed; a relative path is relative to the configuration file. A reference may be the whole
 * value or part of it (`password="${env:KAFKA_PASSWORD}"` inside a JAAS line); `$${` stands for a literal `${`.
 * Errors name the key and the variable or file, never the value.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigException } from '../../errors';

const REFERENCE = /\$\$\{|\$\{(env|file):([^}]*)\}/g;

/** Where references are looked up: the environment, and the directory relative file paths start from. */
export interface ReferenceContext {
  readonly env: NodeJS.ProcessEnv;
  readonly baseDir: string;
}

/** A copy of the parsed file with every reference in its strings replaced. */
export function resolveReferences(value: unknown, context: ReferenceContext, where = ''): unknown {
  if (typeof value === 'string') return resolveString(value, context, where);
  if (Array.isArray(value)) return value.map((item, i) => resolveReferences(item, context, `${where}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    const resolved: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) resolved[key] = resolveReferences(item, context, where === '' ? key : `${where}.${key}`);
    return resolved;
  }
  return value;
}

function resolveString(text: string, { env, baseDir }: ReferenceContext, where: string): string {
  return text.replace(REFERENCE, (match, kind: string | undefined, name: string | undefined) => {
    if (match === '$${') return '${';
    if (name === undefined || name.trim() === '') throw new ConfigException(`'${where}' has an empty \${${kind}:} reference`);
    if (kind === 'env') {
      const variable = env[name];
      if (variable === undefined) throw new ConfigException(`'${where}' refers to the environment variable ${name}, which is not set`);
      return variable;
    }
    const file = path.resolve(baseDir, name);
    try {
      return fs.readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
    } catch (error) {
      throw new ConfigException(`'${where}' refers to the file ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  });
}
