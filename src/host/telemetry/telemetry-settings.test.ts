import { ConfigException } from '../../errors';
import { telemetrySettings } from './telemetry-settings';

const ENDPOINT = 'http://collector:4318';

describe('OpenTelemetry settings from the OTEL_* variables', () => {
  it('are off without an OTLP endpoint, or with OTEL_SDK_DISABLED, or with both exporters none', () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(telemetrySettings({ OTEL_SERVICE_NAME: 'orders', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
  });

  it('are on with an endpoint: the specification’s defaults, or what the variables say', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toEqual({
      traces: true,
      metrics: true,
      sampler: 'parentbased_always_on',
      ratio: 1,
      metricIntervalMs: 60_000,
    });
    expect(
      telemetrySettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces`,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ traces: true, metrics: false, sampler: 'parentbased_traceidratio', ratio: 0.01, metricIntervalMs: 60_000 });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '5000' })).toMatchObject({
      traces: false,
      metrics: true,
      metricIntervalMs: 5000,
    });
  });

  it('refuse what they cannot use, naming the variable, never repeating an endpoint (it may hold credentials)', () => {
    const refused = (env: NodeJS.ProcessEnv) => {
      try {
        telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigException);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ OTEL_TRACES_SAMPLER: 'sometimes' })).toMatch(/OTEL_TRACES_SAMPLER must be one of always_on/);
    expect(refused({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toMatch(/OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
    expect(refused({ OTEL_TRACES_EXPORTER: 'jaeger' })).toMatch(/OTEL_TRACES_EXPORTER must be otlp or none/);
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/json/);
    expect(refused({ OTEL_METRIC_EXPORT_INTERVAL: 'often' })).toMatch(/OTEL_METRIC_EXPORT_INTERVAL must be a whole number/);
    const secret = 'grpc://user:s3cret@collector:4317';
    const message = refused({ OTEL_EXPORTER_OTLP_ENDPOINT: secret });
    expect(message).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
    expect(message).not.toContain('s3cret');
  });
});
