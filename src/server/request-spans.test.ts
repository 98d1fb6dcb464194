import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import Fastify from 'fastify';
import { startInMemoryTracing, type InMemoryTracing } from '../streams/runtime/testing/in-memory-tracing';
import { installRequestSpans } from './request-spans';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('a span per HTTP request, with the real SDK', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => (tracing = startInMemoryTracing()));
  afterEach(() => tracing.stop());

  async function app() {
    const server = Fastify();
    installRequestSpans(server, 'http');
    server.post<{ Params: { name: string } }>('/stores/:name', async (request) => {
      // Past an await and a parsed body, the handler still runs in the request's span.
      await new Promise((resolve) => setImmediate(resolve));
      if (request.params.name === 'broken') throw new Error('store closed');
      return { span: trace.getActiveSpan()?.spanContext().spanId };
    });
    server.get('/health/readiness', async () => ({ status: 'UP' }));
    await server.ready();
    return server;
  }

  it('is under the caller’s traceparent, named by method and route, the active span of the handler', async () => {
    const server = await app();
    const answer = await server.inject({
      method: 'POST',
      url: '/stores/counts?secret=1',
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, authorization: 'Bearer token' },
      payload: { type: 'key_value' },
    });
    await server.close();
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span!.name).toBe('POST /stores/:name');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(answer.json()).toEqual({ span: span!.spanContext().spanId });
    // The query string and the headers are not recorded: they may carry credentials.
    expect(span!.attributes).toEqual({
      'http.request.method': 'POST',
      'url.path': '/stores/counts',
      'url.scheme': 'http',
      'http.route': '/stores/:name',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('starts a trace without one; fails on a 5xx, not on a 4xx; none for probes and scrapes', async () => {
    const server = await app();
    await server.inject({ method: 'POST', url: '/stores/broken', payload: {} });
    await server.inject({ method: 'GET', url: '/nowhere' });
    expect((await server.inject({ method: 'GET', url: '/health/readiness' })).statusCode).toBe(200);
    await server.close();
    expect(tracing.exporter.getFinishedSpans()).toHaveLength(2);
    const [failed, notFound] = tracing.exporter.getFinishedSpans();
    expect(failed!.parentSpanContext).toBeUndefined();
    expect(failed!.attributes['http.response.status_code']).toBe(500);
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(notFound!.name).toBe('GET');
    expect(notFound!.attributes['http.response.status_code']).toBe(404);
    expect(notFound!.status.code).toBe(SpanStatusCode.UNSET);
  });
});
