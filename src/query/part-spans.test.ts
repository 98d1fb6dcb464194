import { SpanStatusCode, trace } from '@opentelemetry/api';
import { startInMemoryTracing, type InMemoryTracing } from '../streams/runtime/testing/in-memory-tracing';
import { failedAnswer, type PartEnd, type PartStream, type RecordChunk } from './parts';
import { storeReadNow, storeReadPart } from './part-spans';

async function* part(chunks: RecordChunk[], end: PartEnd): PartStream {
  for (const chunk of chunks) yield chunk;
  return end;
}

async function drain(stream: PartStream): Promise<PartEnd> {
  for (let next = await stream.next(); ; next = await stream.next()) if (next.done) return next.value;
}

describe('spans of a query’s store reads, with the real SDK', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => (tracing = startInMemoryTracing()));
  afterEach(() => tracing.stop());

  it('none outside a traced query: the part is the one read, not wrapped', async () => {
    const stream = part([{ json: '1', count: 1 }], { ok: true });
    expect(storeReadPart('counts', 'app', () => stream)).toBe(stream);
    expect(storeReadNow('counts', 'app', () => ({ json: '1', count: 1 }))).toEqual({ json: '1', count: 1 });
    expect(tracing.exporter.getFinishedSpans()).toEqual([]);
  });

  it('under the query’s span: one per read, ended with its records, a failed part a failed span', async () => {
    await trace.getTracer('test').startActiveSpan('query', async (query) => {
      await drain(storeReadPart('counts', 'app', () => part([{ json: '1,2', count: 2 }, { json: '3', count: 1 }], { ok: true })));
      await drain(storeReadPart('counts', 'app', () => part([], failedAnswer('restoring', 'NOT_AVAILABLE'))));
      storeReadNow('counts', 'app', () => ({ json: '"k"', count: 1 }));
      query.end();
    });
    const [read, failed, keyed, query] = tracing.exporter.getFinishedSpans();
    expect(query!.name).toBe('query');
    for (const span of [read, failed, keyed]) {
      expect(span!.name).toBe('store read');
      expect(span!.parentSpanContext?.spanId).toBe(query!.spanContext().spanId);
      expect(span!.attributes).toMatchObject({ 'sluice.application.id': 'app', 'sluice.store': 'counts' });
    }
    expect(read!.attributes['sluice.query.records']).toBe(3);
    expect(read!.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed!.attributes['sluice.query.failure']).toBe('NOT_AVAILABLE');
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'restoring' });
    expect(keyed!.attributes).toMatchObject({ 'sluice.query.keyed': true, 'sluice.query.records': 1 });
  });

  it('a part its reader lets go early ends its span, and lets its read go', async () => {
    let released = false;
    async function* endless(): PartStream {
      try {
        for (;;) yield { json: '1', count: 1 };
      } finally {
        released = true;
      }
    }
    await trace.getTracer('test').startActiveSpan('query', async (query) => {
      const stream = storeReadPart('counts', 'app', endless);
      await stream.next();
      await stream.return({ ok: true });
      query.end();
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(true);
    expect(tracing.exporter.getFinishedSpans().map((span) => span.name)).toEqual(['store read', 'query']);
  });
});
