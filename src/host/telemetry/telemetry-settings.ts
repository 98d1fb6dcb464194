/**
 * Whether the node exports OpenTelemetry, and how, from the standard `OTEL_*` environment variables alone (no
 * setting of Sluice's own: an operator sets them as for any other service). Off unless an OTLP endpoint is set:
 * then the SDK is never loaded. Read and checked before anything starts, so that a typo fails the start rather than
 * exporting nothing. The exporters read the endpoints and headers themselves: the headers (often a token) are never
 * read, logged or answered here.
 */
import { ConfigException } from '../../errors';

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

const SAMPLERS: readonly SamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

export interface TelemetrySettings {
  /** Spans exported (OTEL_TRACES_EXPORTER not `none`, and an endpoint for them). */
  readonly traces: boolean;
  /** Metrics exported (OTEL_METRICS_EXPORTER not `none`, and an endpoint for them). */
  readonly metrics: boolean;
  /** OTEL_TRACES_SAMPLER, default parentbased_always_on, as the specification's. */
  readonly sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers, in [0, 1]; default 1. */
  readonly ratio: number;
  /** OTEL_METRIC_EXPORT_INTERVAL, ms; default 60000. */
  readonly metricIntervalMs: number;
}

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An endpoint must be an http(s) URL; its text is not repeated, since a URL may carry credentials. */
function checkedEndpoint(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigException(`${name} must be a URL (http:// or https://)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigException(`${name} must be an http:// or https:// URL: Sluice sends OTLP over HTTP`);
  return value;
}

function exporterOn(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = text(env, name)?.toLowerCase();
  if (value === undefined || value === 'otlp') return true;
  if (value === 'none') return false;
  throw new ConfigException(`${name} must be otlp or none, got '${value}'`);
}

/** The settings, or undefined when OpenTelemetry is off. Throws ConfigException on a value it cannot use. */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings | undefined {
  const disabled = text(env, 'OTEL_SDK_DISABLED')?.toLowerCase();
  if (disabled === 'true') return undefined;
  const endpoint = checkedEndpoint(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const tracesEndpoint = checkedEndpoint(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const metricsEndpoint = checkedEndpoint(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  const traces = exporterOn(env, 'OTEL_TRACES_EXPORTER') && (endpoint ?? tracesEndpoint) !== undefined;
  const metrics = exporterOn(env, 'OTEL_METRICS_EXPORTER') && (endpoint ?? metricsEndpoint) !== undefined;
  if (!traces && !metrics) return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL']) {
    const protocol = text(env, name);
    if (protocol !== undefined && protocol !== 'http/json') throw new ConfigException(`${name} must be http/json (Sluice sends OTLP over HTTP as JSON), got '${protocol}'`);
  }
  const sampler = (text(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new ConfigException(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got '${sampler}'`);
  const ratioText = text(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1)) throw new ConfigException(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got '${ratioText}'`);
  const intervalText = text(env, 'OTEL_METRIC_EXPORT_INTERVAL');
  const metricIntervalMs = intervalText === undefined ? 60_000 : Number(intervalText);
  if (!Number.isInteger(metricIntervalMs) || metricIntervalMs < 100) {
    throw new ConfigException(`OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds, at least 100, got '${intervalText}'`);
  }
  return { traces, metrics, sampler, ratio, metricIntervalMs };
}

/** The share of records without a trace context that start a trace: what the root sampler would keep. */
export function recordStartRatio(settings: TelemetrySettings): number {
  switch (settings.sampler) {
    case 'always_on':
    case 'parentbased_always_on':
      return 1;
    case 'always_off':
    case 'parentbased_always_off':
      return 0;
    case 'traceidratio':
    case 'parentbased_traceidratio':
      return settings.ratio;
  }
}
