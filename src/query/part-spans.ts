/**
 * Spans of a query's parts (OpenTelemetry): a part read from this node's stores, and (in the cluster layer) a part
 * asked of a peer and answered to one. A span is made only under a recorded one, the HTTP request's or a peer
 * call's: with tracing off there is none, and a part is read as it is, with nothing wrapped around it.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { sluiceTracer } from '../streams/runtime/sluice-tracer';
import type { PartEnd, PartStream } from './parts';

/** A span under `parent`'s when that one is recorded (tracing on, and sampled); else undefined. */
export function childSpan(name: string, kind: SpanKind, attributes: Attributes, parent: Context = context.active()): Span | undefined {
  if (trace.getSpan(parent)?.isRecording() !== true) return undefined;
  return sluiceTracer().startSpan(name, { kind, attributes }, parent);
}

/** Ends a part's span with how the part ended: a failed part is a failed span, its kind an attribute. */
export function endPartSpan(span: Span, end: PartEnd | undefined, records: number): void {
  span.setAttribute('sluice.query.records', records);
  if (end !== undefined && !end.ok) {
    span.setAttribute('sluice.query.failure', end.kind);
    span.setStatus({ code: SpanStatusCode.ERROR, message: end.messages.join('; ') });
  }
  span.end();
}

/** The part, its span ended when it ends (read to its end, returned early, or thrown). */
export async function* spanningPart(stream: PartStream, span: Span): PartStream {
  let records = 0;
  let end: PartEnd | undefined;
  try {
    for (let next = await stream.next(); ; next = await stream.next()) {
      if (next.done) {
        end = next.value;
        return end;
      }
      records += next.value.count;
      yield next.value;
    }
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    // Returned early: the part is let go as the reader lets it go, without waiting for its reads or its call to end.
    if (end === undefined) void stream.return({ ok: true }).catch(() => undefined);
    endPartSpan(span, end, records);
  }
}

/** A part read from this node's stores, in a `store read` span when the query is traced. */
export function storeReadPart(store: string, applicationId: string, open: () => PartStream): PartStream {
  const span = childSpan('store read', SpanKind.INTERNAL, { 'sluice.application.id': applicationId, 'sluice.store': store });
  return span === undefined ? open() : spanningPart(open(), span);
}

/** A keyed read done at once, in a `store read` span when the query is traced. */
export function storeReadNow<T extends { count: number } | undefined>(store: string, applicationId: string, read: () => T): T {
  const span = childSpan('store read', SpanKind.INTERNAL, { 'sluice.application.id': applicationId, 'sluice.store': store, 'sluice.query.keyed': true });
  if (span === undefined) return read();
  let records = 0;
  try {
    const chunk = read();
    records = chunk?.count ?? 0;
    return chunk;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    endPartSpan(span, undefined, records);
  }
}
