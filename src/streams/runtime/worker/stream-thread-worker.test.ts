/**
 * A worker whose records are not traced loads no OpenTelemetry SDK: its modules (the worker's entry and everything
 * it imports) reach only the API; the SDK comes with the tracer a traced worker is told to start (worker-tracing.ts).
 * Each SDK package is wrapped to note when it is first required.
 */
const mockLoaded: string[] = [];
jest.mock('@opentelemetry/sdk-trace', () => (mockLoaded.push('@opentelemetry/sdk-trace'), jest.requireActual('@opentelemetry/sdk-trace')));
jest.mock('@opentelemetry/sdk-metrics', () => (mockLoaded.push('@opentelemetry/sdk-metrics'), jest.requireActual('@opentelemetry/sdk-metrics')));
jest.mock('@opentelemetry/exporter-trace-otlp-http', () => (mockLoaded.push('@opentelemetry/exporter-trace-otlp-http'), jest.requireActual('@opentelemetry/exporter-trace-otlp-http')));
jest.mock('@opentelemetry/context-async-hooks', () => (mockLoaded.push('@opentelemetry/context-async-hooks'), jest.requireActual('@opentelemetry/context-async-hooks')));
jest.mock('@opentelemetry/resources', () => (mockLoaded.push('@opentelemetry/resources'), jest.requireActual('@opentelemetry/resources')));

describe("the stream thread worker's modules", () => {
  it('load no OpenTelemetry SDK', () => {
    // Every import is evaluated before the entry finds it is not in a worker.
    expect(() => require('./stream-thread-worker')).toThrow('runs only as a worker thread');
    expect(mockLoaded).toEqual([]);
  });
});
