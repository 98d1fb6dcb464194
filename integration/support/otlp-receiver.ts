/**
 * An OTLP/HTTP receiver in the test's process, as a collector would be: a real HTTP server on loopback that takes
 * `POST /v1/traces` and `POST /v1/metrics` in OTLP's JSON encoding (ids as hex, values as `AnyValue`s) and keeps
 * the spans and metric names it was sent, for the test to read as a user reads a tracing backend.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

/** OTLP's SpanKind values the tests look for. */
export const SPAN_KIND = { server: 2, client: 3, consumer: 5 } as const;

/** A random trace id (16 bytes) or span id (8), in hex as W3C trace context writes it. */
export const randomHexId = (bytes: 16 | 8): string => randomBytes(bytes).toString('hex');

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** The resource's attributes: service.name, service.instance.id (the node). */
  resource: Record<string, string | number | boolean>;
}

export interface ReceivedMetric {
  name: string;
  resource: Record<string, string | number | boolean>;
}

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

interface TracesRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: KeyValue[] }[] }[];
  }[];
}
interface MetricsRequest {
  resourceMetrics?: { resource?: { attributes?: KeyValue[] }; scopeMetrics?: { metrics?: { name: string }[] }[] }[];
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly metrics: ReceivedMetric[] = [];
  /** Requests that were not OTLP/JSON, with why: none are expected. */
  readonly refused: string[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = http.createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request, response) => receiver.receive(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: the exporters append /v1/traces and /v1/metrics. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const refuse = (why: string) => {
        this.refused.push(`${request.method} ${request.url}: ${why}`);
        response.writeHead(400, { 'content-type': 'application/json' }).end('{}');
      };
      if (request.method !== 'POST') return refuse('not a POST');
      if (!String(request.headers['content-type']).startsWith('application/json')) return refuse(`content-type ${request.headers['content-type']}`);
      let body: unknown;
      try {
        body = JSON.parse((request.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8'));
      } catch (error) {
        return refuse(`not JSON: ${(error as Error).message}`);
      }
      if (request.url === '/v1/traces') this.takeSpans(body as TracesRequest);
      else if (request.url === '/v1/metrics') this.takeMetrics(body as MetricsRequest);
      else return refuse('unknown path');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }

  private takeSpans(body: TracesRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributes(span.attributes),
            resource,
          });
        }
      }
    }
  }

  private takeMetrics(body: MetricsRequest): void {
    for (const resourceMetrics of body.resourceMetrics ?? []) {
      const resource = attributes(resourceMetrics.resource?.attributes);
      for (const scope of resourceMetrics.scopeMetrics ?? []) {
        for (const metric of scope.metrics ?? []) this.metrics.push({ name: metric.name, resource });
      }
    }
  }
}
