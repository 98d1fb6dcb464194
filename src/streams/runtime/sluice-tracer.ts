/**
 * The tracer every Sluice span is made with, from OpenTelemetry's API: without a registered tracer provider (tracing
 * off, the SDK never loaded) the API's no-op, which records nothing. And the ids of the active span that a traced
 * node's log lines carry (the root logger's, and a stream thread worker's).
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import { SLUICE_VERSION } from './sluice-version';

export const SLUICE_TRACER_NAME = 'sluice';

export function sluiceTracer(): Tracer {
  return trace.getTracer(SLUICE_TRACER_NAME, SLUICE_VERSION);
}

/** A line written in a span (OpenTelemetry's active one) carries its trace_id and span_id: a logger's mixin. */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
