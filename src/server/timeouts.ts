/**
 * How long the server waits for a client. A request whose headers or body stall is cut off with a 408 (fastify
 * alone waits forever), and so is a connection that sends nothing at all; an idle keep-alive connection is closed.
 * There is no inactivity limit on a connection as such: event streams and long store queries are legitimately
 * quiet, and a request that did arrive whole costs only what its handler does.
 */

import type { ServerOptions as NodeHttpOptions } from 'node:http';
import type { ServerOptions as NodeHttpsOptions } from 'node:https';
import type { FastifyServerOptions } from 'fastify';

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  readonly requestMs: number;
  /** The request line and headers must arrive within this (at most `requestMs`); over TLS, the handshake too. */
  readonly headersMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  // Longer than the 60 s idle timeout of common load balancers, so that they close first (fastify's default).
  keepAliveMs: 72_000,
};

/** Node checks the request and header timeouts on a timer (30 s by default): often enough that they hold to a second. */
const CHECK_INTERVAL_MS = 1000;

type NodeTimeouts = Pick<NodeHttpOptions, 'headersTimeout' | 'connectionsCheckingInterval'>;

/** fastify's server options with the timeouts, and the HTTPS options when the server serves HTTPS. */
export function timeoutOptions(
  timeouts: HttpTimeouts,
  https?: NodeHttpsOptions,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & ({ http: NodeTimeouts } | { https: NodeHttpsOptions }) {
  const headersMs = Math.min(timeouts.headersMs, timeouts.requestMs);
  const node: NodeTimeouts = { headersTimeout: headersMs, connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, headersMs) };
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // fastify hands `http` to a plain server only: an HTTPS server takes Node's timeouts among its own options (else
    // 60 s for the headers). Before its handshake a connection is not yet HTTP, so the handshake gets the headers'
    // time too (else 120 s): a connection that sends nothing is closed either way.
    ...(https === undefined ? { http: node } : { https: { ...https, ...node, handshakeTimeout: headersMs } }),
  };
}
