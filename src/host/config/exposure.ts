/**
 * Whom a node serves. Without users it listens on loopback only; listening where other machines reach it without
 * authentication takes an explicit `server.allowUnauthenticated`, as anyone there could read every store, deploy,
 * restart and stop.
 */

import * as net from 'node:net';
import { ConfigException } from '../../errors';
import type { HostConfig } from './host-config';

type ServerConfig = Pick<HostConfig['server'], 'host' | 'port' | 'users' | 'allowUnauthenticated'>;

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped): addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || bare.startsWith('::ffff:127.');
  return false;
}

function hasUsers(server: ServerConfig): boolean {
  return Object.keys(server.users ?? {}).length > 0;
}

/** Refuses (before anything listens) a non-loopback host without users, unless allowed explicitly. */
export function checkExposure(server: ServerConfig): void {
  if (isLoopback(server.host) || hasUsers(server) || server.allowUnauthenticated) return;
  throw new ConfigException(
    `server.host '${server.host}' lets other machines reach the API, and no users are configured (server.users): ` +
      'configure users, or serve it without authentication on purpose with server.allowUnauthenticated: true ' +
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
  if (!hasUsers(server)) {
    return {
      level: 'warn',
      message: `Serving ${server.host} without authentication (server.allowUnauthenticated): whoever reaches port ${server.port} can read, deploy, restart and stop`,
    };
  }
  return undefined;
}
