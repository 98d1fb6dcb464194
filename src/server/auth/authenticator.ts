/**
 * Who sent a request, from its Authorization header: HTTP Basic against the users, `Bearer sluice_...` against the
 * static API tokens, any other bearer credential as a JWT. Answers a principal, a failure (with a reason safe to
 * log), a password login refused unchecked (its gate said to wait), or that no credentials came.
 */

import { ApiTokens, isApiToken, type ApiTokenSpec } from './api-tokens';
import { JwtVerifier, type JwtOptions } from './jwt';
import type { Principal, Role } from './roles';
import { Users, type UserSpec } from './users';

export interface AuthenticationOptions {
  /** User name to password hash and role. */
  readonly users?: Readonly<Record<string, UserSpec>>;
  /** Development only: passwords that are not hashes are compared as they are. */
  readonly allowPlaintextPasswords?: boolean;
  readonly tokens?: readonly ApiTokenSpec[];
  readonly jwt?: JwtOptions;
}

export type Authentication =
  | { kind: 'none' }
  /** A principal with no role: a JWT that grants neither viewer nor operator (authenticated, so 403). */
  | { kind: 'principal'; principal: Omit<Principal, 'role'> & { role: Role | undefined } }
  | { kind: 'failed'; scheme: string; reason: string; user?: string }
  /** A password login refused unchecked, for `waitMs` more (too many failed logins). */
  | { kind: 'throttled'; scheme: 'basic'; waitMs: number; user?: string };

/** What a password check asks first, and tells after: failed-logins.ts's throttle, for one client address. */
export interface PasswordCheckGate {
  /** How long a login as the user (a configured one, else undefined) must wait unchecked; 0: it is checked now. */
  enter(user: string | undefined): number;
  /** The password checked was right. */
  passed(user: string): void;
}

export class Authenticator {
  private readonly users: Users | undefined;
  private readonly tokens: ApiTokens | undefined;
  private readonly jwt: JwtVerifier | undefined;

  constructor(options: AuthenticationOptions) {
    const users = new Users(options.users ?? {}, { allowPlaintextPasswords: options.allowPlaintextPasswords });
    const tokens = new ApiTokens(options.tokens ?? []);
    this.users = users.size > 0 ? users : undefined;
    this.tokens = tokens.size > 0 ? tokens : undefined;
    this.jwt = options.jwt === undefined ? undefined : new JwtVerifier(options.jwt);
  }

  /** Whether any credentials are configured: without, the API is open. */
  get enabled(): boolean {
    return this.users !== undefined || this.tokens !== undefined || this.jwt !== undefined;
  }

  /** Users whose passwords are plain text (allowed for development), for a warning at start. */
  get plaintextUsers(): readonly string[] {
    return this.users?.plaintext ?? [];
  }

  /** The WWW-Authenticate challenges of a 401: one per scheme configured. */
  challenges(): string[] {
    const challenges: string[] = [];
    if (this.users) challenges.push('Basic realm="sluice", charset="UTF-8"');
    if (this.tokens || this.jwt) challenges.push('Bearer realm="sluice"');
    return challenges;
  }

  async authenticate(header: string | undefined, gate: PasswordCheckGate): Promise<Authentication> {
    if (header === undefined || header.trim() === '') return { kind: 'none' };
    const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
    const scheme = match?.[1]!.toLowerCase() ?? 'malformed';
    if (match && scheme === 'basic') return this.basic(match[2]!, gate);
    if (match && scheme === 'bearer') return this.bearer(match[2]!);
    return { kind: 'failed', scheme, reason: 'unsupported authorization scheme' };
  }

  private async basic(encoded: string, gate: PasswordCheckGate): Promise<Authentication> {
    if (!this.users) return { kind: 'failed', scheme: 'basic', reason: 'no users are configured' };
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { kind: 'failed', scheme: 'basic', reason: 'malformed credentials' };
    const name = decoded.slice(0, colon);
    const user = this.users.has(name) ? name : undefined;
    // Asked even when the password was verified before (no scrypt then): past the budget, no guess is tried at all.
    const waitMs = gate.enter(user);
    if (waitMs > 0) return { kind: 'throttled', scheme: 'basic', waitMs, user };
    const principal = await this.users.authenticate(name, decoded.slice(colon + 1));
    if (principal) {
      gate.passed(name);
      return { kind: 'principal', principal };
    }
    return user === undefined
      ? { kind: 'failed', scheme: 'basic', reason: 'unknown user' }
      : { kind: 'failed', scheme: 'basic', reason: 'wrong password', user };
  }

  private async bearer(token: string): Promise<Authentication> {
    if (isApiToken(token)) {
      const principal = this.tokens?.find(token);
      return principal ? { kind: 'principal', principal } : { kind: 'failed', scheme: 'bearer', reason: 'unknown API token' };
    }
    if (!this.jwt) return { kind: 'failed', scheme: 'bearer', reason: 'not an API token, and JWTs are not configured' };
    const outcome = await this.jwt.verify(token);
    return outcome.ok ? { kind: 'principal', principal: outcome.principal } : { kind: 'failed', scheme: 'bearer', reason: `invalid JWT (${outcome.reason})` };
  }
}
