/**
 * Runs the page-view topology in a process of its own, so that a test can SIGKILL it. The spec comes in
 * SLUICE_IT_PAGE_VIEWS (JSON); the child reports its state changes over IPC and answers `answers` requests with what
 * its stores answer (see storeAnswers). Started with integration/runtime/support/ts-register.js, which compiles the
 * sources on the fly.
 */
import pino from 'pino';
import { StreamsInstance } from '../../../src';
import { type PageViewTopics, pageViewsTopology } from '../../../examples/page-views';
import { storeAnswers } from './page-view-script';

export interface PageViewsChildSpec {
  topics: PageViewTopics;
  config: Record<string, string | number>;
  base: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env.SLUICE_IT_PAGE_VIEWS ?? 'null') as PageViewsChildSpec | null;
  if (!spec) throw new Error('SLUICE_IT_PAGE_VIEWS is not set');
  const instance = new StreamsInstance(pageViewsTopology(spec.topics), spec.config, { logger: pino({ level: 'warn' }, pino.destination(2)) });
  instance.on('state', (change) => process.send?.({ state: change.state }));
  process.on('message', (message: string) => {
    if (message === 'answers') process.send?.({ answers: storeAnswers(instance, spec.base) });
  });
  // The test going away must not leave this process behind.
  process.on('disconnect', () => process.exit(3));
  await instance.start();
}

main().catch((error: unknown) => {
  process.stderr.write(`page-views child failed: ${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
