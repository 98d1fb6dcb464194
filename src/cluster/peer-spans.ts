/**
 * A traced query's peer calls (OpenTelemetry): the calling node's client span, whose W3C trace context goes in the
 * call's metadata (`traceparent`, `tracestate`), and the called node's server span under it, under which that node's
 * store reads are. Nothing is made for a query that is not traced (tracing off, or not sampled), nor for a call
 * whose metadata carries no trace context.
 */
import type * as grpc from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { childSpan } from '../query/part-spans';
import type { PeerQuery } from '../query/peers';
import { sluiceTracer } from '../streams/runtime/sluice-tracer';

/** The peer service's full name, as OpenTelemetry's RPC conventions name a method: `<service>/<method>`. */
const SERVICE = 'sluice.peer.v1.PeerService';

const METADATA_SETTER: TextMapSetter<grpc.Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

const METADATA_GETTER: TextMapGetter<grpc.Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

function queryAttributes(method: string, query: PeerQuery) {
  return {
    'rpc.system': 'grpc',
    'rpc.service': SERVICE,
    'rpc.method': method,
    'sluice.application.id': query.applicationId,
    'sluice.store': query.store,
    'sluice.query.clause': `${query.type}.${query.clause}`,
  };
}

/** Whether the query being run is traced: its peer calls then carry its context. */
export function isTraced(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

/**
 * The client span of a call to a peer, its context put in `metadata`; undefined (and `metadata` as it was) when the
 * query is not traced.
 */
export function peerCallSpan(method: string, grpcEndpoint: string, query: PeerQuery, metadata: grpc.Metadata): Span | undefined {
  const separator = grpcEndpoint.lastIndexOf(':');
  const span = childSpan(`${SERVICE}/${method}`, SpanKind.CLIENT, {
    ...queryAttributes(method, query),
    'server.address': grpcEndpoint.slice(0, separator).replace(/^\[|\]$/g, ''),
    'server.port': Number(grpcEndpoint.slice(separator + 1)),
  });
  if (span !== undefined) propagation.inject(trace.setSpan(context.active(), span), metadata, METADATA_SETTER);
  return span;
}

/**
 * The server span of a call from a peer, under the context its metadata carries, and the context to answer it in;
 * undefined when the metadata carries none (the caller does not trace this query, or tracing is off here).
 */
export function peerServerSpan(method: string, metadata: grpc.Metadata, query: PeerQuery): { span: Span; context: Context } | undefined {
  if (metadata.get('traceparent').length === 0) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, metadata, METADATA_GETTER);
  if (trace.getSpanContext(parent) === undefined) return undefined;
  // The caller's span is remote, never recording here: the sampler decides by its sampled flag.
  const span = sluiceTracer().startSpan(`${SERVICE}/${method}`, { kind: SpanKind.SERVER, attributes: queryAttributes(method, query) }, parent);
  if (span.isRecording()) return { span, context: trace.setSpan(parent, span) };
  span.end();
  return undefined;
}
