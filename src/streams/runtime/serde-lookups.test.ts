/**
 * A thread's look-ups through a Schema Registry that stops answering (the in-process registry double): the executor
 * holds the record and tells the outage once, and when it ends; a task created meanwhile waits, its serdes asked
 * again, while the thread's other tasks run; a registry refusing the credentials fails the task that prepares.
 * The tasks are stand-ins that read through a real registry serde: what StreamTask adds is tested through the
 * topology test driver (registry-serde-records.test.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Schema } from 'avsc';
import pino from 'pino';
import { SerdeNotReady } from '../../errors';
import { type FetchedRecordList, RecordArray } from '../kafka';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { createThreadMetrics } from '../metrics/streams-metrics';
import type { Serde } from '../serdes/serde';
import { SchemaRegistrySerdes } from '../serdes/schema-registry';
import { RegistryDouble } from '../serdes/schema-registry/testing/registry-double';
import { Topology } from '../topology/topology';
import { Committer } from './committer';
import type { ConsumedRecord } from './consumed-record';
import { KafkaRecordCollector } from './kafka-record-collector';
import { ProduceBuffer } from './produce-buffer';
import { PartitionPositions } from './partition-positions';
import { LookupOutages } from './serde-lookups';
import { StateDirectory } from './state-directory';
import type { StreamTask } from './task';
import { TaskCheckpoints } from './task-checkpoints';
import { TaskExecutor } from './task-executor';
import { taskIdToString, type TaskId } from './task-id';
import { ActiveTask, type CreatedTask, TaskManager } from './task-manager';
import { TopologyMetadata } from './topology-metadata';

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

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
  afterEach(() => {
    registry.setDown(false);
    registry.setUsers(undefined);
  });

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
      addRecords: (records: FetchedRecordList) => {
        for (let i = 0; i < records.length; i++) queue.push(records.recordAt(i));
      },
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
    return { topic: last.topic, partition: last.partition, messages: records, records: new RecordArray(last.topic, last.partition, records), highWatermark: String(last.offset + 1), lastOffset: () => String(last.offset) };
  }

  it('the executor holds the record through an outage, told once with where and why, and once when it answers, how long it waited', async () => {
    const { logger, lines } = capturedLogger();
    const reader = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
    await reader.prepare!('orders', config);
    const read: string[] = [];
    const metrics = new MetricsRegistry();
    const executor = new TaskExecutor(new PartitionPositions(), createThreadMetrics(metrics, 'thread-1', Date.now()), metrics, 'thread-1', new LookupOutages(logger), new ProduceBuffer(32 * 1024 * 1024));
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

  describe('a task whose serdes prepare while the registry is out of reach', () => {
    let stateDir: string;
    beforeEach(() => {
      stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-serde-lookups-'));
    });
    afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

    /**
     * Sub-topology 0 reads `topic` through a registry serde, 1 reads `other` with none. Each test has a topic of its
     * own: the registry client remembers what it registered.
     */
    function manager(topic: string, prepared: (taskId: string, error?: unknown) => void) {
      const { logger, lines } = capturedLogger();
      const metadata = new TopologyMetadata(new Topology().addSource('source', topic).addSource('other-source', 'other'), 'app');
      const directory = new StateDirectory(stateDir, 'app');
      const checkpoints = new TaskCheckpoints(directory, false);
      const serde = SchemaRegistrySerdes.avro<Order>({ schema: ORDER });
      const createTask = async (id: TaskId): Promise<CreatedTask> => {
        const task = {
          id,
          name: taskIdToString(id),
          stores: new Map(),
          prepareSerdes: () => (id.subtopology === 0 ? serde.prepare!(topic, config) : Promise.resolve()),
          initializeStores: () => undefined,
          initializeProcessors: () => undefined,
          flushStores: async () => undefined,
          closeStores: async () => undefined,
          close: async () => undefined,
          consumedPositions: () => [],
          prepareCommit: () => undefined,
        };
        return {
          task: task as unknown as StreamTask,
          output: { collector: new KafkaRecordCollector({ sendBatch: async () => [] }, new Map()) },
          metrics: { restoreRemaining: () => undefined, processed: () => undefined },
          release: () => undefined,
        };
      };
      const tasks = new TaskManager({
        metadata,
        stateDirectory: directory,
        checkpoints,
        committer: new Committer(async () => undefined, new PartitionPositions(), checkpoints, { exactlyOnce: false, taskTimeoutMs: 1_000, logger }),
        restorer: { register: () => undefined, unregister: () => undefined, takeCheckpoint: () => [] },
        owner: 'thread-1',
        lockWaitMs: 1_000,
        logger,
        outages: new LookupOutages(logger),
        onTaskPrepared: prepared,
        createTask,
      });
      return { tasks, lines };
    }

    it('waits, told once, while the thread runs its other tasks, and runs once the registry answers', async () => {
      const prepared: string[] = [];
      const { tasks, lines } = manager('shipments', (taskId, error) => void prepared.push(error === undefined ? taskId : String(error)));
      registry.setDown(true);
      const { created } = await tasks.handleAssignment([
        { topic: 'shipments', partition: 0 },
        { topic: 'other', partition: 0 },
      ]);
      expect(created.map((t) => t.name)).toEqual(['0_0', '1_0']);
      expect(await tasks.finishRestoring('1_0')).toEqual([{ topic: 'other', partition: 0 }]);
      expect(await tasks.finishRestoring('0_0')).toBeUndefined();
      await sleep(800);
      expect(prepared).toEqual([]);
      expect(tasks.running('0_0')).toBeUndefined();
      expect(warnings(lines)).toEqual([
        expect.objectContaining({ msg: `the Schema Registry at ${url} does not answer for subject 'shipments-value'; trying again (attempt 2)`, task: '0_0', subject: 'shipments-value' }),
      ]);

      registry.setDown(false);
      await until(() => prepared.length > 0, 'the task prepared');
      expect(prepared).toEqual(['0_0']);
      expect(await tasks.finishPreparing('0_0')).toEqual([{ topic: 'shipments', partition: 0 }]);
      expect(tasks.running('0_0')).toBeDefined();
      expect(infos(lines)).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^look-ups answer again/) })]);
      await tasks.closeAll(true);
    });

    it('stops asking once the task is closed', async () => {
      const prepared: string[] = [];
      const { tasks } = manager('refunds', (taskId) => void prepared.push(taskId));
      registry.setDown(true);
      await tasks.handleAssignment([{ topic: 'refunds', partition: 1 }]);
      await tasks.handleAssignment([]);
      registry.setDown(false);
      await sleep(600);
      expect(prepared).toEqual([]);
    });

    it('fails it when the registry refuses the credentials, after three tries, with a configuration error', async () => {
      let failure: unknown;
      const { tasks, lines } = manager('payments', (_taskId, error) => void (failure = error));
      registry.setUsers(['someone:else']);
      await tasks.handleAssignment([{ topic: 'payments', partition: 2 }]);
      await until(() => failure !== undefined, 'the task failed');
      expect(failure).toMatchObject({
        exception: 'ConfigException',
        message: `Invalid configuration: the Schema Registry at ${url} refused the credentials (HTTP 401) for subject 'payments-value': check basic.auth.user.info`,
      });
      // The tries before are told as they are.
      expect(warnings(lines)).toEqual([expect.objectContaining({ msg: `the Schema Registry at ${url} refused the request for subject 'payments-value'; trying again (attempt 2)` })]);
      await tasks.closeAll(false);
    });
  });
});
