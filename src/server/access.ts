/**
 * Who may use the API. With credentials configured (users, API tokens, JWTs), every route but the probes needs them:
 * none or wrong ones answer 401, and a password login past the budget of failed ones 429 (auth/failed-logins.ts). A
 * `viewer` reads and queries; changing an instance (restart, stop, delete, deploy) takes an `operator`, else 403. In
 * headless mode those changes are refused to everyone (403), so that a node can be watched but not steered.
 */

import type { FastifyInstance } from 'fastify';
import { Forbidden, TooManyFailedLogins, Unauthorized } from '../errors';
import { Authenticator, type AuthenticationOptions } from './auth/authenticator';
import { DEFAULT_FAILED_LOGIN_LIMITS, FailedLoginLog, FailedLoginThrottle, type FailedLoginLimits } from './auth/failed-logins';
import { mayCall, type Principal } from './auth/roles';
// Types the routes' `config` (mutates, public).
import './route-config';

export interface AccessOptions extends AuthenticationOptions {
  readonly headless?: boolean;
  readonly failedLogins?: Partial<FailedLoginLimits>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request; null when the API takes no credentials, or the principal has no role. */
    principal: Principal | null;
  }
}

/** What the access control checks, for the routes that tell a client what it may do. */
export interface AccessPolicy {
  /** Whether credentials are required (else anyone may call every route). */
  readonly authenticated: boolean;
  readonly headless: boolean;
}

export function installAccessControl(app: FastifyInstance, options: AccessOptions): AccessPolicy {
  const authenticator = new Authenticator(options);
  // The web console asks who it serves (to show restart and stop to operators only).
  app.decorateRequest('principal', null);
  if (authenticator.plaintextUsers.length > 0) {
    app.log.warn({ users: authenticator.plaintextUsers }, 'Users with plain-text passwords (server.allowPlaintextPasswords): for development only');
  }
  const policy: AccessPolicy = { authenticated: authenticator.enabled, headless: options.headless ?? false };
  if (!authenticator.enabled && !options.headless) return policy;
  const failedLogins = new FailedLoginLog(app.log);
  const throttle = new FailedLoginThrottle({ ...DEFAULT_FAILED_LOGIN_LIMITS, ...options.failedLogins });
  const challenges = authenticator.challenges();
  const challenge = challenges.length === 1 ? challenges[0]! : challenges;
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (authenticator.enabled && !config.public) {
      const outcome = await authenticator.authenticate(request.headers.authorization, throttle.gate(request.ip));
      if (outcome.kind !== 'principal') {
        if (outcome.kind !== 'none') {
          const { scheme, user } = outcome;
          const reason = outcome.kind === 'failed' ? outcome.reason : 'too many failed logins, not checked';
          failedLogins.record({ scheme, reason, user, ip: request.ip, method: request.method, path: request.url.split('?')[0]! });
        }
        if (outcome.kind === 'throttled') {
          const retryAfterS = Math.ceil(outcome.waitMs / 1000);
          reply.header('retry-after', String(retryAfterS));
          throw new TooManyFailedLogins(retryAfterS);
        }
        reply.header('www-authenticate', challenge);
        throw new Unauthorized();
      }
      const { role, name } = outcome.principal;
      if (role === undefined) throw new Forbidden(`'${name}' is authenticated but its token grants no role (viewer or operator)`);
      if (!mayCall(role, config)) throw new Forbidden(`The ${role} role cannot change instances (restart, stop, delete, deploy): that takes the operator role`);
      request.principal = { name, role, via: outcome.principal.via };
    }
    if (options.headless && config.mutates) throw new Forbidden('This node runs headless: instances cannot be changed through the API');
  });
  return policy;
}
