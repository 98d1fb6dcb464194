/**
 * Failed logins: logged without the secret and at a bounded rate (a client guessing passwords must not be able to
 * flood the log), and password logins throttled per client address and per user (each check costs a scrypt, some
 * 50-120 ms of CPU: a client guessing 15 a second would keep the node busy, and guess at will). Both count in windows
 * that open at the first event and last a fixed time. Tokens are not throttled: they cannot be guessed, and cost no
 * scrypt.
 */

import type { FastifyBaseLogger } from 'fastify';
import type { PasswordCheckGate } from './authenticator';

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

/** Events counted in a window that opens at the first event after the last window ended, for `windowMs`. */
class Window {
  private start = Number.NEGATIVE_INFINITY;
  count = 0;

  constructor(private readonly windowMs: number) {}

  /** Opens a new window (count 0) when the current one has ended; answers whether it did. */
  roll(now: number): boolean {
    if (now - this.start < this.windowMs) return false;
    this.start = now;
    this.count = 0;
    return true;
  }

  /** Milliseconds until the window ends; 0 once it has. */
  remaining(now: number): number {
    return Math.max(0, this.start + this.windowMs - now);
  }
}

export class FailedLoginLog {
  private readonly window: Window;
  private dropped = 0;

  constructor(
    private readonly logger: FastifyBaseLogger,
    private readonly limit = 20,
    windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.window = new Window(windowMs);
  }

  record(failure: FailedLogin): void {
    if (this.window.roll(this.now())) {
      if (this.dropped > 0) this.logger.warn({ dropped: this.dropped }, `${this.dropped} more failed logins were not logged`);
      this.dropped = 0;
    }
    if (this.window.count >= this.limit) {
      this.dropped += 1;
      return;
    }
    this.window.count += 1;
    this.logger.warn({ failedLogin: failure }, 'Failed login');
  }
}

/** `server.failedLogins`: how many failed password logins a client address, and a user, may have in a window. */
export interface FailedLoginLimits {
  readonly perAddress: number;
  /** Above `perAddress`, so that one address cannot lock a user out. */
  readonly perUser: number;
  readonly windowMs: number;
}

export const DEFAULT_FAILED_LOGIN_LIMITS: FailedLoginLimits = { perAddress: 10, perUser: 20, windowMs: 60_000 };

/** Addresses or users followed at once; past it the longest followed is forgotten, so that memory stays bounded. */
const MAX_KEYS = 10_000;

/** Failed logins per key (an address, a user), each in its own window. */
class Budget {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until the key may fail again; 0 while it has failures left. */
  wait(key: string, now: number): number {
    const window = this.windows.get(key);
    return window === undefined || window.count < this.limit ? 0 : window.remaining(now);
  }

  spend(key: string, now: number): void {
    let window = this.windows.get(key);
    if (window === undefined) {
      if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
      window = new Window(this.windowMs);
    }
    // Keys stay in the order their windows opened: the first is the likeliest to have ended.
    if (window.roll(now)) this.windows.delete(key);
    this.windows.set(key, window);
    window.count += 1;
  }

  refund(key: string): void {
    const window = this.windows.get(key);
    if (window !== undefined && window.count > 0) window.count -= 1;
  }
}

/**
 * Once an address or a user has used its budget of failed password logins, its password logins are refused (429)
 * unchecked until the window ends. A check counts as failed from before it runs (so that many sent at once cannot
 * all be tried) until it passes: a user who logs in is never held back by their own logins.
 */
export class FailedLoginThrottle {
  private readonly addresses: Budget;
  private readonly users: Budget;

  constructor(
    limits: FailedLoginLimits,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.addresses = new Budget(limits.perAddress, limits.windowMs);
    this.users = new Budget(limits.perUser, limits.windowMs);
  }

  /** The gate of the password checks of one client address. */
  gate(address: string): PasswordCheckGate {
    return {
      enter: (user) => {
        const now = this.now();
        const waitMs = Math.max(this.addresses.wait(address, now), user === undefined ? 0 : this.users.wait(user, now));
        if (waitMs > 0) return waitMs;
        this.addresses.spend(address, now);
        if (user !== undefined) this.users.spend(user, now);
        return 0;
      },
      passed: (user) => {
        this.addresses.refund(address);
        this.users.refund(user);
      },
    };
  }
}
