/**
 * A span per HTTP request (OpenTelemetry), installed only when tracing is on: under the W3C trace context of the
 * request's `traceparent` header when it has one, named by its method and route, ended when the answer has been
 * sent (a streamed query's included) or the client went away. The route's handler runs with it as the active span,
 * so that what it does (a query's peer calls, its store reads) is traced under it. No header, body or query string
 * is recorded. Probes and scrapes are not traced: a trace every few seconds per node that says nothing.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sluiceTracer } from '../streams/runtime/sluice-tracer';

/** The routes of health probes and Prometheus' scrapes. */
const UNTRACED_ROUTES: ReadonlySet<string> = new Set(['/health', '/health/liveness', '/health/readiness', '/prometheus']);

export function installRequestSpans(app: FastifyInstance, scheme: 'http' | 'https'): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && UNTRACED_ROUTES.has(route)) {
      done();
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = sluiceTracer().startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?', 1)[0],
          'url.scheme': scheme,
          ...(route === undefined ? {} : { 'http.route': route }),
        },
      },
      parent,
    );
    spans.set(request, span);
    done();
  });
  // After the body is read (its stream's events run outside the request's context): the handler runs in this one.
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (span === undefined) done();
    else context.with(trace.setSpan(context.active(), span), done);
  });
  const end = (request: FastifyRequest, statusCode: number | undefined) => {
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    if (statusCode === undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away before the answer was sent' });
    } else {
      span.setAttribute('http.response.status_code', statusCode);
      // A server's span fails on its own faults only: a 4xx is the client's.
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
