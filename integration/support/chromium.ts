/**
 * Debian's Chromium for the browser tests: the global setup installs it with apt-get when it is missing (CI runs as
 * root on a fresh machine; Playwright's own browser download cannot be used there).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { promisify } from 'node:util';

export const CHROMIUM = '/usr/bin/chromium';

/** Set by the global setup when Chromium could not be installed: the browser tests fail with this reason. */
export const CHROMIUM_ERROR_ENV = 'SLUICE_TEST_CHROMIUM_ERROR';

const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Installs Chromium when it is missing; answers why it could not, or undefined once it is there. */
export async function ensureChromium(log: (line: string) => void): Promise<string | undefined> {
  if (fs.existsSync(CHROMIUM)) return undefined;
  if (process.getuid?.() !== 0) return `${CHROMIUM} is missing and the tests do not run as root: install Debian's chromium package`;
  log('Installing Debian chromium for the browser tests (apt-get)...');
  const run = promisify(execFile);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env, timeout: INSTALL_TIMEOUT_MS });
    await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env, timeout: INSTALL_TIMEOUT_MS });
  } catch (error) {
    return `apt-get could not install chromium: ${(error as Error).message}`;
  }
  return fs.existsSync(CHROMIUM) ? undefined : `apt-get ran but ${CHROMIUM} is still missing`;
}
