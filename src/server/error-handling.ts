/**
 * Every 4xx and 5xx of the API carries `{"error_code", "message", "exception", "path"}` with a stable exception
 * name from the catalogue. Unknown paths are 404, known paths with another method 405 with `Allow`; fastify's
 * validation errors are 400; the router's own refusals (a path that is not valid percent-encoding: 400, a path
 * segment over the router's limit: 414) too; anything unexpected is a 500 logged with a correlation id (the request
 * id) that the body repeats. What Node's HTTP parser refuses before fastify sees it is in client-errors.ts.
 */

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  InternalError,
  InvalidRequest,
  MethodNotAllowed,
  PayloadTooLarge,
  RouteNotFound,
  SluiceError,
  UriTooLong,
} from '../errors';
import { httpStatusOf } from './http-status';
import type { RouteTable } from './route-table';

export interface ErrorBody {
  error_code: number;
  message: string;
  exception: string;
  path: string;
}

export function requestPath(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query < 0 ? request.url : request.url.slice(0, query);
}

/** The catalogue error an error stands for; undefined for a fault. */
function asCatalogueError(error: FastifyError | Error): SluiceError | undefined {
  if (error instanceof SluiceError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return new InvalidRequest(fastifyError.message, { cause: error });
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLarge(fastifyBodyLimit(error));
  // fastify's other client errors (bad URL encoding, a header it refuses, ...): bad input, never a 500.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new InvalidRequest(fastifyError.message, { cause: error });
  }
  return undefined;
}

function fastifyBodyLimit(error: Error): number {
  const limit = (error as { bodyLimit?: unknown }).bodyLimit;
  return typeof limit === 'number' ? limit : DEFAULT_BODY_LIMIT;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** fastify's default limit of a path parameter, in characters; longer ones are 414. */
export const MAX_PATH_SEGMENT_LENGTH = 100;

/** The documented error body of a catalogue error; its error_code is the answer's status. */
export function errorBody(error: SluiceError, path: string): ErrorBody {
  return { error_code: httpStatusOf(error), message: error.message, exception: error.exception, path };
}

function send(reply: FastifyReply, request: FastifyRequest, error: SluiceError): FastifyReply {
  const body = errorBody(error, requestPath(request));
  return reply.code(body.error_code).type('application/json; charset=utf-8').send(body);
}

/** fastify's `frameworkErrors`: what the router refuses before any route runs. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    void send(reply, request, new InvalidRequest('The request path is not valid percent-encoding', { cause: error }));
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void send(reply, request, new UriTooLong(MAX_PATH_SEGMENT_LENGTH, { cause: error }));
  } else {
    request.log.error({ err: error, correlationId: request.id }, 'request failed');
    void send(reply, request, new InternalError(request.id, { cause: error }));
  }
}

export function installErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    let catalogued = asCatalogueError(error);
    if (catalogued === undefined || catalogued.kind === 'internal') {
      request.log.error({ err: error, correlationId: request.id }, 'request failed');
      catalogued = new InternalError(request.id, { cause: error });
    } else if (httpStatusOf(catalogued) > 500) {
      request.log.warn({ err: error }, 'request not served');
    }
    return send(reply, request, catalogued);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request);
    const allowed = routes.allowedMethods(path);
    if (allowed.length === 0) return send(reply, request, new RouteNotFound(request.method, path));
    reply.header('allow', allowed.join(', '));
    return send(reply, request, new MethodNotAllowed(request.method, path, allowed.join(', ')));
  });
}
