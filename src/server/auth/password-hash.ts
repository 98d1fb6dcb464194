/**
 * Password hashes in one self-describing text: `scrypt$N$r$p$salt$hash` (salt and hash in base64url), made by
 * `sluice hash-password` with Node's scrypt. The parameters travel with the hash, so that stronger ones can be chosen
 * later without invalidating what is stored.
 */

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ConfigException } from '../../errors';

export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** 2^15 × 8: about 32 MiB and some 50 ms a hash on a server core (OWASP's minimum is 2^17 × 8 for logins without a cache). */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };

/** Bounds on what a stored hash may ask for: a configuration cannot make each login take gigabytes or minutes. */
const MAX_N = 2 ** 20;
const MAX_P = 16;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

export interface PasswordHash {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** Whether the text claims to be a hash of this format (it may still be malformed: `parsePasswordHash` tells). */
export function looksLikePasswordHash(text: string): boolean {
  return text.startsWith('scrypt$');
}

/** The parts of a stored hash; a ConfigException (never showing the text) when it is malformed or out of bounds. */
export function parsePasswordHash(text: string, where: string): PasswordHash {
  const match = FORMAT.exec(text);
  if (!match) throw new ConfigException(`${where} is not of the form scrypt$N$r$p$salt$hash (sluice hash-password makes one)`);
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0) throw new ConfigException(`${where}: scrypt N must be a power of two up to ${MAX_N}`);
  if (r < 1 || r > 32 || p < 1 || p > MAX_P) throw new ConfigException(`${where}: scrypt r must be 1-32 and p 1-${MAX_P}`);
  const salt = Buffer.from(match[4]!, 'base64url');
  const hash = Buffer.from(match[5]!, 'base64url');
  if (salt.length < 8 || hash.length < 16) throw new ConfigException(`${where}: the salt or the hash is too short`);
  return { params: { N, r, p }, salt, hash };
}

function derive(password: string, salt: Buffer, length: number, { N, r, p }: ScryptParams): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default limit (32 MiB) is just short of N = 2^15, r = 8.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, KEY_BYTES, params);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const candidate = await derive(password, stored.salt, stored.hash.length, stored.params);
  return timingSafeEqual(candidate, stored.hash);
}
