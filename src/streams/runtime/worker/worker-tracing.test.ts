import { trace } from '@opentelemetry/api';
import pino from 'pino';
import type { ConsumedRecord } from '../consumed-record';
import { started, startedWith } from '../testing/worker-tracer';
import { startWorkerTracing } from './worker-tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACER = { module: require.resolve('../testing/worker-tracer'), export: 'startTestTracer', args: [{ sampler: 'parentbased_always_on' }, 'node-a:8080'] };

function consumed(headers: ConsumedRecord['headers']): ConsumedRecord {
  return { topic: 'orders', partition: 1, offset: 7, timestamp: 0, headers } as unknown as ConsumedRecord;
}

describe("a stream thread's worker's record tracing", () => {
  it('starts the tracer the instance names, with the worker’s logger and its arguments, and traces records under it at the start ratio until it shuts down', async () => {
    const logger = pino({ level: 'silent' });
    // As the worker gets them: structured-cloned.
    const { tracer, records } = startWorkerTracing(structuredClone({ startRatio: 0, tracer: TRACER }), 'orders-app', logger);
    expect(startedWith).toEqual([{ logger, args: TRACER.args }]);

    const span = records.start(consumed({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` }), '0_1')!;
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    records.end(span, undefined);
    // A record without a trace context starts none at ratio 0.
    expect(records.start(consumed({}), '0_1')).toBeUndefined();
    const [finished] = started[0]!.exporter.getFinishedSpans();
    expect(finished!.attributes).toMatchObject({ 'messaging.consumer.group.name': 'orders-app', 'sluice.task.id': '0_1' });

    await tracer.shutdown();
    expect(trace.getTracer('sluice').startSpan('after').isRecording()).toBe(false);
  });

  it('fails as a module that does not export the function named fails', () => {
    expect(() => startWorkerTracing({ startRatio: 1, tracer: { ...TRACER, export: 'noSuchTracer' } }, 'orders-app', pino({ level: 'silent' }))).toThrow(
      "exports no function 'noSuchTracer'",
    );
  });
});
