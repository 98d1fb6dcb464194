/**
 * Who may use the API: with users configured, every route but the probes needs HTTP Basic credentials (401
 * otherwise); in headless mode the routes that change instances are refused (403), so that a node can be watched
 * but not steered.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Forbidden, Unauthorized } from '../errors';
// Types the routes' `config` (mutates, public).
import './route-config';

export interface AccessOptions {
  /** Username to password; none: no authentication. */
  readonly users?: Readonly<Record<string, string>>;
  readonly headless?: boolean;
}

/** Fixed-length digests compared in constant time: neither the content nor the length of a secret shows in the timing. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compared against when the user is unknown, so that an unknown user takes as long as a wrong password. */
const NO_PASSWORD = digest('');

/**
 * The users by name in a Map: a name such as `__proto__`, `constructor` or `toString` is just a name that is not
 * there, never a property of an object's prototype.
 */
function passwordDigests(users: Readonly<Record<string, string>>): Map<string, Buffer> {
  return new Map(Object.entries(users).map(([name, password]) => [name, digest(password)]));
}

function authenticated(header: string | undefined, users: ReadonlyMap<string, Buffer>): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const expected = users.get(decoded.slice(0, colon));
  const matches = timingSafeEqual(expected ?? NO_PASSWORD, digest(decoded.slice(colon + 1)));
  return expected !== undefined && matches;
}

export function installAccessControl(app: FastifyInstance, options: AccessOptions): void {
  const users = options.users && Object.keys(options.users).length > 0 ? passwordDigests(options.users) : undefined;
  if (!users && !options.headless) return;
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (users && !config.public && !authenticated(request.headers.authorization, users)) {
      reply.header('www-authenticate', 'Basic realm="sluice", charset="UTF-8"');
      throw new Unauthorized();
    }
    if (options.headless && config.mutates) throw new Forbidden('This node runs headless: instances cannot be changed through the API');
  });
}
