/**
 * The fastify application of the management API: error handling (the parser's and the router's refusals included),
 * timeouts, the cap on connections, body parsing, access control, the application id check, and one plugin per
 * resource. The caller listens (or injects, in tests).
 */

import { randomUUID } from 'node:crypto';
import type { ServerOptions as NodeHttpsOptions } from 'node:https';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TimelinePeers } from '../cluster';
import { installAccessControl, type AccessOptions } from './access';
import { installApplicationIdCheck } from './application-id-param';
import { parseEveryBodyAsJson } from './body-parser';
import { answerClientError, answerConnect } from './client-errors';
import { DEFAULT_MAX_CONNECTIONS, limitConnections } from './connections';
import type { InstanceRegistry, NodeContext, StoreQueries } from './context';
import { installCors, type CorsOptions } from './cors';
import { answerFrameworkError, DEFAULT_BODY_LIMIT, installErrorHandling, MAX_PATH_SEGMENT_LENGTH } from './error-handling';
import { applicationsPlugin } from './plugins/applications';
import { azkarraPlugin } from './plugins/azkarra';
import { eventsPlugin } from './plugins/events';
import { healthPlugin } from './plugins/health';
import { registerOpenApi } from './plugins/openapi';
import { prometheusPlugin } from './plugins/prometheus';
import { streamsPlugin } from './plugins/streams';
import { topologiesPlugin } from './plugins/topologies';
import { uiPlugin } from './plugins/ui';
import { installRequestSpans } from './request-spans';
import { RouteTable } from './route-table';
import { DEFAULT_EVENT_LOG_OPTIONS, type EventLogOptions } from './sse/event-log';
import { DEFAULT_EVENT_STREAM_OPTIONS, type EventStreamOptions } from './sse/event-stream';
import { DEFAULT_METRICS_INTERVAL_MS } from './sse/instance-events';
import { DEFAULT_HTTP_TIMEOUTS, timeoutOptions, type HttpTimeouts } from './timeouts';

/** HTTPS: certificate and key, and for mutual TLS the CA of the clients' certificates. */
export type HttpsOptions = Pick<NodeHttpsOptions, 'cert' | 'key' | 'passphrase' | 'ca' | 'requestCert' | 'rejectUnauthorized'>;

export interface ServerOptions {
  readonly instances: InstanceRegistry;
  readonly queries: StoreQueries;
  /** How the cluster's timeline (scope=cluster) asks the other nodes; none: they are named as failures. */
  readonly peers?: TimelinePeers;
  /** The node's own configuration (Azkarra's context and environment routes); none when omitted. */
  readonly node?: NodeContext;
  /** Folders to look in for the built web console; by default where `npm run build` writes it. */
  readonly consoleDirs?: readonly string[];
  /** fastify's logger option: a pino logger, pino options, or false; default false. */
  readonly logger?: FastifyServerOptions['loggerInstance'] | Exclude<FastifyServerOptions['logger'], undefined>;
  readonly access?: AccessOptions;
  /** Serve HTTPS instead of HTTP. */
  readonly https?: HttpsOptions;
  readonly cors?: CorsOptions;
  readonly events?: Partial<EventStreamOptions> & Partial<EventLogOptions> & { metricsIntervalMs?: number };
  /** The version shown in the OpenAPI document. */
  readonly version?: string;
  readonly bodyLimit?: number;
  readonly timeouts?: Partial<HttpTimeouts>;
  /** Connections held at once; a new one past it is closed as it is accepted. */
  readonly maxConnections?: number;
  /** A span per request (OpenTelemetry's API, its tracer provider registered by the host); default false. */
  readonly tracing?: boolean;
}

function loggerOptions(logger: ServerOptions['logger']): Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> {
  if (logger === undefined || typeof logger === 'boolean') return { logger: logger ?? false };
  // A pino logger has `child`; pino options do not.
  if (typeof (logger as { child?: unknown }).child === 'function') return { loggerInstance: logger as FastifyServerOptions['loggerInstance'] };
  return { logger: logger as FastifyServerOptions['logger'] };
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggerOptions(options.logger),
    // Request ids double as the correlation ids of 500s: unique across restarts and nodes.
    genReqId: () => randomUUID(),
    // Probes and scrapes would flood the log; failures are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    ...timeoutOptions({ ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts }, options.https),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_SEGMENT_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ajv: {
      // Wrong types are errors (no coercion of bodies); unknown keys are refused where a schema says so.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true },
    },
  }) as unknown as FastifyInstance;

  limitConnections(app, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  // First: a request refused by any hook below is traced too.
  if (options.tracing === true) installRequestSpans(app, options.https === undefined ? 'http' : 'https');
  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route));
  installErrorHandling(app, routes);
  answerConnect(app);
  parseEveryBodyAsJson(app);
  // Before access control: preflights carry no credentials, and a 401 needs CORS headers for a browser to read it.
  await installCors(app, options.cors, routes);
  const access = installAccessControl(app, options.access ?? {});
  installApplicationIdCheck(app);
  const version = options.version ?? '0.0.0';
  await registerOpenApi(app, version);

  const { instances, queries } = options;
  const events = { ...DEFAULT_EVENT_STREAM_OPTIONS, ...DEFAULT_EVENT_LOG_OPTIONS, ...options.events };
  await app.register(streamsPlugin, { instances, peers: options.peers });
  await app.register(eventsPlugin, {
    instances,
    stream: { queueSize: events.queueSize, keepaliveMs: events.keepaliveMs },
    log: { replaySize: events.replaySize, lingerMs: events.lingerMs },
    metricsIntervalMs: events.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS,
  });
  await app.register(applicationsPlugin, { instances, queries });
  await app.register(topologiesPlugin, { instances });
  await app.register(healthPlugin, { instances });
  await app.register(prometheusPlugin, { instances });
  await app.register(azkarraPlugin, { instances, access, version, node: options.node ?? { streamsConfig: () => ({}) } });
  await app.register(uiPlugin, { instances, access, version, consoleDirs: options.consoleDirs });
  return app;
}
