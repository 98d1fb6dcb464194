/**
 * OpenTelemetry across a cluster (issue 35 item 1, "Must show"): three `sluice start` processes on loopback, one real
 * broker, and an OTLP/HTTP receiver started by this test (integration/support/otlp-receiver.ts, a real HTTP server
 * decoding OTLP's JSON), to which the nodes export as they would to a collector, configured by the standard OTEL_*
 * variables alone. Checked as a user checks a tracing backend: a query's trace has a span on every node, each under
 * the right parent; a record that arrives with a `traceparent` leaves with one of the same trace; the metrics that
 * `/prometheus` shows arrive under the same names.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { OtlpReceiver, randomHexId, SPAN_KIND, type ReceivedSpan } from '../support/otlp-receiver';
import { KV_STORE, outputTopicOf } from './fixtures/cluster-topology';
import { buildSluice, eventually, showingLogsOf, SluiceNode, type SluiceBuild } from './support/sluice-cluster';

const PARTITIONS = 6;
const KEYS = 120;

interface QueryResult {
  status: string;
  result: { total: number; success: { server: string; total: number }[] };
}

let build: SluiceBuild | undefined;
beforeAll(async () => {
  build = await buildSluice();
}, 300_000);

describe('OpenTelemetry over three Sluice processes exporting to an OTLP receiver', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('otel');
  const input = uniqueName('otel-in');
  const output = outputTopicOf(input);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-otel-'));
  const nodes: SluiceNode[] = [];
  let receiver!: OtlpReceiver;
  const storePath = `/api/v1/applications/${applicationId}/stores/${KV_STORE}`;
  const spansOf = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);
  const nodeOf = (span: ReceivedSpan) => span.resource['service.instance.id'];

  beforeAll(async () => {
    process.stderr.write(`otel test: node logs under ${workDir}\n`);
    receiver = await OtlpReceiver.start();
    const admin = await clients.admin();
    await createTopics(admin, [
      { name: input, partitions: PARTITIONS, configs: { 'retention.ms': '-1' } },
      { name: output, partitions: PARTITIONS },
    ]);
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: Array.from({ length: KEYS }, (_, i) => ({ key: `key-${i}`, value: `value-${i}` })) });
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'sluice-it',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    };
    const bootstrap = bootstrapServers().join(',');
    nodes.push(
      ...(await Promise.all(
        ['node-a', 'node-b', 'node-c'].map((name) =>
          SluiceNode.start({ build: build!, name, bootstrapServers: bootstrap, applicationId, inputTopic: input, workDir, env, topology: { alias: 'cluster-queries-out' } }),
        ),
      )),
    );
    const everyServer = nodes.map((node) => node.server).sort();
    for (const node of nodes) {
      await eventually(
        `${node.name} to answer all from the three nodes`,
        async () => (await node.post(storePath, { type: 'key_value', query: { all: {} }, set_options: { retries: 10, retry_backoff_ms: 200 } })).body as QueryResult,
        (result) => result.status === 'SUCCESS' && result.result.total === KEYS && JSON.stringify(result.result.success.map((part) => part.server).sort()) === JSON.stringify(everyServer),
        150_000,
      ).catch(showingLogsOf(nodes));
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await clients.close();
    await receiver?.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  it(
    'one all query is one trace: the HTTP span on the node asked, a peer call to each other node, their server spans, a store read on each node',
    async () => {
      const [asked] = nodes;
      const traceId = randomHexId(16);
      const callerSpanId = randomHexId(8);
      const answer = await fetch(`${asked!.url}${storePath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
        body: JSON.stringify({ type: 'key_value', query: { all: {} } }),
      });
      expect(answer.status).toBe(200);
      const result = (await answer.json()) as QueryResult;
      expect(result.status).toBe('SUCCESS');
      expect(result.result.total).toBe(KEYS);

      // 1 HTTP + 2 peer calls + 2 peer servers + 3 store reads, exported within the batch processor's delay (5 s).
      const spans = await eventually(`the query's 8 spans at the receiver`, async () => spansOf(traceId), (found) => found.length >= 8, 30_000);
      expect(receiver.refused).toEqual([]);
      expect(spans).toHaveLength(8);
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const parentOf = (span: ReceivedSpan) => byId.get(span.parentSpanId);

      const http = spans.filter((span) => span.kind === SPAN_KIND.server && span.attributes['http.request.method'] === 'POST');
      expect(http).toHaveLength(1);
      expect(http[0]).toMatchObject({
        name: 'POST /api/v1/applications/:applicationId/stores/:name',
        parentSpanId: callerSpanId,
        attributes: { 'http.route': '/api/v1/applications/:applicationId/stores/:name', 'http.response.status_code': 200 },
        resource: { 'service.name': 'sluice-it', 'service.instance.id': asked!.server },
      });

      const calls = spans.filter((span) => span.kind === SPAN_KIND.client);
      expect(calls.map((call) => call.name)).toEqual(['sluice.peer.v1.PeerService/StreamQuery', 'sluice.peer.v1.PeerService/StreamQuery']);
      expect(calls.every((call) => parentOf(call) === http[0] && nodeOf(call) === asked!.server)).toBe(true);

      const served = spans.filter((span) => span.kind === SPAN_KIND.server && span !== http[0]);
      expect(served).toHaveLength(2);
      // Each peer's server span is under a call of the node asked, on a node of its own.
      expect(served.every((span) => calls.includes(parentOf(span)!))).toBe(true);
      expect(new Set(served.map(nodeOf))).toEqual(new Set(nodes.slice(1).map((node) => node.server)));

      const reads = spans.filter((span) => span.name === 'store read');
      expect(reads).toHaveLength(3);
      expect(new Set(reads.map(nodeOf))).toEqual(new Set(nodes.map((node) => node.server)));
      for (const read of reads) {
        expect(read.attributes).toMatchObject({ 'sluice.application.id': applicationId, 'sluice.store': KV_STORE });
        // Read here under the HTTP span, or on a peer under that peer's server span.
        expect(parentOf(read)).toBe(nodeOf(read) === asked!.server ? http[0] : served.find((span) => nodeOf(span) === nodeOf(read)));
      }
      // The three records' counts add up to the answer.
      expect(reads.reduce((sum, read) => sum + Number(read.attributes['sluice.query.records']), 0)).toBe(KEYS);
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'a record that arrives with a traceparent is written out with a traceparent of the same trace, under the span of its processing',
    async () => {
      const traceId = randomHexId(16);
      const writerSpanId = randomHexId(8);
      const producer = await clients.producer();
      await producer.send({ topic: input, messages: [{ key: 'traced', value: 'hello', headers: { traceparent: `00-${traceId}-${writerSpanId}-01` } }] });

      const consumer = await clients.consumer({ groupId: uniqueName('otel-reader') });
      const written: { key: string; value: string; traceparent: string | undefined }[] = [];
      await consumer.subscribe({ topics: [output], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (message.key?.toString() !== 'traced') return;
          written.push({ key: 'traced', value: String(message.value), traceparent: message.headers?.traceparent?.toString() });
        },
      });
      try {
        await eventually('the traced record on the output topic', async () => written, (found) => found.length > 0, 60_000);
      } finally {
        await consumer.stop();
      }
      expect(written).toHaveLength(1);
      expect(written[0]!.value).toBe('HELLO');
      const [version, writtenTraceId, parentSpanId, flags] = written[0]!.traceparent!.split('-');
      expect({ version, writtenTraceId, flags }).toEqual({ version: '00', writtenTraceId: traceId, flags: '01' });
      expect(parentSpanId).not.toBe(writerSpanId);

      // The written record's parent is the span of its processing, which is under the writer's.
      const [processed] = await eventually(`the record's span at the receiver`, async () => spansOf(traceId), (found) => found.length > 0, 30_000);
      expect(spansOf(traceId)).toHaveLength(1);
      expect(processed).toMatchObject({
        spanId: parentSpanId,
        parentSpanId: writerSpanId,
        name: `process ${input}`,
        kind: SPAN_KIND.consumer,
        attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': input, 'messaging.consumer.group.name': applicationId },
      });
      expect(nodes.map((node) => node.server)).toContain(nodeOf(processed!));
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'every metric /prometheus shows arrives through OTLP under the same name, from each node',
    async () => {
      for (const node of nodes) {
        const shown = async () => {
          const text = (await node.get('/prometheus')).body as string;
          return [...new Set(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.split(/[{ ]/, 1)[0]!))];
        };
        const names = await shown();
        expect(names.some((name) => name.startsWith('streams_'))).toBe(true);
        await eventually(
          `${node.name}'s metrics at the receiver`,
          async () => {
            const exported = new Set(receiver.metrics.filter((metric) => metric.resource['service.instance.id'] === node.server).map((metric) => metric.name));
            return names.filter((name) => !exported.has(name));
          },
          (missing) => missing.length === 0,
          30_000,
        );
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
