import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { TRACE_STARTED_ATTRIBUTE } from '../../streams/runtime/record-tracing';
import { loadExport } from '../../streams/runtime/worker/topology-source';
import type { WorkerTracer } from '../../streams/runtime/worker/worker-tracing';
import { keepingStartedRecords, startTelemetry } from './telemetry-sdk';
import { recordStartRatio, telemetrySettings } from './telemetry-settings';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('the sampler of the node’s tracer provider', () => {
  it('keeps a record’s span that started its trace (sampled already, at the root sampler’s ratio); asks the configured sampler of the rest', () => {
    const sampler = keepingStartedRecords(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const decide = (attributes: Record<string, boolean>) => sampler.shouldSample(ROOT_CONTEXT, TRACE_ID, 'process orders', SpanKind.CONSUMER, attributes, []).decision;
    expect(decide({ [TRACE_STARTED_ATTRIBUTE]: true })).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({})).toBe(SamplingDecision.NOT_RECORD);
    expect(String(keepingStartedRecords(new TraceIdRatioBasedSampler(0.5)))).toContain('TraceIdRatioBased');
  });

  it('records start traces at the ratio the root sampler would keep', () => {
    const ratio = (env: NodeJS.ProcessEnv) => recordStartRatio(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env })!);
    expect(ratio({})).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(0);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' })).toBe(0.01);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBe(0.25);
  });
});

describe('the tracer provider of a stream thread’s worker', () => {
  const logger = pino({ level: 'silent' });
  // A port nothing listens on; no span is ended, so nothing is exported.
  const settingsOf = (env: NodeJS.ProcessEnv) => telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ...env })!;

  it('is named, when spans are exported, by this module, its function, and the settings and instance id, which hold no endpoint or header', async () => {
    const settings = settingsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer secret', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    const telemetry = startTelemetry(settings, { instanceId: 'node-a:8080', logger });
    await telemetry.shutdown();
    expect(telemetry.workerTracer).toEqual({ module: require.resolve('./telemetry-sdk'), export: 'startWorkerTracer', args: [settings, 'node-a:8080'] });
    expect(JSON.stringify(telemetry.workerTracer)).not.toMatch(/secret|127\.0\.0\.1/);

    const metricsOnly = startTelemetry(settingsOf({ OTEL_TRACES_EXPORTER: 'none' }), { instanceId: 'node-a:8080', logger });
    await metricsOnly.shutdown();
    expect(metricsOnly.workerTracer).toBeUndefined();
  });

  it('started as a worker starts it, registers a tracer provider whose spans carry the node’s resource, until it shuts down', async () => {
    const resourceOfSpans = () => (trace.getTracer('sluice').startSpan('probe') as unknown as ReadableSpan).resource.attributes;
    const main = startTelemetry(settingsOf({}), { instanceId: 'node-a:8080', logger });
    const nodeResource = resourceOfSpans();
    await main.shutdown();
    // As the worker gets it: structured-cloned, then loaded by its module and name.
    const source = structuredClone(main.workerTracer!);
    const tracer = loadExport<(logger: pino.Logger, ...args: unknown[]) => WorkerTracer>(source.module, source.export)(logger, ...source.args);
    try {
      expect(resourceOfSpans()).toEqual(nodeResource);
      expect(nodeResource).toMatchObject({ 'service.instance.id': 'node-a:8080' });
    } finally {
      await tracer.shutdown();
    }
    expect(trace.getTracer('sluice').startSpan('probe').isRecording()).toBe(false);
  });
});
