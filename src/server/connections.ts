/**
 * How many connections the server holds at once. Past the cap, Node closes a new connection as soon as it is
 * accepted, before TLS or HTTP cost anything; the connections held are served as before. The log says when the cap
 * is reached, once and not once a connection (a flood would flood the log), and how many were refused when a
 * connection is accepted again.
 */

import type { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Far above what the console, probes, scrapes and API clients hold; far below a process's file descriptors. */
export const DEFAULT_MAX_CONNECTIONS = 1000;

export function limitConnections(app: FastifyInstance, maxConnections: number): void {
  const server: Server = app.server;
  server.maxConnections = maxConnections;
  let refused = 0;
  server.on('drop', (peer?: { remoteAddress?: string }) => {
    refused += 1;
    if (refused === 1) {
      app.log.warn(
        { maxConnections, remoteAddress: peer?.remoteAddress },
        `Refusing new connections: this node holds ${maxConnections}, its cap (server.maxConnections)`,
      );
    }
  });
  server.on('connection', () => {
    if (refused === 0) return;
    app.log.info({ maxConnections, refused }, `Accepting connections again, after refusing ${refused} at the cap (server.maxConnections)`);
    refused = 0;
  });
}
