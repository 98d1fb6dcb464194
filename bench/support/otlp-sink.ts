/** An OTLP/HTTP sink for the benchmarks: answers exports as a collector does, counts them and keeps nothing. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  readonly endpoint: string;
  readonly received: { traces: number; metrics: number };
  close(): void;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const received = { traces: 0, metrics: 0 };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/v1/traces') received.traces++;
      if (request.url === '/v1/metrics') received.metrics++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}
