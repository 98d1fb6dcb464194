import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { startInMemoryTracing } from '../testing/in-memory-tracing';
import { KAFKA_COMPONENT, relayingLogger, relayLine } from './log-relay';

function capture(level: string): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level, base: undefined, timestamp: false }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('a worker’s log lines on the main thread', () => {
  it('go to the instance’s logger, and its kafkajs lines to the kafka logger at that logger’s level', () => {
    const streams = capture('info');
    const kafka = capture('error');
    const sent: string[] = [];
    const worker = relayingLogger('debug', (line) => sent.push(line));
    worker.info({ task: '0_1' }, 'task restored');
    const workerKafka = worker.child({ component: KAFKA_COMPONENT }, { level: 'debug' });
    workerKafka.warn({ broker: 'b:9092' }, 'Connection error');
    workerKafka.error({ broker: 'b:9092' }, 'Request failed');
    for (const line of sent) relayLine(line, streams.logger, kafka.logger);
    expect(streams.lines).toEqual([{ level: 30, task: '0_1', msg: 'task restored' }]);
    expect(kafka.lines).toEqual([{ level: 50, broker: 'b:9092', msg: 'Request failed' }]);
  });

  it('of a traced worker carry the ids of the worker’s span they were written in', async () => {
    const tracing = startInMemoryTracing();
    try {
      const streams = capture('info');
      const sent: string[] = [];
      const worker = relayingLogger('info', (line) => sent.push(line), true);
      trace.getTracer('test').startActiveSpan('process orders', (span) => {
        worker.info('in a span');
        span.end();
      });
      worker.info('outside');
      for (const line of sent) relayLine(line, streams.logger, streams.logger);
      const { traceId, spanId } = tracing.exporter.getFinishedSpans()[0]!.spanContext();
      expect(streams.lines).toEqual([
        { level: 30, trace_id: traceId, span_id: spanId, msg: 'in a span' },
        { level: 30, msg: 'outside' },
      ]);
    } finally {
      await tracing.stop();
    }
  });
});
