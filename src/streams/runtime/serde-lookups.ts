import type { Logger } from 'pino';
import type { SerdeNotReady } from '../../errors';

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
