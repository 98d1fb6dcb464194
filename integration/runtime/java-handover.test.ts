/**
 * A Kafka Streams application moved to Sluice. Kafka Streams' WordCountDemo (3.9.1 jars, run as bench:restore runs
 * it) counts corpus 1 and stops; Kafka Streams does not leave the group on close, so its member stays registered
 * until its session.timeout.ms (10 s here, set in the demo's properties; 45 s by default). Sluice's mirror of the
 * demo, same application.id, is started at once, while that member is still there: it must wait (never go to ERROR),
 * join, resume from the demo's committed offsets, restore the demo's changelog and count corpus 2. Then what a user
 * checks: the output topic's last count per word and the store agree with a count over both corpora, and nothing of
 * corpus 1 was counted again.
 */
import * as fs from 'node:fs';
import { StreamsInstance } from '../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../src';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT } from '../../examples/word-count';
import { createTopics, type KafkaAdmin } from '../../src/streams/kafka';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import type { StateChange } from '../../src/streams/runtime/streams-state';
import type { MeasuredProcess } from '../../bench/support/child-process';
import { reportingWordCountDemo, type ReportingWordCountDemo } from '../../bench/support/kafka-streams-java';
import { KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor } from '../support/streams';
import { changelogTopic, repartitionTopic, WORD_COUNT_DEMO_DEFAULTS, WORD_COUNT_DEMO_STORE, wordCountDemoMirror } from './support/word-count-demo-mirror';

const PARTITIONS = 2;
const SESSION_TIMEOUT_MS = 10_000;
const SHARED_WORDS = ['kafka', 'streams', 'sluice', 'table', 'topic', 'record', 'state', 'store'];
const FIRST_ONLY_WORDS = ['java', 'jvm', 'rocksdb', 'gradle'];
const SECOND_ONLY_WORDS = ['node', 'typescript', 'lmdb', 'npm'];
const CORPUS_1 = corpus('one', [...FIRST_ONLY_WORDS, ...SHARED_WORDS], 3000);
const CORPUS_2 = corpus('two', [...SHARED_WORDS, ...SECOND_ONLY_WORDS], 2000);

type Offsets = Map<number, number>;

interface OutputRecord {
  partition: number;
  offset: number;
  word: string;
  count: number;
}

/** `lines` keyed lines of 3 to 7 words of `vocabulary`, deterministic. */
function corpus(name: string, vocabulary: readonly string[], lines: number): { key: string; value: string }[] {
  return Array.from({ length: lines }, (_, i) => {
    const words = Array.from({ length: 3 + (i % 5) }, (_, j) => vocabulary[(i * 7 + j * 13) % vocabulary.length]!);
    return { key: `${name}-${i}`, value: words.join(' ') };
  });
}

function wordCounts(...corpora: { value: string }[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of corpora.flat()) for (const word of line.value.split(' ')) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * The topic's end offsets. Asked right after the topic is created, a KRaft broker (Kafka 4.2 more often) may not yet
 * lead a partition it was just given and answer NOT_LEADER_OR_FOLLOWER, which kafkajs' admin does not retry: asked
 * again, for up to 10 s.
 */
async function endOffsets(admin: KafkaAdmin, topic: string): Promise<Offsets> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
    } catch (error) {
      if (!(error as { retriable?: boolean }).retriable || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const total = (offsets: Offsets): number => [...offsets.values()].reduce((a, b) => a + b, 0);

/** The last count of each word among `records`, which are in offset order per partition. */
function lastCounts(records: readonly OutputRecord[]): Map<string, number> {
  return new Map(records.map((r) => [r.word, r.count]));
}

describe('a Kafka Streams application taken over by Sluice', () => {
  const clients = new KafkaTestClients();
  let demo: ReportingWordCountDemo;
  let java: MeasuredProcess | undefined;
  let sluice: StreamsInstance | undefined;
  let stateDir: string | undefined;

  // The first run on a machine fetches the Kafka Streams jars with Maven: outside the test's own time.
  beforeAll(async () => {
    const prepared = await reportingWordCountDemo((line) => process.stderr.write(`${line}\n`));
    if (typeof prepared === 'string') throw new Error(`Kafka Streams cannot run here: ${prepared}`);
    demo = prepared;
  }, 600_000);

  afterAll(async () => {
    await java?.stop();
    await sluice?.close();
    await clients.close();
    demo?.dispose();
    if (stateDir !== undefined) fs.rmSync(stateDir, { recursive: true, force: true });
  });

  /** Records of the output topic from `from` (inclusive) to `to` (exclusive) per partition. */
  async function readOutput(from: Offsets, to: Offsets): Promise<OutputRecord[]> {
    const records: OutputRecord[] = [];
    const position = new Map(from);
    const done = (): boolean => [...to].every(([partition, end]) => (position.get(partition) ?? 0) >= end);
    if (done()) return records;
    const consumer = await clients.consumer({ groupId: uniqueName('handover-reader') });
    await consumer.subscribe({ topics: [WORD_COUNT_OUTPUT], fromBeginning: true });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          const offset = m.offset;
          if (offset < (from.get(batch.partition) ?? 0) || offset >= (to.get(batch.partition) ?? 0)) continue;
          records.push({ partition: batch.partition, offset, word: m.key!.toString('utf8'), count: Number(m.value!.readBigInt64BE(0)) });
          position.set(batch.partition, offset + 1);
        }
        if (done()) finish();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`read ${records.length} records of the output topic, not up to ${JSON.stringify([...to])}`)), 30_000);
    });
    try {
      await Promise.race([finished, timeout]);
    } finally {
      clearTimeout(timer);
      await consumer.stop();
    }
    return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  }

  /** Waits until the group has committed the input and the repartition topic up to their ends; `alive` throws when the counting side is gone. */
  async function waitCommittedToEnd(admin: KafkaAdmin, applicationId: string, alive: () => void, timeoutMs: number): Promise<void> {
    const topics = [WORD_COUNT_INPUT, repartitionTopic(applicationId)];
    await waitFor(
      async () => {
        alive();
        const existing = await admin.listTopics();
        if (!topics.every((topic) => existing.includes(topic))) return false;
        const committed = await admin.fetchOffsets({ groupId: applicationId, topics });
        for (const topic of topics) {
          const ends = await endOffsets(admin, topic);
          const positions = committed.find((t) => t.topic === topic)?.partitions ?? [];
          if (total(ends) === 0 || positions.some((p) => Number(p.offset) < (ends.get(p.partition) ?? 0))) return false;
        }
        return true;
      },
      `${applicationId} to commit ${topics.join(' and ')} to their ends`,
      timeoutMs,
    );
  }

  it(
    'waits for the Java member to expire, then carries on from its offsets and changelog: every count exact, corpus 1 counted once',
    async () => {
      const applicationId = uniqueName('handover');
      const admin = await clients.admin();
      const producer = await clients.producer();
      // WordCountDemo's topic names are fixed: created here unless an earlier run left them.
      await createTopics(admin, [WORD_COUNT_INPUT, WORD_COUNT_OUTPUT].map((name) => ({ name, partitions: PARTITIONS })));
      const outputStart = await endOffsets(admin, WORD_COUNT_OUTPUT);
      // Lines left by an earlier run are not this application's: it starts where the input ends now.
      await admin.setOffsets({
        groupId: applicationId,
        topic: WORD_COUNT_INPUT,
        partitions: [...(await endOffsets(admin, WORD_COUNT_INPUT))].map(([partition, offset]) => ({ partition, offset: String(offset) })),
      });
      await producer.send({ topic: WORD_COUNT_INPUT, messages: CORPUS_1 });

      // Kafka Streams counts corpus 1.
      const properties = {
        'application.id': applicationId,
        'bootstrap.servers': bootstrapServers().join(','),
        'commit.interval.ms': '500',
        'session.timeout.ms': String(SESSION_TIMEOUT_MS),
      };
      // Its report lines (state, restore progress) are not needed here: the group's commits say when it is done.
      java = await demo.start(properties, () => undefined);
      const javaProcess = java;
      const javaAlive = (): void => {
        const failure = javaProcess.failure();
        if (failure !== undefined) throw new Error(failure);
      };
      await waitCommittedToEnd(admin, applicationId, javaAlive, 45_000);
      const outputAfterJava = await endOffsets(admin, WORD_COUNT_OUTPUT);
      const repartitionAfterJava = await endOffsets(admin, repartitionTopic(applicationId));
      const changelogOffsets = await admin.fetchTopicOffsets(changelogTopic(applicationId));
      const changelogRecords = changelogOffsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
      const javaOutput = await readOutput(outputStart, outputAfterJava);
      expect(Object.fromEntries(lastCounts(javaOutput))).toEqual(Object.fromEntries(wordCounts(CORPUS_1)));
      await java.stop();
      java = undefined;

      // Its member is still registered: Sluice meets it when it joins.
      const [group] = (await admin.describeGroups([applicationId])).groups;
      expect({ members: group?.members.length, protocol: group?.protocol }).toEqual({ members: 1, protocol: 'stream' });

      stateDir = tempStateDir('sluice-it-handover-');
      const instance = new StreamsInstance(
        wordCountDemoMirror(WORD_COUNT_INPUT, WORD_COUNT_OUTPUT),
        // The configuration the demo ran with, as a user moving it would carry it over; only the state directory differs.
        { ...properties, ...WORD_COUNT_DEMO_DEFAULTS, 'state.dir': stateDir },
        { logger: testLogger },
      );
      sluice = instance;
      const states: StateChange[] = [];
      const restores: RestoreEvent[] = [];
      instance.on('state', (change) => states.push(change));
      instance.on('restore', (event) => restores.push(event));
      instance.on('error', () => undefined);
      const starting = instance.start().catch((error: unknown) => error);
      await producer.send({ topic: WORD_COUNT_INPUT, messages: CORPUS_2 });

      // It waits for the Java member to expire (session.timeout.ms), then joins and restores.
      await waitFor(
        () => {
          if (instance.state === 'ERROR' || instance.state === 'PENDING_ERROR') {
            throw new Error(
              `Sluice went to ${instance.state} instead of waiting for the Kafka Streams member to expire ` +
                `(states: ${states.map((change) => change.state).join(' -> ')}): ${instance.lastError?.message}`,
            );
          }
          return instance.state === 'RUNNING';
        },
        'Sluice to be RUNNING',
        SESSION_TIMEOUT_MS + 30_000,
      );
      expect(await starting).toBeUndefined();
      // While it waited, it said why: a state event with the reason.
      expect(states.filter((change) => change.reason !== undefined).map((change) => change.state)).toContain('REBALANCING');
      await waitCommittedToEnd(admin, applicationId, () => undefined, 30_000);

      const sluiceOutput = await readOutput(outputAfterJava, await endOffsets(admin, WORD_COUNT_OUTPUT));
      const expected = Object.fromEntries(wordCounts(CORPUS_1, CORPUS_2));
      expect(Object.fromEntries(lastCounts([...javaOutput, ...sluiceOutput]))).toEqual(expected);
      const stored: Record<string, number> = {};
      for (const store of instance.queryableStores(WORD_COUNT_DEMO_STORE).values()) {
        for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) stored[kv.key] = kv.value.value;
      }
      expect(stored).toEqual(expected);

      // Corpus 1 was not counted again: Sluice wrote one update per word of corpus 2 (no record cache, as the demo runs)
      // and none for a word only in corpus 1.
      const corpus2Words = [...wordCounts(CORPUS_2).values()].reduce((a, b) => a + b, 0);
      expect(sluiceOutput.filter((r) => FIRST_ONLY_WORDS.includes(r.word))).toEqual([]);
      expect(sluiceOutput).toHaveLength(corpus2Words);
      expect(total(await endOffsets(admin, repartitionTopic(applicationId))) - total(repartitionAfterJava)).toBe(corpus2Words);
      // The demo's changelog was restored, every record of it.
      expect(restores.filter((e) => e.done).reduce((n, e) => n + e.restored, 0)).toBe(changelogRecords);
    },
    120_000,
  );
});
