/**
 * CORS for browser clients (a console on another origin): only the origins listed are answered with CORS headers,
 * and preflights are answered before access control (a browser sends them without credentials). Without a list no
 * CORS header is sent, so browsers keep other origins out. Only a preflight (an OPTIONS with
 * `Access-Control-Request-Method`) on a path the node serves is answered as one: any other OPTIONS gets what a node
 * without CORS answers (404 or 405 with the error body), not @fastify/cors's plain-text 400 or an empty 204.
 */

import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestPath } from './error-handling';
import type { RouteTable } from './route-table';

export interface CorsOptions {
  /** Exact origins, such as `https://console.example.com`. */
  readonly origins: readonly string[];
}

/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

export async function installCors(app: FastifyInstance, options: CorsOptions | undefined, routes: RouteTable): Promise<void> {
  if (options === undefined || options.origins.length === 0) return;
  const allowed = new Set(options.origins);
  const isPreflight = (request: FastifyRequest) =>
    request.method === 'OPTIONS' &&
    request.headers['access-control-request-method'] !== undefined &&
    routes.allowedMethods(requestPath(request)).length > 0;
  await app.register(cors, {
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) => {
      const origin = request.headers.origin;
      callback(null, {
        origin: origin !== undefined && allowed.has(origin) ? origin : false,
        preflight: isPreflight(request),
        methods: ['GET', 'HEAD', 'POST', 'DELETE'],
        allowedHeaders: ['authorization', 'content-type', 'last-event-id'],
        maxAge: PREFLIGHT_MAX_AGE_S,
      });
    },
  });
}
