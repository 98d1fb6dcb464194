import type { Logger } from 'pino';
import { SerdeNotReady } from '../../errors';
import type { StreamTask } from './task';

/**
 * A thread's account of the look-ups its serdes wait on (a Schema Registry's schemas) while the service they ask
 * fails: one warning when the first wait of an outage is told (where, what, the cause's message, no stack), and one
 * info line when a look-up that waited through it is answered, with how long it waited. The thread's executor and
 * task manager share one, so that an outage several tasks meet is told once.
 */
export class LookupOutages {
  private since: number | undefined;

  constructor(private readonly logger: Logger) {}

  /** A wait on `error`, begun at `waitingSince`, where `where` says: told when it is an outage's first. */
  waiting(error: SerdeNotReady, waitingSince: number, where: Readonly<Record<string, unknown>> = {}): void {
    if (error.cause === undefined || this.since !== undefined) return;
    this.since = waitingSince;
    this.logger.warn({ ...where, ...error.record, ...error.lookingUp, reason: (error.cause as Error).message }, error.message);
  }

  /** A look-up that waited through an outage was answered: the outage is over. */
  answered(): void {
    if (this.since === undefined) return;
    const waitedMs = Date.now() - this.since;
    this.since = undefined;
    this.logger.info({ waitedMs }, `look-ups answer again: processing resumed after waiting ${(waitedMs / 1000).toFixed(1)} s`);
  }
}

/**
 * Has the task's serdes prepare (`StreamTask.prepareSerdes`), waiting out what they are not ready for yet (an
 * unreachable registry: SerdeNotReady, `notReady` when a first try met it already) and trying again, as a record's
 * look-up is. Answers false when `wanted` no longer holds (the task was closed meanwhile).
 */
export async function prepareSerdes(
  task: StreamTask,
  outages: LookupOutages | undefined,
  wanted: () => boolean = () => true,
  notReady?: SerdeNotReady,
): Promise<boolean> {
  const waitingSince = Date.now();
  let outage = false;
  for (let wait = notReady; ; ) {
    if (wait !== undefined) {
      if (wait.cause !== undefined) outage = true;
      outages?.waiting(wait, waitingSince, { task: task.name });
      await wait.ready;
      if (!wanted()) return false;
    }
    try {
      await task.prepareSerdes();
      break;
    } catch (error) {
      if (!(error instanceof SerdeNotReady)) throw error;
      wait = error;
    }
  }
  if (outage) outages?.answered();
  return true;
}
