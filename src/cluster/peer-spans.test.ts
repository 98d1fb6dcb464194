import { SpanKind, trace } from '@opentelemetry/api';
import { storeReadPart } from '../query/part-spans';
import { drainPart, type PartStream } from '../query/parts';
import type { PeerQuery, PeerQueryHandler } from '../query/peers';
import { startInMemoryTracing, type InMemoryTracing } from '../streams/runtime/testing/in-memory-tracing';
import { PeerClient } from './peer-client';
import { startPeerServer, type PeerServer } from './peer-server';

const query = (clause: string): PeerQuery => ({
  applicationId: 'app',
  store: 'counts',
  allowStale: false,
  maxLag: -1,
  type: 'key_value',
  clause,
  keysJson: clause === 'get' ? { key: '"k"' } : {},
  times: {},
  retries: 0,
  retryBackoffMs: 10,
  limit: -1,
  timeoutMs: 2000,
  positions: [],
});

/** Answers every query with two records read in a `store read` span, as the query layer's does. */
const handler: PeerQueryHandler = {
  answerPeer: () => Promise.resolve({ ok: true, records: [] }),
  streamPeer: () =>
    storeReadPart('counts', 'app', async function* (): PartStream {
      yield { json: '1,2', count: 2 };
      return { ok: true };
    }),
  describeStore: () => undefined,
};

describe('a traced query’s peer calls, with the real SDK on both ends', () => {
  let tracing: InMemoryTracing;
  let server: PeerServer;
  let client: PeerClient;
  let endpoint: string;

  beforeAll(async () => {
    server = await startPeerServer({ host: '127.0.0.1', port: 0, handler });
    endpoint = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server.close(0));
  beforeEach(() => {
    tracing = startInMemoryTracing();
    client = new PeerClient();
  });
  afterEach(async () => {
    client.close();
    await tracing.stop();
  });

  it('the call’s span is under the query’s, the peer’s server span under the call (its context in the traceparent metadata), the read under that', async () => {
    await trace.getTracer('test').startActiveSpan('POST /stores', async (request) => {
      const { chunks, end } = await drainPart(client.streamQuery(endpoint, query('all'), Date.now() + 2000, () => 'unused'));
      expect({ chunks, end }).toEqual({ chunks: [{ json: '1,2', count: 2 }], end: { ok: true } });
      // A keyed query goes by its own call too, so that its context travels in that call's metadata.
      await drainPart(client.keyedQuery(endpoint, query('get'), Date.now() + 2000, () => 'unused'));
      request.end();
    });
    const spans = tracing.exporter.getFinishedSpans();
    const named = (name: string, kind: SpanKind) => spans.filter((span) => span.name === name && span.kind === kind);
    const [request] = named('POST /stores', SpanKind.INTERNAL);
    const calls = named('sluice.peer.v1.PeerService/StreamQuery', SpanKind.CLIENT);
    const served = named('sluice.peer.v1.PeerService/StreamQuery', SpanKind.SERVER);
    const reads = named('store read', SpanKind.INTERNAL);
    expect([calls.length, served.length, reads.length]).toEqual([2, 2, 2]);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    for (const [i, call] of calls.entries()) {
      expect(call.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
      expect(call.attributes).toMatchObject({ 'rpc.system': 'grpc', 'server.address': '127.0.0.1', 'server.port': server.port, 'sluice.store': 'counts', 'sluice.query.records': 2 });
      expect(served[i]!.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(reads[i]!.parentSpanContext?.spanId).toBe(served[i]!.spanContext().spanId);
    }
  });

  it('an untraced query’s call carries no context and makes no span on either end', async () => {
    await drainPart(client.streamQuery(endpoint, query('all'), Date.now() + 2000, () => 'unused'));
    expect(tracing.exporter.getFinishedSpans()).toEqual([]);
  });
});
