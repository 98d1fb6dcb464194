/** Chromium for the browser tests, through playwright-core, with flags that keep it off the network. */
import * as fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ERROR_ENV } from '../support/chromium';

export async function launchChromium(): Promise<Browser> {
  const failure = process.env[CHROMIUM_ERROR_ENV];
  if (failure) throw new Error(`The browser tests need Chromium: ${failure}`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`The browser tests need Chromium at ${CHROMIUM} (the integration global setup installs it)`);
  // playwright-core gives every launch a fresh profile directory of its own.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
