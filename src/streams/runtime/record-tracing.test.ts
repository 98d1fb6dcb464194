import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import type { ConsumedRecord } from './consumed-record';
import { RecordTracing } from './record-tracing';
import { startInMemoryTracing, type InMemoryTracing } from './testing/in-memory-tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const WRITER_SPAN = '00f067aa0ba902b7';

function consumed(headers: ConsumedRecord['headers']): ConsumedRecord {
  return { topic: 'orders', partition: 3, offset: 42, timestamp: 0, headers } as unknown as ConsumedRecord;
}

describe('record tracing, with the real SDK', () => {
  let tracing: InMemoryTracing;
  afterEach(() => tracing.stop());

  it('a record with a traceparent header: its process span is under it, and its processors see the span’s context in its place', () => {
    tracing = startInMemoryTracing();
    const records = new RecordTracing('word-count', { startRatio: 0 });
    const headers = { traceparent: Buffer.from(`00-${TRACE_ID}-${WRITER_SPAN}-01`), tracestate: 'vendor=1', origin: 'test' };
    const span = records.start(consumed(headers), '0_3')!;
    const under = records.headersUnder(span, headers);
    let active: string | undefined;
    records.run(span, () => (active = trace.getActiveSpan()?.spanContext().spanId));
    records.end(span, undefined);

    const [finished] = tracing.exporter.getFinishedSpans();
    expect(finished!.name).toBe('process orders');
    expect(finished!.kind).toBe(SpanKind.CONSUMER);
    expect(finished!.spanContext().traceId).toBe(TRACE_ID);
    expect(finished!.parentSpanContext?.spanId).toBe(WRITER_SPAN);
    expect(finished!.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': 'orders',
      'messaging.destination.partition.id': '3',
      'messaging.kafka.offset': 42,
      'messaging.consumer.group.name': 'word-count',
      'sluice.task.id': '0_3',
    });
    // The trace's vendor state goes on with it, as W3C trace context says.
    expect(under).toEqual({ traceparent: `00-${TRACE_ID}-${finished!.spanContext().spanId}-01`, tracestate: 'vendor=1', origin: 'test' });
    // The record's own headers are left as they came.
    expect(headers.traceparent.toString()).toBe(`00-${TRACE_ID}-${WRITER_SPAN}-01`);
    expect(active).toBe(finished!.spanContext().spanId);
  });

  it('a record without one starts a trace at the start ratio, its span says so; a failed processing fails its span', () => {
    tracing = startInMemoryTracing();
    const records = new RecordTracing('word-count', { startRatio: 0.5 });
    const random = jest.spyOn(Math, 'random').mockReturnValueOnce(0.7).mockReturnValueOnce(0.3);
    expect(records.start(consumed({}), '0_0')).toBeUndefined();
    const span = records.start(consumed({}), '0_0')!;
    random.mockRestore();
    records.end(span, new Error('poison'));
    const [finished] = tracing.exporter.getFinishedSpans();
    expect(finished!.parentSpanContext).toBeUndefined();
    expect(finished!.attributes['sluice.trace.started']).toBe(true);
    expect(finished!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'poison' });
    expect(finished!.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('a record the sampler leaves out has no span: nothing of it changes', () => {
    tracing = startInMemoryTracing(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const records = new RecordTracing('word-count', { startRatio: 0 });
    expect(records.start(consumed({}), '0_0')).toBeUndefined();
    expect(records.start(consumed({ traceparent: `00-${TRACE_ID}-${WRITER_SPAN}-00` }), '0_0')).toBeUndefined();
    expect(tracing.exporter.getFinishedSpans()).toEqual([]);
  });
});
