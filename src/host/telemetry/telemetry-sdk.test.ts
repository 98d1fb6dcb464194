import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { TRACE_STARTED_ATTRIBUTE } from '../../streams/runtime/record-tracing';
import { keepingStartedRecords } from './telemetry-sdk';
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
