/**
 * OpenTelemetry's SDK for the node, loaded (by `import()`) only when telemetry-settings.ts says it is on: a tracer
 * provider exporting spans over OTLP/HTTP, sampled as OTEL_TRACES_SAMPLER says, with W3C trace context as the
 * propagator and an AsyncLocalStorage context manager (the API's globals, which every layer's spans go through); and
 * a meter provider exporting the Prometheus metrics (prometheus-producer.ts) every OTEL_METRIC_EXPORT_INTERVAL. The
 * exporters read their endpoints, headers, timeouts and compression from the OTEL_EXPORTER_OTLP_* variables (a
 * stream thread's worker reads them from its copy of the process' environment: only the settings, which hold no
 * endpoint or header, are handed to it).
 */
import { context, diag, DiagLogLevel, metrics, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { TRACE_STARTED_ATTRIBUTE } from '../../streams/runtime/record-tracing';
import { SLUICE_VERSION } from '../../streams/runtime/sluice-version';
import type { TracerSource, WorkerTracer } from '../../streams/runtime/worker/worker-tracing';
import { prometheusProducer, type PrometheusSources } from './prometheus-producer';
import type { SamplerName, TelemetrySettings } from './telemetry-settings';

export interface TelemetryOptions {
  /** `service.instance.id`: the node's application.server, which tells the nodes of one trace apart. */
  readonly instanceId: string;
  /** What the metrics export reads; none where metrics are not exported. */
  readonly metrics?: PrometheusSources;
  /** Where the SDK's own complaints go (an export that failed), at warn. */
  readonly logger: Logger;
}

export interface Telemetry extends WorkerTracer {
  /** Exports what is pending, then stops the providers. */
  shutdown(): Promise<void>;
  /** How a stream thread's worker starts the same tracer provider (startWorkerTracer); none when spans are not exported. */
  readonly workerTracer?: TracerSource;
}

/** This module, for a stream thread's worker to load. */
const TELEMETRY_SDK_MODULE = __filename;

/**
 * In a stream thread's worker, whose isolate has API globals of its own: the node's tracer provider, from the same
 * settings and instance id, so that the worker's spans are sampled, described and exported as the main thread's. Its
 * metrics are not exported here: they reach the main thread's registry, which exports them.
 */
export function startWorkerTracer(logger: Logger, settings: TelemetrySettings, instanceId: string): Telemetry {
  return startTelemetry({ ...settings, metrics: false }, { instanceId, logger });
}

/**
 * A record's span that started its trace was sampled already, by RecordTracing at the root sampler's ratio: kept as
 * it is, not decided a second time (which would square the ratio). Every other span as the configured sampler says.
 */
export function keepingStartedRecords(inner: Sampler): Sampler {
  return {
    shouldSample: (context, traceId, name, kind, attributes, links) =>
      attributes[TRACE_STARTED_ATTRIBUTE] === true ? { decision: SamplingDecision.RECORD_AND_SAMPLED } : inner.shouldSample(context, traceId, name, kind, attributes, links),
    toString: () => `KeepingStartedRecords{${inner.toString()}}`,
  };
}

function sampler(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** service.name `sluice` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise. */
function resource(instanceId: string): Resource {
  return resourceFromAttributes({ 'service.name': 'sluice', 'service.version': SLUICE_VERSION, 'service.instance.id': instanceId }).merge(
    detectResources({ detectors: [envDetector] }),
  );
}

/** The SDK's diagnostics, warnings and errors only, as the node's log lines. */
function diagnostics(logger: Logger): DiagLogger {
  const line = (level: 'warn' | 'error') => (message: string, ...args: unknown[]) => logger[level]({ details: args.map(String) }, `OpenTelemetry: ${message}`);
  const quiet = () => undefined;
  return { error: line('error'), warn: line('warn'), info: quiet, debug: quiet, verbose: quiet };
}

export function startTelemetry(settings: TelemetrySettings, options: TelemetryOptions): Telemetry {
  diag.setLogger(diagnostics(options.logger), DiagLogLevel.WARN);
  const described = resource(options.instanceId);
  let tracerProvider: TracerProvider | undefined;
  if (settings.traces) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    tracerProvider = new TracerProvider({
      resource: described,
      sampler: keepingStartedRecords(sampler(settings.sampler, settings.ratio)),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
    });
    trace.setGlobalTracerProvider(tracerProvider);
  }
  let meterProvider: MeterProvider | undefined;
  if (settings.metrics && options.metrics !== undefined) {
    meterProvider = new MeterProvider({
      resource: described,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter(),
          exportIntervalMillis: settings.metricIntervalMs,
          exportTimeoutMillis: Math.min(30_000, settings.metricIntervalMs),
          metricProducers: [prometheusProducer(options.metrics)],
        }),
      ],
    });
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    ...(settings.traces ? { workerTracer: { module: TELEMETRY_SDK_MODULE, export: startWorkerTracer.name, args: [settings, options.instanceId] } } : {}),
    async shutdown() {
      await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
