/**
 * Traces of records through a task (OpenTelemetry, when the node is configured for it: docs/operations.md): a
 * record's W3C trace context is read from its `traceparent` (and `tracestate`) header, its processing is a span under
 * it, and the headers the processors see carry that span's context instead, so that every record it becomes is
 * written with a `traceparent` of the same trace: a trace goes on through Sluice from the service that wrote the
 * record to the one that reads what Sluice wrote. Built only when tracing is on: a task without it does not look at
 * headers.
 *
 * A record without a `traceparent` starts a trace at `startRatio`, decided here with one random number: asking the
 * SDK would cost each record a trace id and a span id (about 2 µs, as much as a word count's record) only for most
 * of them to be dropped. The span of one taken carries `sluice.trace.started`, by which the SDK's sampler
 * (telemetry-sdk.ts) keeps it rather than deciding a second time.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import type { Headers } from '../processor/record';
import type { ConsumedRecord } from './consumed-record';
import { sluiceTracer } from './sluice-tracer';

/** Reads a W3C header from record headers, whose values Kafka gives as bytes. */
const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => {
    const value = headers[key];
    return value === undefined ? undefined : typeof value === 'string' ? value : value.toString('latin1');
  },
};

const HEADER_SETTER: TextMapSetter<Headers> = {
  set: (headers, key, value) => {
    headers[key] = value;
  },
};

/** The attribute of a record's span that started its trace: the decision to sample it was already made. */
export const TRACE_STARTED_ATTRIBUTE = 'sluice.trace.started';

export interface RecordTracingOptions {
  /** The share of records without a trace context that start a trace (the root sampler's ratio), from 0 to 1. */
  readonly startRatio: number;
}

export class RecordTracing {
  private readonly tracer = sluiceTracer();

  constructor(
    private readonly applicationId: string,
    private readonly options: RecordTracingOptions,
  ) {}

  /**
   * The span of a record's processing by a task, under the trace context of its headers; undefined when the sampler
   * leaves it out (then nothing of the record changes).
   */
  start(record: ConsumedRecord, taskId: string): Span | undefined {
    const headers = record.headers;
    let span: Span;
    if (headers.traceparent === undefined) {
      const ratio = this.options.startRatio;
      if (ratio < 1 && !(Math.random() < ratio)) return undefined;
      span = this.tracer.startSpan(`process ${record.topic}`, { kind: SpanKind.CONSUMER, attributes: { [TRACE_STARTED_ATTRIBUTE]: true } }, ROOT_CONTEXT);
    } else {
      span = this.tracer.startSpan(`process ${record.topic}`, { kind: SpanKind.CONSUMER }, propagation.extract(ROOT_CONTEXT, headers, HEADER_GETTER));
    }
    // The attributes are made once the sampler has taken the record: most records are not taken.
    if (!span.isRecording()) return undefined;
    return span.setAttributes({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': record.topic,
      'messaging.destination.partition.id': String(record.partition),
      'messaging.kafka.offset': record.offset,
      'messaging.consumer.group.name': this.applicationId,
      'sluice.task.id': taskId,
    });
  }

  /** The record's headers for its processors: a copy, with the span's context in place of the one it came with. */
  headersUnder(span: Span, headers: Headers): Headers {
    const under: Headers = { ...headers };
    // The span's own trace state is written (the one it came with, which it inherits), never a stale one.
    delete under.tracestate;
    propagation.inject(trace.setSpan(context.active(), span), under, HEADER_SETTER);
    return under;
  }

  /** Runs `process` with the span as the active one. */
  run(span: Span, process: () => void): void {
    context.with(trace.setSpan(context.active(), span), process);
  }

  /** Ends the span; a processing that threw marks it failed. */
  end(span: Span, error: unknown): void {
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  }
}
