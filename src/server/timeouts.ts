/**
 * How long the server waits for a client. A request whose headers or body stall is cut off with a 408 (fastify
 * alone waits forever); an idle keep-alive connection is closed. There is no inactivity limit on a connection as
 * such: event streams and long store queries are legitimately quiet, and a request that did arrive whole costs
 * only what its handler does.
 */

import type { FastifyServerOptions } from 'fastify';

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  readonly requestMs: number;
  /** The request line and headers must arrive within this (at most `requestMs`). */
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

export function timeoutOptions(timeouts: HttpTimeouts): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, timeouts.headersMs, timeouts.requestMs),
    },
  };
}
