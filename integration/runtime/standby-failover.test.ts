/**
 * Issue 14, standby replicas: two word-count processes with num.standby.replicas=1. Each holds a standby of the
 * other's count tasks, kept up to date from the changelogs until its stores hold the active's contents; after
 * a SIGKILL of one, the survivor takes its tasks over and restores only the tail the standby had not read
 * (far fewer records than the changelogs hold), and its counts are complete.
 */
import * as path from 'node:path';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { BROKER_TEST_TIMEOUT_MS } from '../support/kafka';
import { expectedCounts, produceLines, waitFor } from '../support/streams';
import { describeLog } from './support/kafka-streams-states';
import { WordCountProcesses } from './support/word-count-processes';

const PARTITIONS = 4;
/** Lines before the kill; with the cache off every count update is a changelog record (about 8 per line). */
const LINES = 20_000;
/** Lines produced after the standbys caught up, just before the kill: the tail a promoted standby may still read. */
const MORE = 2_000;

describe('standby replicas, two processes, one SIGKILLed', () => {
  const app = new WordCountProcesses('standby');
  const { clients } = app;
  afterAll(() => app.cleanUp(), 30_000);

  it(
    'each node keeps a standby of the other\'s count tasks with the same contents; the survivor restores only the tail',
    async () => {
      const { applicationId, input, workDir } = app;
      const repartition = `${applicationId}-${WORD_COUNT_STORE}-repartition`;
      const changelog = `${applicationId}-${WORD_COUNT_STORE}-changelog`;
      await app.createTopics(PARTITIONS);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, LINES);

      const start = (name: string, port: number) =>
        app.start(name, {
          'application.server': `127.0.0.1:${port}`,
          'state.dir': path.join(workDir, name, 'state'),
          'num.standby.replicas': 1,
          'statestore.cache.max.bytes': 0,
          'commit.interval.ms': 300,
          'session.timeout.ms': 6000,
          'heartbeat.interval.ms': 1000,
        });
      const a = start('node-a', 17101);
      const b = start('node-b', 17102);
      const logs = () =>
        [a, b].map((c) => `--- ${c.name} (${c.exit}): ${describeLog(c.states)}\nrebalances ${JSON.stringify(c.rebalances)}\n${c.tail()}`).join('\n');
      const countPartitions = (partitions: readonly { topic: string; partition: number }[]) =>
        partitions.filter((tp) => tp.topic === repartition).map((tp) => tp.partition).sort();
      const sum = (counts: Map<string, number>) => [...counts.values()].reduce((x, y) => x + y, 0);

      try {
        // Both run with the count tasks split, and each one's standbys are the other's count tasks.
        await waitFor(
          async () => {
            if (a.state !== 'RUNNING' || b.state !== 'RUNNING') return false;
            const hosts = await a.metadata();
            if (hosts.length !== 2) return false;
            const [h1, h2] = hosts;
            const active1 = countPartitions(h1!.topicPartitions);
            const active2 = countPartitions(h2!.topicPartitions);
            return (
              active1.length > 0 &&
              active2.length > 0 &&
              JSON.stringify(countPartitions(h1!.standbyTopicPartitions)) === JSON.stringify(active2) &&
              JSON.stringify(countPartitions(h2!.standbyTopicPartitions)) === JSON.stringify(active1)
            );
          },
          'both running, each with a standby of every count task of the other',
          60_000,
        );
        const hosts = await a.metadata();
        for (const h of hosts) expect(h.standbyStateStoreNames).toEqual([WORD_COUNT_STORE]);
        expect(await b.metadata()).toEqual(hosts.map((h) => ({ ...h, isLocal: !h.isLocal })));

        // Every line counted; each node's standbys reach the other's active contents.
        const expected = expectedCounts(LINES);
        const total = sum(expected);
        await waitFor(
          async () => {
            const [activeA, activeB, standbyA, standbyB] = await Promise.all([a.storeCounts(), b.storeCounts(), a.standbyCounts(), b.standbyCounts()]);
            return sum(activeA) + sum(activeB) >= total && JSON.stringify([...standbyA].sort()) === JSON.stringify([...activeB].sort()) && JSON.stringify([...standbyB].sort()) === JSON.stringify([...activeA].sort());
          },
          'every line counted, and each standby holding its active\'s counts',
          90_000,
        );
        const [activeA, activeB] = [await a.storeCounts(), await b.storeCounts()];
        expect(sum(activeA) + sum(activeB)).toBeGreaterThanOrEqual(total);

        // /status shows the standbys under the first thread, with their lag.
        const threadsA = await a.threads();
        const statusPartitions = threadsA.flatMap((t) => t.standbyTasks).flatMap((t) => countPartitions(t.topicPartitions)).sort();
        const bHost = hosts.find((h) => h.endpoint === '127.0.0.1:17102')!;
        expect(statusPartitions).toEqual(countPartitions(bHost.topicPartitions));
        for (const task of threadsA[0]!.standbyTasks) expect(task.lag).toBeGreaterThanOrEqual(0);
        expect(a.rebalances.some((r) => r.standbyTasks.length > 0)).toBe(true);

        // More input, then node-b dies without a commit, a checkpoint or leaving the group.
        await produceLines(producer, input, LINES, LINES + MORE);
        const victimPartitions = countPartitions(bHost.topicPartitions);
        const restoresBeforeKill = a.restores.length;
        await b.kill();

        await waitFor(
          async () => a.state === 'RUNNING' && countPartitions((await a.metadata())[0]?.topicPartitions ?? []).length === PARTITIONS,
          'node-a to hold every count task alone',
          60_000,
        );
        const admin = await clients.admin();
        const ends = new Map((await admin.fetchTopicOffsets(changelog)).map((p) => [p.partition, Number(p.high)]));
        const restored = a.restores.slice(restoresBeforeKill).filter((e) => e.store === WORD_COUNT_STORE && e.done);
        const figures = victimPartitions.map((partition) => ({
          partition,
          changelog: ends.get(partition)!,
          restored: restored.filter((e) => e.partition === partition).reduce((n, e) => Math.max(n, e.restored), 0),
        }));
        process.stderr.write(`standby failover: restored on promotion ${JSON.stringify(figures)} (without a standby each would restore its whole changelog)\n`);
        for (const f of figures) {
          expect(restored.some((e) => e.partition === f.partition)).toBe(true);
          expect(f.changelog).toBeGreaterThan(5_000);
          expect(f.restored).toBeLessThan(f.changelog / 10);
        }

        // Complete counts on the survivor (at-least-once: none under-counted).
        const all = expectedCounts(LINES + MORE);
        let store = new Map<string, number>();
        await waitFor(
          async () => {
            store = await a.storeCounts();
            return [...all].every(([word, n]) => (store.get(word) ?? 0) >= n);
          },
          'every word fully counted on node-a',
          60_000,
        );
        expect([...store.keys()].sort()).toEqual([...all.keys()].sort());
        // node-a is alone: nothing is left for it to stand by for.
        await waitFor(async () => (await a.threads())[0]!.standbyTasks.length === 0, 'node-a without standbys', 30_000);
      } catch (error) {
        process.stderr.write(`${logs()}\n`);
        throw error;
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
