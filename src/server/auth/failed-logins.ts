/**
 * Failed logins, logged without the secret and at a bounded rate: a client guessing passwords must not be able to
 * flood the log. Within a window at most `limit` lines are written; the next line after the window says how many
 * were left out.
 */

import type { FastifyBaseLogger } from 'fastify';

export interface FailedLogin {
  /** `basic` or `bearer`, or `none` when no credentials came. */
  readonly scheme: string;
  /** Why, never the credential: unknown user, wrong password, unknown token, a JWT error code. */
  readonly reason: string;
  /** The user's name, only when it is a configured user (an unknown "name" may be a password typed in the wrong field). */
  readonly user?: string;
  readonly ip: string;
  readonly method: string;
  readonly path: string;
}

export class FailedLoginLog {
  private windowStart = 0;
  private written = 0;
  private dropped = 0;

  constructor(
    private readonly logger: FastifyBaseLogger,
    private readonly limit = 20,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  record(failure: FailedLogin): void {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.dropped > 0) this.logger.warn({ dropped: this.dropped }, `${this.dropped} more failed logins were not logged`);
      this.windowStart = now;
      this.written = 0;
      this.dropped = 0;
    }
    if (this.written >= this.limit) {
      this.dropped += 1;
      return;
    }
    this.written += 1;
    this.logger.warn({ failedLogin: failure }, 'Failed login');
  }
}
