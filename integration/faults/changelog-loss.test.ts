/**
 * A changelog that loses records under the application, as Kafka Streams' TaskCorruptedException path handles it.
 *
 * Truncated: while a node is down, another processes on and the changelog is then truncated (delete-records) past
 * the down node's checkpoint. On restart that node's restore finds its checkpointed offset gone: it wipes the
 * task's stores and restores from the log start, with a warning, instead of failing. Its store then holds exactly
 * what the changelog holds.
 *
 * Deleted: the changelog topic deleted under a running instance. Its writes cannot land: the instance fails with an
 * error that names the topic (Kafka Streams fails the thread the same way), and writes nothing elsewhere meanwhile.
 */
import * as fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src/streams/state/store';
import { wordCountTopology, WORD_COUNT_STORE } from '../../examples/word-count';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, produceLines, storeValues, tempStateDir, waitFor } from '../support/streams';
import { stopAnyway } from '../runtime/support/stop-anyway';
import { InstanceProcess } from '../runtime/support/instance-process';

const PARTITIONS = 2;
/** Kafka's config resource type of a topic. */
const TOPIC_RESOURCE = 2;
const LINES = 3_000;

/** A logger whose warnings and errors the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), lines };
}

describe('a changelog that loses records under the application', () => {
  const clients = new KafkaTestClients();
  const instances: StreamsInstance[] = [];
  const children: InstanceProcess[] = [];
  const logs = tempStateDir('sluice-changelog-loss-');
  afterAll(async () => {
    await Promise.allSettled([...instances.map((instance) => stopAnyway(instance)), ...children.map((child) => child.kill())]);
    await clients.close();
    fs.rmSync(logs, { recursive: true, force: true });
  }, 60_000);

  const counted = (instance: StreamsInstance, lines: number) => () => {
    const counts = storeValues<number>(instance, WORD_COUNT_STORE);
    return [...expectedCounts(lines)].every(([word, n]) => (counts.get(word) ?? 0) >= n);
  };

  async function topics(prefix: string, partitions = PARTITIONS): Promise<{ applicationId: string; input: string; output: string; changelog: string }> {
    const applicationId = uniqueName(prefix);
    const input = uniqueName(`${prefix}-in`);
    const output = uniqueName(`${prefix}-out`);
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions }, { name: output, partitions }]);
    return { applicationId, input, output, changelog: `${applicationId}-${WORD_COUNT_STORE}-changelog` };
  }

  function start(applicationId: string, input: string, output: string, stateDir: string, logger: pino.Logger, extra: Record<string, number> = {}): StreamsInstance {
    const instance = new StreamsInstance(
      wordCountTopology(input, output),
      { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': stateDir, 'commit.interval.ms': 200, ...extra },
      { logger },
    );
    instances.push(instance);
    return instance;
  }

  const ends = async (topic: string) => new Map((await (await clients.admin()).fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));

  /** The latest count per word the changelog holds now, from its log start. */
  async function changelogCounts(changelog: string): Promise<Map<string, number>> {
    const end = [...(await ends(changelog)).values()].reduce((a, b) => a + b, 0);
    const start = [...(await (await clients.admin()).fetchTopicOffsets(changelog)).values()].reduce((a, p) => a + Number(p.low), 0);
    const counts = new Map<string, number>();
    let read = 0;
    const consumer = await clients.consumer({ groupId: uniqueName('changelog-read') });
    await consumer.subscribe({ topics: [changelog], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          read++;
          // The value ends with the count (after the timestamp a timestamped store writes first); null deletes.
          if (m.key && m.value) counts.set(m.key.toString('utf8'), Number(m.value.readBigInt64BE(m.value.length - 8)));
          else if (m.key) counts.delete(m.key.toString('utf8'));
        }
      },
    });
    await waitFor(() => read >= end - start, `the changelog to be read (${end - start} records)`, 60_000);
    await consumer.stop();
    return counts;
  }

  it(
    'truncated past a checkpoint: the restore wipes the task and restores from the log start, with a warning',
    async () => {
      const { applicationId, input, output, changelog } = await topics('truncated');
      const producer = await clients.producer();
      const stateA = tempStateDir();
      await produceLines(producer, input, 0, LINES);
      const first = start(applicationId, input, output, stateA, capturingLogger().logger);
      await first.start();
      await waitFor(counted(first, LINES), 'node A to count the first lines');
      await first.close();
      const checkpointed = await ends(changelog);

      // Another node goes on while A is down; then the changelog loses everything A's checkpoint vouched for, and more.
      await produceLines(producer, input, LINES, 2 * LINES);
      const other = start(applicationId, input, output, tempStateDir(), capturingLogger().logger);
      await other.start();
      await waitFor(counted(other, 2 * LINES), 'node B to count every line');
      await other.close();
      const grown = await ends(changelog);
      const cutAt = [...grown].map(([partition, end]) => ({ partition, offset: String(checkpointed.get(partition)! + Math.ceil((end - checkpointed.get(partition)!) / 2)) }));
      expect(cutAt.every(({ partition, offset }) => Number(offset) > checkpointed.get(partition)!)).toBe(true);
      const admin = await clients.admin();
      await admin.fetchTopicMetadata({ topics: [changelog] });
      // Kafka deletes records only from topics whose cleanup policy includes delete, as an operator sets it first.
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: changelog, configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] }] });
      await admin.deleteTopicRecords({ topic: changelog, partitions: cutAt });

      const captured = capturingLogger();
      const again = start(applicationId, input, output, stateA, captured.logger);
      const states: string[] = [];
      again.on('state', (change) => states.push(change.state));
      await again.start();
      await waitFor(() => again.state === 'RUNNING' && again.queryableStores(WORD_COUNT_STORE).size === PARTITIONS, 'node A to restore and run', 60_000);
      expect(states).not.toContain('ERROR');
      const warnings = captured.lines.filter((line) => line.includes('is no longer in the log') && line.includes('restored from the changelogs'));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(Object.fromEntries(storeValues<number>(again, WORD_COUNT_STORE))).toEqual(Object.fromEntries(await changelogCounts(changelog)));
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );

  it(
    "truncated past a standby's checkpoint: the standby is wiped and reads its changelog from the log start",
    async () => {
      // One partition: one node runs the task, the other its standby, and a restarted node gets back what it had.
      const { applicationId, input, output, changelog } = await topics('standby-truncated', 1);
      const producer = await clients.producer();
      const withStandbys = { 'num.standby.replicas': 1 };
      const stateDirs = [tempStateDir(), tempStateDir()];
      await produceLines(producer, input, 0, LINES);
      const pair = stateDirs.map((dir) => start(applicationId, input, output, dir, capturingLogger().logger, withStandbys));
      await Promise.all(pair.map((instance) => instance.start()));
      const standbyCaughtUp = (instance: StreamsInstance) => () => instance.state === 'RUNNING' && [...instance.standbyReplicas(WORD_COUNT_STORE).values()].some((r) => r.lag === 0);
      await waitFor(() => pair.some((instance) => standbyCaughtUp(instance)()), 'one node to hold a caught-up standby', 90_000);
      const standbyIndex = pair.findIndex((instance) => standbyCaughtUp(instance)());
      const active = pair[1 - standbyIndex]!;
      // Closed cleanly, the standby's node checkpoints it where it read up to.
      await pair[standbyIndex]!.close();

      // The active goes on; then the changelog loses everything the standby's checkpoint vouched for.
      const checkpointed = (await ends(changelog)).get(0)!;
      await produceLines(producer, input, LINES, 2 * LINES);
      await waitFor(counted(active, 2 * LINES), 'the active to count every line');
      // The counts reach the changelog when the active commits (its cache is flushed then), a moment after the store:
      // the end is taken once it stops moving (commits are 200 ms apart).
      let end = checkpointed;
      await waitFor(
        async () => {
          const before = (await ends(changelog)).get(0)!;
          await new Promise((resolve) => setTimeout(resolve, 600));
          end = (await ends(changelog)).get(0)!;
          return end === before && end > checkpointed;
        },
        'the changelog to grow past the checkpoint and settle',
        30_000,
      );
      const admin = await clients.admin();
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: changelog, configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] }] });
      await admin.deleteTopicRecords({ topic: changelog, partitions: [{ partition: 0, offset: String(checkpointed + Math.ceil((end - checkpointed) / 2)) }] });

      const captured = capturingLogger();
      const again = start(applicationId, input, output, stateDirs[standbyIndex]!, captured.logger, withStandbys);
      await again.start();
      const standbyWarnings = () => captured.lines.filter((line) => line.includes('is no longer in the log') && line.includes('standby task 1_0'));
      await waitFor(() => standbyWarnings().length > 0 && standbyCaughtUp(again)(), 'the standby to find its checkpoint gone and read the changelog again', 60_000).catch((error: unknown) => {
        process.stderr.write(captured.lines.join(''));
        throw error;
      });
      expect(standbyWarnings()).toHaveLength(1);
      expect(captured.lines.filter((line) => line.includes('reading changelogs into standby tasks failed'))).toEqual([]);
      expect(again.queryableStores(WORD_COUNT_STORE).size).toBe(0);
      // The standby holds exactly what the changelog holds.
      const held = new Map<string, number>();
      for (const replica of again.standbyStores(WORD_COUNT_STORE).values()) {
        for (const kv of (replica as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) held.set(kv.key, kv.value.value);
      }
      expect(Object.fromEntries(held)).toEqual(Object.fromEntries(await changelogCounts(changelog)));
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );

  it(
    'deleted under a running instance: the instance fails with an error that names the changelog',
    async () => {
      const { applicationId, input, output, changelog } = await topics('deleted');
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);
      // In a process of its own: kafkajs goes on retrying the failed instance's sends for a while after its close.
      const instance = InstanceProcess.start(
        { name: 'deleted', input, output, logLevel: 'warn', config: { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 200, 'task.timeout.ms': 5_000 } },
        logs,
      );
      children.push(instance);
      const expected = expectedCounts(LINES);
      const countedAll = async () => {
        if (instance.state !== 'RUNNING') return false;
        const counts = await instance.storeCounts();
        return [...expected].every(([word, n]) => (counts.get(word) ?? 0) >= n);
      };
      await waitFor(countedAll, 'the first lines to be counted', 90_000);

      await (await clients.admin()).deleteTopics({ topics: [changelog] });
      await produceLines(producer, input, LINES, 2 * LINES);
      await waitFor(() => instance.state === 'ERROR', 'the instance to fail', 90_000);
      const { lastError } = await instance.status();
      expect(lastError).toContain(changelog);
      expect(lastError).toMatch(/does not exist/);
      // Sluice creates its internal topics itself: nothing re-created the changelog behind its back.
      expect((await (await clients.admin()).listTopics()).includes(changelog)).toBe(false);
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );
});
