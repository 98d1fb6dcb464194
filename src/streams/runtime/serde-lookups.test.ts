/**
 * A thread's look-ups through a Schema Registry that stops answering (the in-process registry double): the executor
 * holds the record and tells the outage once, and when it ends. The task is a stand-in that read through a real registry serde: what StreamTask adds is tested through the
 * topology test driver (registry-serde-records.test.ts).
 */
import type { Schema } from 'avsc';
import pino from 'pino';
import { SerdeNotReady } from '../../errors';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { createThreadMetrics } from '../metrics/streams-metrics';
import type { Serde } from '../serdes/serde';
import { SchemaRegistrySerdes } from '../serdes/schema-registry';
import { RegistryDouble } from '../serdes/schema-registry/testing/registry-double';
import type { ConsumedRecord } from './consumed-record';
import { KafkaRecordCollector } from './kafka-record-collector';
import { PartitionPositions } from './partition-positions';
import { LookupOutages } from './serde-lookups';
import type { StreamTask } from './task';
import { TaskExecutor } from './task-executor';
import { ActiveTask } from './task-manager';

const ORDER: Schema = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }] };
const ORDER_V2: Schema = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }, { name: 'note', type: 'string', default: '' }] };

interface Order {
  id: string;
}

/** A logger whose lines the test reads. */
function capturedLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

const warnings = (lines: Record<string, unknown>[]) => lines.filter((l) => l.level === 40);
const infos = (lines: Record<string, unknown>[]) => lines.filter((l) => l.level === 30);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LookupOutages', () => {
  const notReady = (cause?: Error) => new SerdeNotReady('the Schema Registry at http://registry does not answer for schema id 7', Promise.resolve(), { lookingUp: { schemaId: 7 }, cause });

  it('tells the first wait of an outage, once, without a stack, and when a look-up that waited is answered; a look-up under way is no outage', () => {
    const { logger, lines } = capturedLogger();
    const outages = new LookupOutages(logger);
    outages.waiting(notReady(), Date.now());
    expect(lines).toEqual([]);
    const waiting = notReady(new Error('connect ECONNREFUSED 127.0.0.1:8081'));
    waiting.record = { topic: 'orders', partition: 2, offset: 40 };
    outages.waiting(waiting, Date.now() - 2_000, { task: '0_2' });
    outages.waiting(notReady(new Error('connect ECONNREFUSED 127.0.0.1:8081')), Date.now());
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'the Schema Registry at http://registry does not answer for schema id 7',
        task: '0_2',
        topic: 'orders',
        partition: 2,
        offset: 40,
        schemaId: 7,
        reason: 'connect ECONNREFUSED 127.0.0.1:8081',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('err');
    outages.answered();
    outages.answered();
    expect(infos(lines)).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^look-ups answer again: processing resumed after waiting 2\.\d s$/) })]);
    expect(infos(lines)[0]!.waitedMs).toBeGreaterThanOrEqual(2_000);
    // The next outage is told again.
    outages.waiting(notReady(new Error('timeout of 30000ms exceeded')), Date.now());
    expect(warnings(lines)).toHaveLength(2);
  });
});

describe('look-ups while the registry does not answer, in a thread', () => {
  const registry = new RegistryDouble();
  let url: string;
  let config: Record<string, unknown>;
  beforeAll(async () => {
    url = await registry.start();
    config = { 'schema.registry.url': url };
  });
  afterAll(() => registry.stop());
  afterEach(() => registry.setDown(false));

  /** Records of `topic` written by another application, with a schema the reader has not seen (a look-up each time). */
  async function writtenByAnother(topic: string, ids: string[], from = 0): Promise<ConsumedRecord[]> {
    const writer = SchemaRegistrySerdes.avro<Order & { note: string }>({ schema: ORDER_V2 });
    await writer.prepare!(topic, config);
    return ids.map((id, i) => ({ topic, partition: 0, offset: from + i, timestamp: from + i, key: null, value: writer.serializeTopic!(topic, undefined, { id, note: '' }), headers: {} }));
  }

  /** A task that reads its records' values through `serde`, as StreamTask's source does (a record not ready is read again). */
  function readingTask(serde: Serde<Order>, read: string[]) {
    const queue: ConsumedRecord[] = [];
    let head = 0;
    return {
      addRecords: (records: readonly ConsumedRecord[]) => void queue.push(...records),
      process: (limit: number) => {
        let n = 0;
        while (head < queue.length && n < limit) {
          const record = queue[head]!;
          try {
            read.push(serde.deserializeTopic!(record.topic, undefined, record.value!).id);
          } catch (error) {
            if (error instanceof SerdeNotReady) error.record = { topic: record.topic, partition: record.partition, offset: record.offset };
            throw error;
          }
          head++;
          n++;
        }
        return n;
      },
      sourceNodeName: () => 'source',
      skipHiddenTo: () => undefined,
    };
  }

  function batchOf(records: ConsumedRecord[]) {
    const last = records[records.length - 1]!;
    return { topic: last.topic, partition: last.partition, messages: records, highWatermark: String(last.offset + 1), lastOffset: () => String(last.offset) };
  }

  it('the executor holds the record through an outage, told once with where and why, and once when it answers, how long it waited', async () => {
    const { logger, lines } = capturedLogger();
    const reader = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
    await reader.prepare!('orders', config);
    const read: string[] = [];
    const metrics = new MetricsRegistry();
    const executor = new TaskExecutor(new PartitionPositions(), createThreadMetrics(metrics, 'thread-1', Date.now()), metrics, 'thread-1', new LookupOutages(logger));
    const created = {
      task: readingTask(reader, read) as unknown as StreamTask,
      output: { collector: new KafkaRecordCollector({ sendBatch: async () => [] }, new Map()) },
      metrics: { restoreRemaining: () => undefined, processed: () => undefined },
      release: () => undefined,
    };
    const active = new ActiveTask({ subtopology: 0, partition: 0 }, '0_0', created, [], [{ topic: 'orders', partition: 0 }]);
    const records = await writtenByAnother('orders', ['a', 'b', 'c']);

    registry.setDown(true);
    const executing = executor.execute(active, batchOf(records) as never, () => false);
    // Attempts at 100, 200, 400 ms… are one outage.
    await sleep(1_000);
    expect(read).toEqual([]);
    expect(warnings(lines)).toEqual([
      expect.objectContaining({ msg: expect.stringContaining(`the Schema Registry at ${url} does not answer for schema id`), topic: 'orders', partition: 0, offset: 0, schemaId: records[0]!.value!.readInt32BE(1) }),
    ]);
    expect(warnings(lines)[0]!.reason).toMatch(/socket hang up|ECONNRESET|ECONNREFUSED/);
    expect(infos(lines)).toEqual([]);

    registry.setDown(false);
    expect(await executing).toBe(true);
    expect(read).toEqual(['a', 'b', 'c']);
    expect(infos(lines)).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^look-ups answer again/) })]);
    expect(infos(lines)[0]!.waitedMs).toBeGreaterThanOrEqual(1_000);
    // A look-up the registry answers at once is no outage: nothing told.
    const more = await writtenByAnother('orders-2', ['d'], 3);
    expect(await executor.execute(active, batchOf(more.map((r) => ({ ...r, topic: 'orders' }))) as never, () => false)).toBe(true);
    expect(read).toEqual(['a', 'b', 'c', 'd']);
    expect(lines).toHaveLength(2);
  });
});
