/**
 * OpenTelemetry in a stream thread that runs in a worker thread (issue 35 item 1): one `sluice start` process with
 * two stream threads, the second in a worker of its own, exporting to the OTLP receiver opentelemetry.test.ts uses,
 * configured by the OTEL_* variables alone. Records sent to a partition the worker holds are processed there: one
 * with a `traceparent` is a span under the writer's, with the node's resource, and leaves with a `traceparent` of the
 * same trace; those without one start traces at the sampler's ratio. The node is stopped as soon as the records are
 * written, within the batch processor's 5 s delay: their spans arrive because the worker exports what is pending as
 * its thread closes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { OtlpReceiver, randomHexId, SPAN_KIND } from '../support/otlp-receiver';
import { outputTopicOf } from './fixtures/cluster-topology';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from './support/sluice-cluster';

const PARTITIONS = 4;
/** Records without a trace context, of which the sampler's ratio (OTEL_TRACES_SAMPLER_ARG) start a trace. */
const UNTRACED = 200;
const RATIO = 0.5;

interface ThreadStatus {
  name: string;
  state: string;
  active_tasks: { task_id: string; topic_partitions: { topic: string; partition: number }[] }[];
}

let build: SluiceBuild | undefined;
beforeAll(async () => {
  build = await buildSluice();
}, 300_000);

describe('OpenTelemetry in a stream thread in a worker thread', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('otel-workers');
  const input = uniqueName('otel-workers-in');
  const output = outputTopicOf(input);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-otel-workers-'));
  let receiver!: OtlpReceiver;
  let node: SluiceNode | undefined;

  beforeAll(async () => {
    process.stderr.write(`otel workers test: node log under ${workDir}\n`);
    receiver = await OtlpReceiver.start();
    const admin = await clients.admin();
    await createTopics(admin, [
      { name: input, partitions: PARTITIONS },
      { name: output, partitions: PARTITIONS },
    ]);
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await clients.close();
    await receiver?.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  it(
    "a record with a traceparent processed in the worker is a span under it, exported with the node's resource, and leaves with the same trace; records without one are sampled at the ratio",
    async () => {
      node = await SluiceNode.start({
        build: build!,
        name: 'node-w',
        bootstrapServers: bootstrapServers().join(','),
        applicationId,
        inputTopic: input,
        workDir,
        streams: { 'num.stream.threads': 2 },
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_SERVICE_NAME: 'sluice-it-workers',
          OTEL_METRICS_EXPORTER: 'none',
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: String(RATIO),
        },
        topology: { alias: 'cluster-queries-out' },
      });
      // The second thread is the worker's (the first stays on the main thread).
      const threads = await eventually(
        'both threads running tasks',
        async () => ((await node!.get(`/api/v1/streams/${applicationId}/status`)).body as { threads: ThreadStatus[] }).threads,
        (found) => found.length === 2 && found.every((thread) => thread.state === 'RUNNING' && thread.active_tasks.length > 0),
        90_000,
      );
      const worker = threads.find((thread) => thread.name.endsWith('-StreamThread-2'))!;
      const [task] = worker.active_tasks;
      const partition = task!.topic_partitions.find((tp) => tp.topic === input)!.partition;

      const consumer = await clients.consumer({ groupId: uniqueName('otel-workers-reader') });
      const written = new Map<string, string | undefined>();
      await consumer.subscribe({ topics: [output], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          written.set(String(message.key), message.headers?.traceparent?.toString());
        },
      });
      const traceId = randomHexId(16);
      const writerSpanId = randomHexId(8);
      const producer = await clients.producer();
      await producer.send({
        topic: input,
        messages: [
          { key: 'traced', value: 'hello', partition, headers: { traceparent: `00-${traceId}-${writerSpanId}-01` } },
          ...Array.from({ length: UNTRACED }, (_, i) => ({ key: `untraced-${i}`, value: `value-${i}`, partition })),
        ],
      });
      try {
        await eventually('every record on the output topic', async () => written.size, (size) => size === UNTRACED + 1, 60_000);
      } finally {
        await consumer.stop();
      }
      // At once: the spans still wait in the worker's batch, which its close exports.
      await node.stop();
      expect(node.running).toBe(false);

      const [version, writtenTraceId, parentSpanId, flags] = written.get('traced')!.split('-');
      expect({ version, writtenTraceId, flags }).toEqual({ version: '00', writtenTraceId: traceId, flags: '01' });
      expect(receiver.refused).toEqual([]);
      const traced = receiver.spans.filter((span) => span.traceId === traceId);
      expect(traced).toHaveLength(1);
      expect(traced[0]).toMatchObject({
        spanId: parentSpanId,
        parentSpanId: writerSpanId,
        name: `process ${input}`,
        kind: SPAN_KIND.consumer,
        attributes: { 'messaging.destination.name': input, 'messaging.destination.partition.id': String(partition), 'sluice.task.id': task!.task_id },
        resource: { 'service.name': 'sluice-it-workers', 'service.instance.id': node.server },
      });

      // The worker's records without a trace context: about half started one, each under the node's resource.
      const started = receiver.spans.filter((span) => span.attributes['sluice.trace.started'] === true && span.attributes['sluice.task.id'] === task!.task_id);
      expect(started.length).toBeGreaterThan(UNTRACED * RATIO * 0.6);
      expect(started.length).toBeLessThan(UNTRACED * RATIO * 1.4);
      expect(started.every((span) => span.parentSpanId === '' && span.resource['service.instance.id'] === node!.server)).toBe(true);
      // Each span's trace id went out with its record.
      const writtenTraces = new Set([...written.values()].map((traceparent) => traceparent?.split('-')[1]));
      expect(started.every((span) => writtenTraces.has(span.traceId))).toBe(true);
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
