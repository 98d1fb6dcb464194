/**
 * The users of HTTP Basic authentication, each with a scrypt password hash and a role. Plain-text passwords are
 * refused unless allowed explicitly (development only). Users are kept in a Map: `__proto__`, `constructor` and the
 * like are just names that are not there.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigException } from '../../errors';
import { DEFAULT_SCRYPT_PARAMS, looksLikePasswordHash, parsePasswordHash, verifyPassword, type PasswordHash } from './password-hash';
import type { Principal, Role } from './roles';

export interface UserSpec {
  /** A hash from `sluice hash-password`; plain text only with `allowPlaintextPasswords`. */
  readonly password: string;
  readonly role: Role;
}

type Secret = { kind: 'hash'; hash: PasswordHash } | { kind: 'plain'; digest: Buffer };

/** Checked against when the user is unknown, so that an unknown user takes as long as a wrong password. */
const UNKNOWN_USER: Secret = {
  kind: 'hash',
  hash: { params: DEFAULT_SCRYPT_PARAMS, salt: Buffer.alloc(16), hash: Buffer.alloc(32) },
};

/** Verified credentials are remembered (by digest) so that a client's every request does not cost a scrypt. */
const VERIFIED_CACHE_SIZE = 1024;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class Users {
  private readonly users = new Map<string, { secret: Secret; role: Role }>();
  private readonly verified = new Map<string, Principal>();
  /** Users whose password is in plain text, for the warning at start. */
  readonly plaintext: readonly string[];

  constructor(specs: Readonly<Record<string, UserSpec>>, options: { allowPlaintextPasswords?: boolean } = {}) {
    const plaintext: string[] = [];
    for (const [name, { password, role }] of Object.entries(specs)) {
      const where = `server.users.${name}.password`;
      if (looksLikePasswordHash(password)) {
        this.users.set(name, { secret: { kind: 'hash', hash: parsePasswordHash(password, where) }, role });
      } else if (options.allowPlaintextPasswords === true) {
        plaintext.push(name);
        this.users.set(name, { secret: { kind: 'plain', digest: sha256(password) }, role });
      } else {
        throw new ConfigException(
          `${where} is not a password hash: store the output of \`sluice hash-password\`; ` +
            'plain-text passwords need server.allowPlaintextPasswords: true, for development only',
        );
      }
    }
    this.plaintext = plaintext;
  }

  get size(): number {
    return this.users.size;
  }

  has(name: string): boolean {
    return this.users.has(name);
  }

  /** The user's principal when the password is theirs, else undefined. */
  async authenticate(name: string, password: string): Promise<Principal | undefined> {
    const key = sha256(`${name}\u0000${password}`).toString('base64');
    const cached = this.verified.get(key);
    if (cached !== undefined) return cached;
    const user = this.users.get(name);
    const matches = await check(user?.secret ?? UNKNOWN_USER, password);
    if (user === undefined || !matches) return undefined;
    const principal: Principal = { name, role: user.role, via: 'password' };
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(key, principal);
    return principal;
  }
}

async function check(secret: Secret, password: string): Promise<boolean> {
  if (secret.kind === 'plain') return timingSafeEqual(secret.digest, sha256(password));
  return verifyPassword(password, secret.hash);
}
