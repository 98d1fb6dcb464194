/**
 * Bearer JWTs verified with `jose` against a JSON Web Key Set, from a file (read at start) or an HTTPS URL (fetched
 * and cached by jose, re-fetched when a token names a key it has not seen). A token must carry `exp` (else it would
 * never expire) unless allowed otherwise; the issuer and audience are checked when configured; the role is read from a claim (a dotted path such as `realm_access.roles` reaches into objects), whose
 * value is `viewer` or `operator`, or an array holding them (the stronger wins).
 */

import * as fs from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ConfigException } from '../../errors';
import { isLoopback } from '../loopback';
import { isRole, type Principal, type Role } from './roles';

export interface JwtOptions {
  /** A JWKS file (absolute path), or an `https://` URL (`http://` on loopback only). */
  readonly jwks: string;
  readonly issuer?: string | readonly string[];
  readonly audience?: string | readonly string[];
  /** The claim holding the role; default `role`. */
  readonly roleClaim?: string;
  /** Accepted signature algorithms; default: those of the keys. */
  readonly algorithms?: readonly string[];
  /** Accept tokens without `exp`, which would otherwise be good for ever; default false. */
  readonly allowTokensWithoutExpiry?: boolean;
}

export const DEFAULT_ROLE_CLAIM = 'role';

/** Either the token's principal (role undefined when the claim grants none), or why it was refused. */
export type JwtOutcome = { ok: true; principal: Omit<Principal, 'role'> & { role: Role | undefined } } | { ok: false; reason: string };

function keySet(jwks: string): JWTVerifyGetKey {
  if (/^https?:\/\//i.test(jwks)) {
    const url = new URL(jwks);
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
      throw new ConfigException(`server.jwt.jwks must be an https URL (http only on loopback): keys fetched in clear can be swapped`);
    }
    return createRemoteJWKSet(url);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(jwks, 'utf8'));
  } catch (error) {
    throw new ConfigException(`server.jwt.jwks: cannot read a JSON Web Key Set from ${jwks} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new ConfigException(`server.jwt.jwks: ${jwks} holds no "keys" array`);
  }
  return createLocalJWKSet(parsed as JSONWebKeySet);
}

/** The value at a dotted path of own properties (a claim named `__proto__` reaches nothing). */
function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function roleOf(claim: unknown): Role | undefined {
  const values = Array.isArray(claim) ? claim : [claim];
  if (values.includes('operator')) return 'operator';
  return values.find(isRole);
}

export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly roleClaim: string;

  constructor(private readonly options: JwtOptions) {
    this.keys = keySet(options.jwks);
    this.roleClaim = options.roleClaim ?? DEFAULT_ROLE_CLAIM;
  }

  async verify(token: string): Promise<JwtOutcome> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.options.issuer === undefined ? undefined : [this.options.issuer].flat(),
        audience: this.options.audience === undefined ? undefined : [this.options.audience].flat(),
        algorithms: this.options.algorithms === undefined ? undefined : [...this.options.algorithms],
        requiredClaims: this.options.allowTokensWithoutExpiry === true ? [] : ['exp'],
      });
      return { ok: true, principal: { name: payload.sub ?? '(no subject)', role: roleOf(claimAt(payload, this.roleClaim)), via: 'jwt' } };
    } catch (error) {
      // jose's codes (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ...) say why without the token; a claim's
      // failure names the claim and the kind (missing, check_failed, invalid), never its value.
      const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
      if (code === undefined) return { ok: false, reason: (error as Error).name };
      return { ok: false, reason: claim === undefined ? code : `${code}: ${claim} ${reason}` };
    }
  }
}
