/**
 * Who may use the API: with users configured, every route but the probes needs HTTP Basic credentials (401
 * otherwise); in headless mode the routes that change instances are refused (403), so that a node can be watched
 * but not steered.
 */

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Forbidden, Unauthorized } from '../errors';
// Types the routes' `config` (mutates, public).
import './route-config';

export interface AccessOptions {
  /** Username to password; none: no authentication. */
  readonly users?: Readonly<Record<string, string>>;
  readonly headless?: boolean;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function authenticated(header: string | undefined, users: Readonly<Record<string, string>>): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const password = users[decoded.slice(0, colon)];
  return password !== undefined && sameText(password, decoded.slice(colon + 1));
}

export function installAccessControl(app: FastifyInstance, options: AccessOptions): void {
  const users = options.users && Object.keys(options.users).length > 0 ? options.users : undefined;
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
