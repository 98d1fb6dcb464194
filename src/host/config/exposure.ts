/**
 * Whom a node serves. Without users it listens on loopback only; listening where other machines reach it without
 * authentication takes an explicit `server.allowUnauthenticated`, as anyone there could read every store, deploy,
 * restart and stop.
 */

import { ConfigException } from '../../errors';
import { isLoopback } from '../../server/loopback';
import type { HostConfig } from './host-config';

export { isLoopback };

type ServerConfig = Pick<HostConfig['server'], 'host' | 'port' | 'users' | 'tokens' | 'jwt' | 'allowUnauthenticated'>;

/** Users, API tokens or JWTs: some way in that needs credentials. */
/** Whether the API asks callers who they are: users, API tokens or JWTs. */
export function hasAuthentication(server: Pick<ServerConfig, 'users' | 'tokens' | 'jwt'>): boolean {
  return Object.keys(server.users ?? {}).length > 0 || (server.tokens ?? []).length > 0 || server.jwt !== undefined;
}

/** Refuses (before anything listens) a non-loopback host without users, unless allowed explicitly. */
export function checkExposure(server: ServerConfig): void {
  if (isLoopback(server.host) || hasAuthentication(server) || server.allowUnauthenticated) return;
  throw new ConfigException(
    `server.host '${server.host}' lets other machines reach the API, and no credentials are configured (server.users, server.tokens, server.jwt): ` +
      'configure them, or serve it without authentication on purpose with server.allowUnauthenticated: true ' +
      '(SLUICE_ALLOW_UNAUTHENTICATED=true, --allow-unauthenticated)',
  );
}

/** What the node says at start about whom it serves, when that is worth saying. */
export function exposureNotice(server: ServerConfig): { level: 'info' | 'warn'; message: string } | undefined {
  if (isLoopback(server.host)) {
    return {
      level: 'info',
      message:
        `Listening on loopback only (${server.host}): other machines cannot reach this node; ` +
        'set server.host, with server.users, to serve them',
    };
  }
  if (!hasAuthentication(server)) {
    return {
      level: 'warn',
      message: `Serving ${server.host} without authentication (server.allowUnauthenticated): whoever reaches port ${server.port} can read, deploy, restart and stop`,
    };
  }
  return undefined;
}
