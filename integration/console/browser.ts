/** Chromium for the browser tests, through playwright-core, with flags that keep it off the network. */
import * as fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTopics } from '../../src/streams/kafka';
import type { HostConfig } from '../../src/host/config/host-config';
import type { ConfigValue } from '../../src/streams/runtime/streams-config';
import { TestNode, wordCountDefinition } from '../api/support/node';
import { CHROMIUM, CHROMIUM_ERROR_ENV } from '../support/chromium';
import type { KafkaTestClients } from '../support/kafka';

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

/** A page in a browser context of its own: its viewport, colour scheme (light unless given) and time zone. */
export async function openPage(browser: Browser, options: { width: number; height: number; colorScheme?: 'light' | 'dark'; timezoneId?: string }): Promise<Page> {
  const { width, height, colorScheme = 'light', timezoneId } = options;
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, ...(timezoneId ? { timezoneId } : {}) });
  return context.newPage();
}

/** How far a page reaches past the viewport's right edge: 0 when it scrolls only down. */
export const horizontalOverflow = (page: Page): Promise<number> => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

/**
 * Chromium, and a node running the word count as `id` on new topics `input` and `output` (3 partitions each), with
 * `lines` produced to its input; `options`: the node's server section overrides (users), its streams settings, and
 * more instances of the word count on the same topics (`alsoAs`, their application ids).
 */
export async function startWordCountConsole(
  clients: KafkaTestClients,
  names: { input: string; output: string; id: string },
  lines: readonly string[],
  options: { server?: Partial<HostConfig['server']>; streams?: Record<string, ConfigValue>; alsoAs?: readonly string[]; memory?: HostConfig['memory'] } = {},
): Promise<{ browser: Browser; node: TestNode }> {
  const { input, output, id } = names;
  const [browser] = await Promise.all([
    launchChromium(),
    createTopics(await clients.admin(), [
      { name: input, partitions: 3 },
      { name: output, partitions: 3 },
    ]),
  ]);
  const node = await TestNode.start({
    topologies: [wordCountDefinition(input, output)],
    instances: [id, ...(options.alsoAs ?? [])].map((applicationId) => ({ topology: 'word-count', applicationId })),
    ...(options.server ? { server: options.server } : {}),
    ...(options.streams ? { streams: options.streams } : {}),
    ...(options.memory ? { memory: options.memory } : {}),
  });
  const producer = await clients.producer();
  await producer.send({ topic: input, messages: lines.map((value) => ({ value })) });
  return { browser, node };
}
