import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { startInMemoryTracing } from '../../streams/runtime/testing/in-memory-tracing';
import { traceIds } from '../../streams/runtime/sluice-tracer';
import { componentLoggers, lineStyle } from './loggers';
import { prettyLine } from './pretty-lines';

describe('log lines', () => {
  it('are pretty on a terminal, JSON elsewhere or when asked; coloured only on a terminal unless forced', () => {
    expect(lineStyle(undefined, true, {})).toEqual({ pretty: true, colors: true });
    expect(lineStyle('auto', false, {})).toEqual({ pretty: false, colors: false });
    expect(lineStyle('json', true, {})).toEqual({ pretty: false, colors: false });
    expect(lineStyle('pretty', false, {})).toEqual({ pretty: true, colors: false });
    expect(lineStyle('pretty', true, { NO_COLOR: '1' })).toEqual({ pretty: true, colors: false });
    expect(lineStyle('pretty', false, { FORCE_COLOR: '1' })).toEqual({ pretty: true, colors: true });
  });

  it('pretty: one line with time, level, component, application, message and fields; an error without its stack', () => {
    const time = new Date(2026, 10, 27, 13, 40, 34, 344).getTime();
    const entry = {
      level: 40,
      time,
      pid: 1,
      hostname: 'vm',
      component: 'streams',
      applicationId: 'word-count',
      err: { type: 'KafkaJSProtocolError', message: 'This server does not host this topic-partition', stack: 'KafkaJSProtocolError: This server...\n    at createErrorFromCode (error.js:581:10)' },
      attempt: 2,
      topics: ['a', 'b'],
      reason: 'two words',
      msg: 'preparing topics failed',
    };
    expect(prettyLine(entry, false)).toBe(
      '13:40:34.344 WARN  streams word-count: preparing topics failed err="KafkaJSProtocolError: This server does not host this topic-partition" attempt=2 topics=["a","b"] reason="two words"',
    );
    expect(prettyLine({ ...entry, level: 50 }, false)).toContain('(at createErrorFromCode (error.js:581:10))');
    expect(prettyLine({ level: 30, time, msg: 'Sluice started' }, true)).toBe('\u001b[90m13:40:34.344\u001b[0m \u001b[32mINFO \u001b[0m Sluice started');
  });

  it('each component has its level, the root’s unless given; kafkajs at warn at most unless given', () => {
    const root = pino({ level: 'debug' });
    const loggers = componentLoggers(root, { http: 'error' });
    expect(Object.fromEntries(Object.entries(loggers).map(([name, logger]) => [name, logger.level]))).toEqual({ kafka: 'warn', streams: 'debug', http: 'error', peers: 'debug' });
    expect(componentLoggers(root, { kafka: 'trace' }).kafka.level).toBe('trace');
    expect(componentLoggers(pino({ level: 'error' })).kafka.level).toBe('error');
  });
});

describe('log lines in a span', () => {
  it('carry its trace_id and span_id (traceIds, the root logger’s mixin when tracing is on); none outside a span', async () => {
    const tracing = startInMemoryTracing();
    try {
      expect(traceIds()).toEqual({});
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ mixin: traceIds }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
      trace.getTracer('test').startActiveSpan('query', (span) => {
        logger.info('in a span');
        span.end();
      });
      logger.info('outside');
      const { traceId, spanId } = tracing.exporter.getFinishedSpans()[0]!.spanContext();
      expect(lines.map(({ msg, trace_id, span_id }) => ({ msg, trace_id, span_id }))).toEqual([
        { msg: 'in a span', trace_id: traceId, span_id: spanId },
        { msg: 'outside', trace_id: undefined, span_id: undefined },
      ]);
    } finally {
      await tracing.stop();
    }
  });
});
