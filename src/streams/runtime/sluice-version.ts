import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Sluice's version, as its package.json gives it: the nearest one above this module named sluice, whether it runs
 * from the sources or compiled (`dist/src/...`), in the repository or installed as a package.
 */
function packageVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === 'sluice' && manifest.version !== undefined) return manifest.version;
  }
  throw new Error(`no package.json of sluice above ${__dirname}`);
}

export const SLUICE_VERSION = packageVersion();
