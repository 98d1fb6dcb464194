/**
 * Static API tokens (`Authorization: Bearer sluice_...`): made by `sluice new-token`, 32 random bytes, stored only as
 * `sha256$<base64url>`. A token carries its full entropy, so a fast hash keeps it as safe as scrypt keeps a password,
 * and lets a presented token be looked up by its digest in constant time.
 */

import { createHash, randomBytes } from 'node:crypto';
import { ConfigException } from '../../errors';
import type { Principal, Role } from './roles';

export interface ApiTokenSpec {
  /** Who the token is for, as logs name it. */
  readonly name: string;
  /** `sha256$<base64url of the token's SHA-256>`. */
  readonly hash: string;
  readonly role: Role;
}

const TOKEN_PREFIX = 'sluice_';
const FORMAT = /^sha256\$([A-Za-z0-9_-]{43})$/;

export function newApiToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

export function hashApiToken(token: string): string {
  return `sha256$${digest(token)}`;
}

/** Whether a bearer credential is of the static tokens' form (else it may be a JWT). */
export function isApiToken(credential: string): boolean {
  return credential.startsWith(TOKEN_PREFIX);
}

export class ApiTokens {
  /** Digest to principal, in a Map: no token can name a prototype property. */
  private readonly byDigest = new Map<string, Principal>();

  constructor(specs: readonly ApiTokenSpec[]) {
    specs.forEach((spec, i) => {
      const match = FORMAT.exec(spec.hash);
      if (!match) throw new ConfigException(`server.tokens[${i}].hash is not of the form sha256$<base64url> (sluice new-token makes one)`);
      this.byDigest.set(match[1]!, { name: spec.name, role: spec.role, via: 'token' });
    });
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** The token's principal, or undefined. The lookup key is a digest, so its timing tells nothing of valid tokens. */
  find(token: string): Principal | undefined {
    return this.byDigest.get(digest(token));
  }
}
