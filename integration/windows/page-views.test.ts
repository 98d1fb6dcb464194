/**
 * The page-view example (examples/page-views.ts) on a real broker: the scripted views, out of order and late, give
 * the results the test driver gives; a window store restored after its process was SIGKILLed answers the same
 * fetches; and joining topics that are not co-partitioned is refused.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { StreamsInstance } from '../../src';
import { TopologyException } from '../../src/errors';
import type { VersionedKeyValueStore } from '../../src';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import { createTopics, fetchTopicOffsets, type KafkaAdmin } from '../../src/streams/kafka';
import { type PageViewTopics, pageViewsTopology, PAGE_VIEWS_PER_MINUTE_STORE, USERS_STORE } from '../../examples/page-views';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor, waitForState } from '../support/streams';
import type { PageViewsChildSpec } from './support/page-views-child';
import {
  consumeRaw,
  expectedEnrichedViews,
  produceUsers,
  produceViews,
  scriptBase,
  type StoreAnswers,
  storeAnswers,
  windowedCount,
} from './support/page-view-script';

const CHILD_SCRIPT = path.join(__dirname, 'support', 'page-views-child.ts');
const REGISTER = path.join(__dirname, '..', 'runtime', 'support', 'ts-register.js');

function uniqueTopics(): PageViewTopics {
  return {
    pageViews: uniqueName('pv-views'),
    users: uniqueName('pv-users'),
    viewCounts: uniqueName('pv-counts'),
    finalViewCounts: uniqueName('pv-final'),
    userSessions: uniqueName('pv-sessions'),
    enrichedViews: uniqueName('pv-enriched'),
  };
}

/** One partition each: the scripted order then holds through the repartition topic, as in the test driver. */
async function createPageViewTopics(admin: KafkaAdmin, topics: PageViewTopics, partitions: Partial<Record<keyof PageViewTopics, number>> = {}): Promise<void> {
  await createTopics(
    admin,
    (Object.entries(topics) as [keyof PageViewTopics, string][]).map(([role, name]) => ({ name, partitions: partitions[role] ?? 1 })),
  );
}

function configFor(applicationId: string, stateDir: string): Record<string, string | number> {
  return {
    'application.id': applicationId,
    'bootstrap.servers': bootstrapServers().join(','),
    'state.dir': stateDir,
    'commit.interval.ms': 100,
    // The killed member leaves the group sooner, so that the restarted instance gets its tasks sooner.
    'session.timeout.ms': 10_000,
    'heartbeat.interval.ms': 1_000,
  };
}

function droppedRecords(instance: StreamsInstance): number {
  return instance.metrics.metrics({ group: 'stream-task-metrics', name: 'dropped-records-total' }).reduce((n, m) => n + Number(m.value), 0);
}

function usersKnown(instance: StreamsInstance): number {
  let n = 0;
  for (const store of instance.queryableStores(USERS_STORE).values()) n += (store as unknown as VersionedKeyValueStore<string, unknown>).approximateNumEntries();
  return n;
}

/** What the stores retain once the script is processed (retention keeps the windows from 60 s on). */
const RETAINED_ANSWERS: StoreAnswers = {
  windows: ['/about@120s=1', '/docs@60s=1', '/home@60s=1'],
  fetches: ['/about@120s=1', '/docs@60s=1', '/home@60s=1'],
  ranges: ['/about: 120s=1 | 120s=1', '/docs: 60s=1 | 60s=1', '/home: 60s=1 | 60s=1'],
  sessions: ['u1[1,61]=4', 'u2[20,130]=3', 'u3[75,75]=1'],
};

/**
 * What the node that processed the script answers: as in Kafka Streams, the minute at 0 s, past the store's
 * retention, is still read through the record cache until the cache evicts it; a restarted node's cache is empty.
 */
const CACHED_ANSWERS: StoreAnswers = {
  windows: ['/about@120s=1', '/docs@0s=1', '/docs@60s=1', '/home@0s=3', '/home@60s=1'],
  fetches: ['/about@120s=1', '/docs@0s=1', '/docs@60s=1', '/home@0s=3', '/home@60s=1'],
  ranges: ['/about: 120s=1 | 120s=1', '/docs: 0s=1 60s=1 | 60s=1 0s=1', '/home: 0s=3 60s=1 | 60s=1 0s=3'],
  sessions: RETAINED_ANSWERS.sessions,
};

describe('page views on a real broker', () => {
  const clients = new KafkaTestClients();
  afterAll(() => clients.close());

  it(
    "gives the test driver's results: final counts per minute, sessions, joined views; the late view is dropped and counted",
    async () => {
      const topics = uniqueTopics();
      await createPageViewTopics(await clients.admin(), topics);
      const base = scriptBase();
      const instance = new StreamsInstance(pageViewsTopology(topics), configFor(uniqueName('pv'), tempStateDir()), { logger: testLogger });
      try {
        await instance.start();
        await waitForState(instance, 'RUNNING');
        const producer = await clients.producer();
        // Users first, so that every view finds its user in the table.
        await produceUsers(producer, topics, base);
        await waitFor(() => usersKnown(instance) === 2, 'both users in the users table');
        await produceViews(producer, topics, base);

        const finals = await consumeRaw(await clients.consumer({ groupId: uniqueName('pv-final') }), topics.finalViewCounts, 4);
        expect(finals.map((r) => windowedCount(r, base))).toEqual(['/docs@0s=1', '/home@0s=3', '/docs@60s=1', '/home@60s=1']);
        const enriched = await consumeRaw(await clients.consumer({ groupId: uniqueName('pv-enriched') }), topics.enrichedViews, 8);
        expect(enriched.map((r) => JSON.parse(r.value!.toString('utf8')) as unknown)).toEqual(expectedEnrichedViews());
        await waitFor(() => storeAnswers(instance, base).sessions.length === 3, 'the sessions in the store', 30_000);
        expect(storeAnswers(instance, base)).toEqual(CACHED_ANSWERS);
        expect(droppedRecords(instance)).toBe(1);
      } finally {
        await instance.close();
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'restores the window and session stores after a SIGKILL, and again from the changelogs alone: same answers',
    async () => {
      const topics = uniqueTopics();
      const admin = await clients.admin();
      await createPageViewTopics(admin, topics);
      const base = scriptBase();
      const applicationId = uniqueName('pv-kill');
      const config = configFor(applicationId, tempStateDir());
      const spec: PageViewsChildSpec = { topics, config, base };
      const child = fork(CHILD_SCRIPT, [], {
        execArgv: ['-r', REGISTER],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, SLUICE_IT_PAGE_VIEWS: JSON.stringify(spec), KAFKAJS_NO_PARTITIONER_WARNING: '1' },
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      let childState = 'CREATED';
      let childAnswers: StoreAnswers | undefined;
      child.on('message', (message: { state?: string; answers?: StoreAnswers }) => {
        if (message.state) childState = message.state;
        if (message.answers) childAnswers = message.answers;
      });
      try {
        await waitFor(() => childState === 'RUNNING', 'the child instance to run');
        const producer = await clients.producer();
        await produceUsers(producer, topics, base);
        await produceViews(producer, topics, base);
        await consumeRaw(await clients.consumer({ groupId: uniqueName('pv-final') }), topics.finalViewCounts, 4);
        // Everything read is committed before the kill, so that nothing is processed twice after it.
        const inputs = [topics.pageViews, topics.users, `${applicationId}-views-by-page-repartition`];
        await waitFor(async () => {
          const committed = await admin.fetchOffsets({ groupId: applicationId, topics: inputs });
          const ends = await Promise.all(inputs.map((topic) => fetchTopicOffsets(admin, topic)));
          return inputs.every((topic, i) => {
            const partitions = committed.find((c) => c.topic === topic)?.partitions ?? [];
            return ends[i]!.every((end) => Number(partitions.find((p) => p.partition === end.partition)?.offset ?? -1) === end.latest);
          });
        }, 'the child to commit every input record');
        await waitFor(() => {
          childAnswers = undefined;
          child.send('answers');
          return waitFor(() => childAnswers !== undefined, 'the answers of the child', 5_000).then(
            () => JSON.stringify(childAnswers) === JSON.stringify(CACHED_ANSWERS),
          );
        }, 'the child stores to hold the script');
      } finally {
        child.kill('SIGKILL');
      }
      expect(await exited).toBe('SIGKILL');
      // Restored stores answer what they retain: the windows past retention were only in the killed node's cache.
      const before = RETAINED_ANSWERS;

      const restart = async (cleanUpFirst: boolean): Promise<{ answers: StoreAnswers; restored: Map<string, number> }> => {
        const instance = new StreamsInstance(pageViewsTopology(topics), config, { logger: testLogger });
        if (cleanUpFirst) instance.cleanUp();
        const restored = new Map<string, number>();
        instance.on('restore', (e: RestoreEvent) => {
          if (e.done) restored.set(e.store, (restored.get(e.store) ?? 0) + e.restored);
        });
        try {
          await instance.start();
          await waitForState(instance, 'RUNNING');
          await waitFor(() => JSON.stringify(storeAnswers(instance, base)) === JSON.stringify(before), 'the same answers as before', 30_000).catch(
            () => undefined,
          );
          return { answers: storeAnswers(instance, base), restored };
        } finally {
          await instance.close();
        }
      };
      const afterKill = await restart(false);
      expect(afterKill.answers).toEqual(before);
      const fromChangelogs = await restart(true);
      expect(fromChangelogs.answers).toEqual(before);
      expect(fromChangelogs.restored.get(PAGE_VIEWS_PER_MINUTE_STORE)).toBeGreaterThan(0);
    },
    BROKER_TEST_TIMEOUT_MS * 2,
  );

  it(
    'refuses to join topics with different partition counts',
    async () => {
      const topics = uniqueTopics();
      await createPageViewTopics(await clients.admin(), topics, { pageViews: 2, users: 3 });
      const instance = new StreamsInstance(pageViewsTopology(topics), configFor(uniqueName('pv-copart'), tempStateDir()), { logger: testLogger });
      const errors: Error[] = [];
      instance.on('error', (error) => errors.push(error));
      try {
        await expect(instance.start()).rejects.toThrow(TopologyException);
        expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/must be co-partitioned \(same number of partitions\), but have 2, 3/)]);
      } finally {
        await instance.close();
      }
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
