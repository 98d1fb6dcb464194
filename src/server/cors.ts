/**
 * CORS for browser clients (a console on another origin): only the origins listed are answered with CORS headers,
 * and preflights are answered before access control (a browser sends them without credentials). Without a list no
 * CORS header is sent, so browsers keep other origins out.
 */

import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export interface CorsOptions {
  /** Exact origins, such as `https://console.example.com`. */
  readonly origins: readonly string[];
}

/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

export async function installCors(app: FastifyInstance, options: CorsOptions | undefined): Promise<void> {
  if (options === undefined || options.origins.length === 0) return;
  const allowed = new Set(options.origins);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'last-event-id'],
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
}
