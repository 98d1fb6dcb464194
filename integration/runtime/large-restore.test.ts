/**
 * Restoration at the size users run: a word-count store whose changelog holds over a million records over 4
 * partitions (several MB each, many fetches per partition), its local state gone, as for a pod rescheduled on
 * another Kubernetes node. The changelog is written as the word count writes it (key: the word, value: the count
 * as a long, compacted topic); the instance restores it before it answers for the store.
 */
import type { KeyValueStore, StreamsInstance, ValueAndTimestamp } from '../../src';
import { StreamsInstance as Instance } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import { createTopics, type KafkaAdmin, type KafkaProducer } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { corpusLine, tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';

const PARTITIONS = 4;
const KEYS = 1_000_000;
const BATCH = 20_000;

const wordOf = (i: number): string => `word-${i.toString(36)}`;
const countOf = (i: number): number => (i % 997) + 1;

function countValue(count: number): Buffer {
  const value = Buffer.alloc(8);
  value.writeBigInt64BE(BigInt(count));
  return value;
}

/** Keys `from..to-1` with their counts, in batches; placement by the producer's Java partitioner, as the word count's. */
async function writeChangelog(send: (messages: { key: string; value: Buffer }[]) => Promise<unknown>, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(to, start + BATCH); i++) messages.push({ key: wordOf(i), value: countValue(countOf(i)) });
    await send(messages);
  }
}

async function createTopicsAndChangelog(admin: KafkaAdmin, appId: string, input: string, output: string): Promise<string> {
  const changelog = `${appId}-count-changelog`;
  await createTopics(admin, [
    { name: input, partitions: PARTITIONS },
    { name: output, partitions: PARTITIONS },
    { name: changelog, partitions: PARTITIONS, configs: { 'cleanup.policy': 'compact' } },
  ]);
  return changelog;
}

async function changelogRecords(admin: KafkaAdmin, changelog: string): Promise<{ perPartition: number[]; total: number }> {
  const offsets = await admin.fetchTopicOffsets(changelog);
  const perPartition = offsets.sort((a, b) => a.partition - b.partition).map((p) => Number(p.high) - Number(p.low));
  return { perPartition, total: perPartition.reduce((a, b) => a + b, 0) };
}

function storedCount(instance: StreamsInstance, word: string): number | undefined {
  for (const store of instance.queryableStores('count').values()) {
    const found = (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).get(word);
    if (found !== undefined) return found.value;
  }
  return undefined;
}

function storeMetric(instance: StreamsInstance, name: string): number {
  return instance.metrics
    .metrics({ group: 'stream-state-metrics', name })
    .filter((m) => m.tags['lmdb-state-id'] === 'count')
    .reduce((sum, m) => sum + Number(m.value), 0);
}

const SAMPLE = [0, 1, 2, 999, 123_456, 500_000, 777_777, KEYS - 1];

describe('restoring a million-record changelog with no local state', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  async function restoreAndCheck(guarantee: 'at_least_once' | 'exactly_once_v2', fill: (appId: string, changelog: string, producer: KafkaProducer) => Promise<number>): Promise<void> {
    const admin = await clients.admin();
    const appId = uniqueName(guarantee === 'exactly_once_v2' ? 'lr-eos' : 'lr');
    const input = uniqueName('lr-in');
    const changelog = await createTopicsAndChangelog(admin, appId, input, uniqueName('lr-out'));
    const expectedRecords = await fill(appId, changelog, await clients.producer());
    const { perPartition, total } = await changelogRecords(admin, changelog);
    expect(Math.min(...perPartition)).toBeGreaterThan(200_000);

    const instance = new Instance(wordCountTopology(input, `${input}-out`), {
      'application.id': appId,
      'bootstrap.servers': bootstrapServers().join(','),
      'state.dir': tempStateDir(),
      'processing.guarantee': guarantee,
    }, { logger: testLogger });
    const restores: RestoreEvent[] = [];
    instance.on('restore', (e) => restores.push(e));
    await instance.start();
    try {
      await waitForState(instance, 'RUNNING', 180_000);
      for (const i of SAMPLE) expect([wordOf(i), storedCount(instance, wordOf(i))]).toEqual([wordOf(i), countOf(i)]);
      const done = restores.filter((e) => e.done);
      expect(done.map((e) => e.partition).sort()).toEqual([0, 1, 2, 3]);
      expect(done.reduce((n, e) => n + e.restored, 0)).toBe(expectedRecords);
      expect(storeMetric(instance, 'restore-total')).toBe(expectedRecords);
      expect(storeMetric(instance, 'restore-remaining-records-total')).toBe(0);
      expect(restores.every((e) => e.remaining >= 0 && e.restored <= e.total)).toBe(true);
      expect(total).toBeGreaterThanOrEqual(expectedRecords);
    } finally {
      await instance.close();
    }
  }

  it(
    'at-least-once: RUNNING with every sampled count right, restore-total the changelog record count, nothing remaining',
    async () => {
      await restoreAndCheck('at_least_once', async (_appId, changelog, producer) => {
        await writeChangelog((messages) => producer.send({ topic: changelog, messages }), 0, KEYS);
        return KEYS;
      });
    },
    BROKER_TEST_TIMEOUT_MS * 2,
  );

  it(
    'exactly-once: the committed transactions restored, the aborted ones not',
    async () => {
      const aborted = 1_000;
      await restoreAndCheck('exactly_once_v2', async (appId, changelog) => {
        const producer = await clients.transactionalProducer({ transactionalId: `${appId}-writer` });
        try {
          await writeChangelog(async (messages) => {
            const transaction = await producer.transaction();
            await transaction.send({ topic: changelog, messages });
            await transaction.commit();
          }, 0, KEYS);
          // Overwrites that a crashed task left uncommitted: never restored under exactly-once.
          const transaction = await producer.transaction();
          await transaction.send({ topic: changelog, messages: Array.from({ length: aborted }, (_, i) => ({ key: wordOf(SAMPLE[i % SAMPLE.length]!), value: countValue(-1) })) });
          await transaction.abort();
        } finally {
          await producer.disconnect();
        }
        return KEYS;
      });
    },
    BROKER_TEST_TIMEOUT_MS * 2,
  );

  it(
    'a restore cut short by a stop resumes from where it got to, not from the start',
    async () => {
      const admin = await clients.admin();
      const appId = uniqueName('lr-resume');
      const input = uniqueName('lr-resume-in');
      const changelog = await createTopicsAndChangelog(admin, appId, input, uniqueName('lr-resume-out'));
      const producer = await clients.producer();
      await writeChangelog((messages) => producer.send({ topic: changelog, messages }), 0, KEYS);
      const config = {
        'application.id': appId,
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'commit.interval.ms': 200,
        // Small fetches: the restore takes long enough to be stopped in the middle.
        'restore.consumer.max.partition.fetch.bytes': 32 * 1024,
      };
      const run = async (stopAfter: number | undefined): Promise<number> => {
        const instance = new Instance(wordCountTopology(input, `${input}-out`), config, { logger: testLogger });
        const restored = new Map<number, number>();
        instance.on('restore', (e) => restored.set(e.partition, e.restored));
        const total = (): number => [...restored.values()].reduce((a, b) => a + b, 0);
        await instance.start();
        try {
          if (stopAfter !== undefined) {
            await waitFor(() => total() >= stopAfter, `${stopAfter} records restored`, 120_000);
            expect(instance.state).toBe('REBALANCING');
            return total();
          }
          await waitForState(instance, 'RUNNING', 180_000);
          for (const i of SAMPLE) expect([wordOf(i), storedCount(instance, wordOf(i))]).toEqual([wordOf(i), countOf(i)]);
          return total();
        } finally {
          await instance.close();
        }
      };
      const first = await run(KEYS / 4);
      const second = await run(undefined);
      // The second run reads only what the first did not checkpoint.
      expect(second).toBeLessThanOrEqual(KEYS - first);
      expect(second).toBeGreaterThan(0);
    },
    BROKER_TEST_TIMEOUT_MS * 2,
  );

  it(
    'tasks restored first process and answer queries while another task is still restoring',
    async () => {
      const admin = await clients.admin();
      const appId = uniqueName('lr-mixed');
      const input = uniqueName('lr-mixed-in');
      const output = uniqueName('lr-mixed-out');
      const changelog = await createTopicsAndChangelog(admin, appId, input, output);
      const producer = await clients.producer();
      // Partition 0 of the changelog holds a million records; the others a few.
      await writeChangelog((messages) => producer.send({ topic: changelog, messages: messages.map((m) => ({ ...m, partition: 0 })) }), 0, KEYS);
      const lines = Array.from({ length: 200 }, (_, i) => corpusLine(i));
      await producer.send({ topic: input, messages: lines.map((line, i) => ({ key: `line-${i}`, value: line })) });

      const instance = new Instance(wordCountTopology(input, output), {
        'application.id': appId,
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'commit.interval.ms': 100,
        'cache.max.bytes.buffering': 0,
        // Small fetches keep partition 0 restoring long enough to look at the others meanwhile.
        'restore.consumer.max.partition.fetch.bytes': 16 * 1024,
      }, { logger: testLogger });
      const restores: RestoreEvent[] = [];
      instance.on('restore', (e) => restores.push(e));
      await instance.start();
      try {
        const expected = new Map<string, number>();
        for (const line of lines) for (const w of line.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
        const partitionZeroDone = (): boolean => restores.some((e) => e.partition === 0 && e.done);
        // Words whose task is restored: counted and queryable while partition 0 restores.
        await waitFor(() => instance.queryableStores('count').size === PARTITIONS - 1 && [...expected].filter(([w]) => storedCount(instance, w) !== undefined).length > 0, 'the small tasks to answer');
        const answered = [...expected].filter(([w]) => storedCount(instance, w) !== undefined);
        expect(partitionZeroDone()).toBe(false);
        expect(instance.state).toBe('REBALANCING');
        expect([...instance.queryableStores('count').keys()].sort()).toEqual([1, 2, 3]);
        await waitFor(() => answered.every(([w, n]) => storedCount(instance, w) === n), 'the restored tasks to count their input', 30_000);
        expect(partitionZeroDone()).toBe(false);

        await waitForState(instance, 'RUNNING', 180_000);
        // Restored, task 1_0 resumes its input: every word gets counted.
        await waitFor(() => [...expected].every(([w, n]) => storedCount(instance, w) === n), 'every word counted', 60_000);
        expect(storedCount(instance, wordOf(KEYS - 1))).toBe(countOf(KEYS - 1));
      } finally {
        await instance.close();
      }
    },
    BROKER_TEST_TIMEOUT_MS * 2,
  );
});
