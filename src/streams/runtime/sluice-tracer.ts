/**
 * The tracer every Sluice span is made with, from OpenTelemetry's API: without a registered tracer provider (tracing
 * off, the SDK never loaded) the API's no-op, which records nothing.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import { SLUICE_VERSION } from './sluice-version';

export const SLUICE_TRACER_NAME = 'sluice';

export function sluiceTracer(): Tracer {
  return trace.getTracer(SLUICE_TRACER_NAME, SLUICE_VERSION);
}
