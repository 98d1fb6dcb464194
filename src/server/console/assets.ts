/**
 * The web console's built files (`npm run build` writes them to dist/console), read once into memory with their
 * gzip form and an ETag: they are small and never change while the process runs.
 */

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface ConsoleFile {
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly etag: string;
  readonly contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Where the build puts the console: beside the compiled server in dist/, or under dist/ of the repository when the
 * server runs from its TypeScript sources (tests).
 */
export const CONSOLE_DIRS = [path.resolve(__dirname, '../../../console'), path.resolve(__dirname, '../../../dist/console')];

function readFile(file: string): ConsoleFile {
  const body = fs.readFileSync(file);
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    contentType: CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
  };
}

/** The files by their path under the console's folder (`index.html`, `assets/console-<hash>.js`, ...). */
export function readConsole(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else if (!name.endsWith('.map')) files.set(name, readFile(path.join(dir, name)));
    }
  };
  walk('');
  return files;
}

/** The first of the folders that holds a built console. */
export function findConsole(dirs: readonly string[]): string | undefined {
  return dirs.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
}
