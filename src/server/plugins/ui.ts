/**
 * The web console at `/ui` and Swagger UI at `/docs`, both served by the node behind the API's own access control
 * (no route here is public). The console is a static page that reads the API; `/ui/model` tells it who is looking and
 * what can be queried. Hashed asset names are cached for good; the page itself is revalidated by its ETag. Swagger
 * UI's files (1.5 MB, its script most of it) go compressed, and are kept a day by the browser.
 */

import compress from '@fastify/compress';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleNotBuilt, RouteNotFound } from '../../errors';
import { clausesOf, clauseSpec, STORE_TYPES } from '../../query/clauses';
import type { StoreType } from '../../streams/state/store';
import type { AccessPolicy } from '../access';
import { CONSOLE_DIRS, findConsole, readConsole, type ConsoleFile } from '../console/assets';
import type { ConsoleModel } from '../console/model';
import type { InstanceRegistry, LocalInstance } from '../context';
import { requestPath } from '../error-handling';
import { withErrors } from '../schemas/common';
import * as schemas from '../schemas/console';

export interface UiPluginOptions {
  instances: InstanceRegistry;
  access: AccessPolicy;
  version: string;
  /** Folders to look in for the built console, first match wins. */
  consoleDirs?: readonly string[];
}

/** A page that may load only its own scripts and styles (and the inline styles named), and talk only to this node. */
function contentSecurityPolicy(inlineStyles: readonly string[] = []): string {
  return (
    `default-src 'self'; script-src 'self'; style-src ${["'self'", ...inlineStyles].join(' ')}; img-src 'self' data:; connect-src 'self'; ` +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
  );
}

const CONSOLE_POLICY = contentSecurityPolicy();

/**
 * Swagger UI runs no inline script (its initializer is a file of its own); its top bar draws a logo whose SVG holds
 * one <style> element, allowed by its hash (the test checks it against the installed swagger-ui).
 */
const SWAGGER_UI_POLICY = contentSecurityPolicy(["'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"]);

/**
 * How long a browser keeps Swagger UI's files: they change only with the installed swagger-ui, whose names carry no
 * hash, so a day rather than for good.
 */
const SWAGGER_UI_CACHE_CONTROL = 'public, max-age=86400';

const QUERY_OPTIONS = ['retries', 'retry_backoff_ms', 'query_timeout_ms', 'remote_access_allowed', 'limit', 'allow_stale', 'max_lag'];

/** Every store of the topology; its type when a local partition of it is open (else the console offers every type). */
function storesOf(instance: LocalInstance): { name: string; type: StoreType | null }[] {
  const description = instance.describe();
  const names = new Set<string>();
  for (const sub of description.subTopologies) for (const node of sub.nodes) for (const store of node.stores ?? []) names.add(store);
  for (const global of description.globalStores) for (const store of global.processor.stores ?? []) names.add(store);
  return [...names].sort().map((name) => {
    const [open] = instance.view?.queryableStores(name).values() ?? [];
    return { name, type: open?.type ?? null };
  });
}

export const uiPlugin: FastifyPluginAsync<UiPluginOptions> = async (app, options) => {
  const { instances, access } = options;
  const dirs = options.consoleDirs ?? CONSOLE_DIRS;
  // Read at the first request, so that a console built after the node started is served.
  let files: Map<string, ConsoleFile> | undefined;
  const consoleFile = (name: string, request: FastifyRequest): ConsoleFile => {
    if (files === undefined) {
      const dir = findConsole(dirs);
      if (dir === undefined) throw new ConsoleNotBuilt(dirs[dirs.length - 1]!);
      files = readConsole(dir);
    }
    const file = files.get(name);
    if (file === undefined) throw new RouteNotFound(request.method, requestPath(request));
    return file;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string) => {
    reply.header('etag', file.etag).header('cache-control', cacheControl).header('vary', 'accept-encoding');
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    reply.type(file.contentType);
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(file.gzip);
    return reply.send(file.body);
  };

  const hidden = { hide: true } as const;
  app.get('/', { schema: hidden, handler: async (_request, reply) => reply.redirect('/ui/') });

  app.get('/ui', {
    schema: { tags: ['console'], summary: 'The web console', response: withErrors({ 200: { type: 'string', description: 'HTML page' } }) },
    handler: async (request, reply) => {
      reply.header('content-security-policy', CONSOLE_POLICY).header('x-content-type-options', 'nosniff');
      return send(request, reply, consoleFile('index.html', request), 'no-cache');
    },
  });

  app.get<{ Params: { file: string } }>('/ui/assets/:file', {
    schema: { ...hidden, params: { type: 'object', required: ['file'], properties: { file: { type: 'string' } } } },
    handler: async (request, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      // Names carry their content's hash: a new build has new names, so an old one can be kept for a year.
      return send(request, reply, consoleFile(`assets/${request.params.file}`, request), 'public, max-age=31536000, immutable');
    },
  });

  app.get('/ui/model', {
    schema: {
      tags: ['console'],
      summary: "What the console shows and offers: who is looking, whether they may change instances, and each application's stores with the clauses of their types",
      response: withErrors({ 200: schemas.consoleModel }),
    },
    handler: async (request): Promise<ConsoleModel> => {
      const principal = request.principal;
      return {
        version: options.version,
        user: principal?.name ?? null,
        role: principal?.role ?? null,
        headless: access.headless,
        canChange: !access.headless && (!access.authenticated || principal?.role === 'operator'),
        applications: instances.list().map((instance) => ({ id: instance.id, stores: storesOf(instance) })),
        storeTypes: STORE_TYPES.map((type) => ({
          type,
          clauses: clausesOf(type).map((clause) => ({
            name: clause,
            params: [...(clauseSpec(type, clause)?.params ?? [])],
            optional: [...(clauseSpec(type, clause)?.optional ?? [])],
          })),
        })),
        options: QUERY_OPTIONS,
      };
    },
  });

  // In a scope of its own: compression here only, not on the API's streamed answers and events.
  await app.register(async (docs) => {
    await docs.register(compress, { global: true });
    docs.addHook('onSend', async (request, reply, payload) => {
      if (request.url.startsWith('/docs/static/') && reply.statusCode === 200) reply.header('cache-control', SWAGGER_UI_CACHE_CONTROL);
      return payload;
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { deepLinking: true, docExpansion: 'list' },
      staticCSP: SWAGGER_UI_POLICY,
    });
  });
};
