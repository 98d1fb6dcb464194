/**
 * A node without OTEL_* endpoints never loads OpenTelemetry's SDK (only its API, a few no-op objects); with one, it
 * loads it and registers its tracer provider. Each SDK package is wrapped to note when it is first required.
 */
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { SluiceHost } from '../host';
import { fakeRuntimes } from '../testing/fake-runtime';
import { testServerConfig } from '../testing/server-config';

const mockLoaded: string[] = [];
jest.mock('@opentelemetry/sdk-trace', () => (mockLoaded.push('@opentelemetry/sdk-trace'), jest.requireActual('@opentelemetry/sdk-trace')));
jest.mock('@opentelemetry/sdk-metrics', () => (mockLoaded.push('@opentelemetry/sdk-metrics'), jest.requireActual('@opentelemetry/sdk-metrics')));
jest.mock('@opentelemetry/exporter-trace-otlp-http', () => (mockLoaded.push('@opentelemetry/exporter-trace-otlp-http'), jest.requireActual('@opentelemetry/exporter-trace-otlp-http')));
jest.mock('@opentelemetry/context-async-hooks', () => (mockLoaded.push('@opentelemetry/context-async-hooks'), jest.requireActual('@opentelemetry/context-async-hooks')));
jest.mock('@opentelemetry/core', () => (mockLoaded.push('@opentelemetry/core'), jest.requireActual('@opentelemetry/core')));

async function startHost(env: NodeJS.ProcessEnv): Promise<SluiceHost> {
  return SluiceHost.start({
    config: {
      server: testServerConfig(),
      log: { level: 'silent' },
      streams: { 'bootstrap.servers': 'localhost:9092' },
      topologies: [],
      instances: [],
      shutdownTimeoutMs: 1000,
    },
    logger: pino({ level: 'silent' }),
    createRuntime: fakeRuntimes().factory,
    env,
  });
}

describe('loading OpenTelemetry’s SDK', () => {
  it('a node without an OTLP endpoint never loads it, and its spans are the API’s no-ops', async () => {
    const host = await startHost({ OTEL_SERVICE_NAME: 'orders' });
    try {
      expect(mockLoaded).toEqual([]);
      expect(trace.getTracer('sluice').startSpan('probe').isRecording()).toBe(false);
    } finally {
      await host.stop();
    }
  });

  it('a node with one loads it, registers its tracer provider, and unregisters it as it stops', async () => {
    // A port nothing listens on: the exports fail, which the node logs and rides out.
    const host = await startHost({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_METRICS_EXPORTER: 'none' });
    try {
      expect(mockLoaded).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/context-async-hooks']));
      expect(trace.getTracer('sluice').startSpan('probe').isRecording()).toBe(true);
    } finally {
      await host.stop();
    }
    expect(trace.getTracer('sluice').startSpan('probe').isRecording()).toBe(false);
  });
});
