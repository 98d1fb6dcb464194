/**
 * The real OpenTelemetry SDK for unit tests, its spans kept in memory: registered as the API's globals (tracer
 * provider, W3C propagator, AsyncLocalStorage context manager) as the host registers them, and undone after.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';

export interface InMemoryTracing {
  readonly exporter: InMemorySpanExporter;
  /** Unregisters the globals. */
  stop(): Promise<void>;
}

export function startInMemoryTracing(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    exporter,
    async stop() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
