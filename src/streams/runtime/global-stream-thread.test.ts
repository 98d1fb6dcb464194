import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { EARLIEST, type FetchedPartition, type ChangelogRecord, NULL_KEY, OffsetOutOfRange, type ReadPosition } from '../kafka';
import { RecordList } from '../kafka/testing/record-list';
import { StreamsBuilder } from '../kstream/streams-builder';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { Serdes } from '../serdes/serdes';
import type { ReadOnlyKeyValueStore } from '../state/store';
import type { ChangelogSource } from './changelog-restorer';
import { GLOBAL_TASK, GlobalStreamThread } from './global-stream-thread';
import { StateDirectory } from './state-directory';
import { parseStreamsConfig } from './streams-config';
import { TaskCheckpoints } from './task-checkpoints';
import { TopologyMetadata } from './topology-metadata';

const TOPIC = 'customers';

/** A topic in memory, per partition its records (key null: none) from its log start on, read from any offset. */
class FakeTopic implements ChangelogSource {
  readonly partitions: { key: string | null; value: string | null }[][] = [[], []];
  /** Per partition, the offsets below are deleted (they still hold their place in `partitions`). */
  readonly logStart = [0, 0];
  readonly fetches: ReadPosition[][] = [];
  fetchBytes = 50 * 1024 * 1024;

  limitFetch(bytes: number): void {
    this.fetchBytes = bytes;
  }

  async fetch(positions: readonly ReadPosition[]): Promise<FetchedPartition[]> {
    await new Promise((resolve) => setImmediate(resolve));
    this.fetches.push(positions.map((p) => ({ ...p })));
    const outOfRange = positions.find((p) => p.offset !== EARLIEST && p.offset < this.logStart[p.partition]!);
    if (outOfRange) throw new OffsetOutOfRange(outOfRange.topic, outOfRange.partition, outOfRange.offset);
    return positions.map(({ topic, partition, offset }) => {
      const log = this.partitions[partition]!;
      const from = offset === EARLIEST ? this.logStart[partition]! : offset;
      const records: ChangelogRecord[] = log.slice(from).map((r, i) => ({
        key: r.key === null ? NULL_KEY : Buffer.from(r.key),
        value: r.value === null ? null : Buffer.from(r.value),
        timestamp: 1000 + from + i,
        offset: from + i,
      }));
      const end = log.length;
      return { topic, partition, errorCode: 0, highWatermark: end, lastStableOffset: end, logStartOffset: 0, endOffset: end, records: new RecordList(records), fetchOffset: from, nextOffset: end };
    });
  }

  async close(): Promise<void> {}
}

function customersTable(): StreamsBuilder {
  const builder = new StreamsBuilder();
  const customers = builder.globalTable<string, string>(TOPIC, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { storeName: 'customers-store' });
  builder.stream<string, string>('orders').leftJoin(customers, (_id, customer) => customer, (_customer, name) => name).to('enriched');
  return builder;
}

describe('GlobalStreamThread', () => {
  const logger = pino({ level: 'silent' });
  let stateDir: string;
  let topic: FakeTopic;

  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-global-'));
    topic = new FakeTopic();
  });

  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  function thread(restored: { store: string; remaining: number }[] = []): GlobalStreamThread {
    const config = parseStreamsConfig({ 'application.id': 'enrich', 'bootstrap.servers': 'localhost:9092', 'state.dir': stateDir, 'commit.interval.ms': 60_000 });
    const stateDirectory = new StateDirectory(stateDir, 'enrich');
    return new GlobalStreamThread({
      config,
      topology: customersTable().build(),
      stateDirectory,
      cacheBytes: 0,
      checkpoints: new TaskCheckpoints(stateDirectory, false, logger),
      source: topic,
      defaultKeySerde: Serdes.String(),
      defaultValueSerde: Serdes.String(),
      metrics: new MetricsRegistry(),
      clientId: 'enrich-1',
      logger,
      onRestore: (store, progress) => restored.push({ store, remaining: progress.remaining }),
      onError: (error) => {
        throw error;
      },
    });
  }

  const store = (t: GlobalStreamThread) => t.stores.get('customers-store') as unknown as ReadOnlyKeyValueStore<string, { value: string }>;
  const settled = async (): Promise<void> => {
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('restores every partition of the topic through the table source before it resolves, then follows the topic', async () => {
    topic.partitions[0]!.push({ key: 'c1', value: 'Ada' }, { key: null, value: 'no key: dropped' }, { key: 'c2', value: 'Bob' });
    topic.partitions[1]!.push({ key: 'c3', value: 'Cy' }, { key: 'c2', value: null });
    const restores: { store: string; remaining: number }[] = [];
    const t = thread(restores);
    await t.start(new Map([[TOPIC, 2]]));
    expect(t.isRestored).toBe(true);
    expect(store(t).get('c1')?.value).toBe('Ada');
    expect(store(t).get('c2')).toBeUndefined();
    expect(store(t).get('c3')?.value).toBe('Cy');
    expect(restores.every((r) => r.store === 'customers-store')).toBe(true);
    expect(restores.at(-1)?.remaining).toBe(0);

    topic.partitions[1]!.push({ key: 'c4', value: 'Dee' });
    await settled();
    expect(store(t).get('c4')?.value).toBe('Dee');
    await t.close();
    const checkpoint = new StateDirectory(stateDir, 'enrich').readCheckpoint(GLOBAL_TASK);
    expect([...checkpoint!.entries()].map(([tp, offset]) => [tp.topic, tp.partition, offset])).toEqual([
      [TOPIC, 0, 3],
      [TOPIC, 1, 3],
    ]);
  });

  it('starts again from its checkpoint in the global directory, with its store as it was', async () => {
    topic.partitions[0]!.push({ key: 'c1', value: 'Ada' });
    const first = thread();
    await first.start(new Map([[TOPIC, 2]]));
    await first.close();
    expect(fs.existsSync(path.join(stateDir, 'enrich', 'global', '.checkpoint'))).toBe(true);
    topic.partitions[0]!.push({ key: 'c5', value: 'Eve' });
    topic.fetches.length = 0;
    const second = thread();
    await second.start(new Map([[TOPIC, 2]]));
    expect(topic.fetches[0]).toEqual([
      { topic: TOPIC, partition: 0, offset: 1 },
      { topic: TOPIC, partition: 1, offset: 0 },
    ]);
    expect(store(second).get('c1')?.value).toBe('Ada');
    expect(store(second).get('c5')?.value).toBe('Eve');
    await second.close();
  });

  it('wipes its stores and restores from the log start when the topic was truncated past its checkpoint', async () => {
    topic.partitions[0]!.push({ key: 'c1', value: 'Ada' }, { key: 'c2', value: 'Bob' });
    const first = thread();
    await first.start(new Map([[TOPIC, 2]]));
    await first.close();
    // While the node is down the topic grows and loses its head, beyond the checkpoint (offset 2).
    topic.partitions[0]!.push({ key: 'c3', value: 'Cy' }, { key: 'c4', value: 'Dee' });
    topic.logStart[0] = 3;
    const second = thread();
    await second.start(new Map([[TOPIC, 2]]));
    expect(second.isRestored).toBe(true);
    // What the topic holds now, and nothing of what it no longer holds.
    expect(store(second).get('c4')?.value).toBe('Dee');
    expect(store(second).get('c1')).toBeUndefined();
    expect(store(second).get('c3')).toBeUndefined();
    await second.close();
  });

  it('ends a start still restoring when closed', async () => {
    const t = thread();
    // A topic whose end is never reached: its fetches bring nothing.
    topic.fetch = async (positions) => {
      await new Promise((resolve) => setImmediate(resolve));
      return positions.map(({ topic: name, partition }) => ({ topic: name, partition, errorCode: 0, highWatermark: 100, lastStableOffset: 100, logStartOffset: 0, endOffset: 100, records: new RecordList([]), fetchOffset: 0, nextOffset: 0 }));
    };
    const started = t.start(new Map([[TOPIC, 2]]));
    await settled();
    await t.close();
    await expect(started).resolves.toBeUndefined();
    expect(t.isRestored).toBe(false);
  });
});

describe('TopologyMetadata with a global store', () => {
  it('finds sub-topologies by id: the global store took number 0 and makes no task', () => {
    const metadata = new TopologyMetadata(customersTable().build(), 'enrich');
    expect(metadata.subtopologies.map((s) => s.id)).toEqual([1]);
    expect(metadata.subtopology(0)).toBeUndefined();
    expect(metadata.subtopology(1)?.sourceTopics).toEqual(['orders']);
  });
});
