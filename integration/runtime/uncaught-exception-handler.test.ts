/**
 * Issue 15, "Must show" (threads): a processor that throws once, with REPLACE_THREAD, keeps the instance RUNNING,
 * every word counted exactly (exactly-once: the failed thread's open transactions abort, its stores restore) and the
 * thread replaced, which a `thread` event and the failed-stream-threads metric tell; addStreamThread and
 * removeStreamThread spread the tasks over one more thread and back, losing and repeating nothing; and
 * SHUTDOWN_APPLICATION, set in the configuration, stops both nodes of a two-node application.
 */
import pino from 'pino';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { ThreadEvent, Topology } from '../../src';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { corpusLine, expectedCounts, latestCounts, produceLines, storeValues, tempStateDir, waitFor } from '../support/streams';
import { bothHoldTasks, nodeLogs } from '../faults/support/two-nodes';
import { instancesUnderTest } from './support/stop-anyway';
import { WordCountProcesses } from './support/word-count-processes';

const STORE = 'counts';

/** The runtime logs the failure (error) and the replacement (warn): expected here, so not shown unless asked. */
const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });

/** The word count, with a step that throws when it meets `word` for the `nth` time (once). */
function flakyWordCount(input: string, output: string, word: string, nth: number): Topology {
  let seen = 0;
  const builder = new StreamsBuilder();
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .mapValues((w) => {
      if (w === word && ++seen === nth) throw new Error(`a transient failure on the ${nth}th "${word}"`);
      return w;
    })
    .groupBy((_key, w) => w, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: STORE })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

const failedThreads = (instance: StreamsInstance): number =>
  Number(instance.metrics.metrics({ group: 'stream-metrics', name: 'failed-stream-threads' })[0]?.value ?? Number.NaN);

describe('stream threads on a real broker', () => {
  const { clients, instances } = instancesUnderTest();

  async function wordCountApp(partitions: number, threads: number, topology: (input: string, output: string) => Topology) {
    const input = uniqueName('threads-in');
    const output = uniqueName('threads-out');
    const admin = await clients.admin();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: input, numPartitions: partitions }, { topic: output, numPartitions: partitions }] });
    const instance = new StreamsInstance(
      topology(input, output),
      {
        'application.id': uniqueName('threads'),
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'processing.guarantee': 'exactly_once_v2',
        'num.stream.threads': threads,
      },
      { logger: quietLogger },
    );
    instances.push(instance);
    const events: ThreadEvent[] = [];
    const states: string[] = [];
    instance.on('thread', (event) => events.push(event));
    instance.on('state', (change) => states.push(change.state));
    return { input, output, instance, events, states, producer: await clients.producer() };
  }

  /** Every word of the first `lines` lines counted exactly, in the store and on the output topic read committed. */
  async function expectExactCounts(instance: StreamsInstance, output: string, lines: number): Promise<void> {
    const expected = expectedCounts(lines);
    const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    const expectedTotal = total(expected);
    await waitFor(() => total(storeValues<number>(instance, STORE)) >= expectedTotal, `${expectedTotal} words counted`, 90_000);
    const consumer = await clients.consumer({ groupId: uniqueName('threads-check'), isolationLevel: 'read_committed' });
    const published = await latestCounts(consumer, output, (counts) => total(counts) >= expectedTotal || [...expected].every(([w, n]) => counts.get(w) === n), 90_000);
    expect(Object.fromEntries(storeValues<number>(instance, STORE))).toEqual(Object.fromEntries(expected));
    expect(Object.fromEntries(published)).toEqual(Object.fromEntries(expected));
  }

  it(
    'REPLACE_THREAD: the failed thread is replaced, the instance stays up and every word is counted exactly once',
    async () => {
      const word = corpusLine(0).split(' ')[0]!;
      const { input, output, instance, events, states, producer } = await wordCountApp(2, 1, (i, o) => flakyWordCount(i, o, word, 500));
      const decided: Error[] = [];
      instance.setUncaughtExceptionHandler((error) => {
        decided.push(error);
        return 'REPLACE_THREAD';
      });
      await instance.start();
      await produceLines(producer, input, 0, 20_000);

      await expectExactCounts(instance, output, 20_000);
      await waitFor(() => instance.state === 'RUNNING', 'the instance RUNNING', 30_000);
      expect(states).not.toContain('ERROR');
      // As in Kafka Streams, the handler gets the processor's error wrapped, naming the processor and the task.
      expect(decided.map((e) => e.message)).toEqual([expect.stringContaining(`failed: a transient failure on the 500th "${word}"`)]);
      const [first] = instance.threads();
      expect(events).toEqual([
        { thread: expect.stringMatching(/-StreamThread-1$/), action: 'failed', error: decided[0]!.message, response: 'REPLACE_THREAD' },
        { thread: expect.stringMatching(/-StreamThread-1$/), action: 'replaced', replacement: first!.name },
      ]);
      expect(instance.threads().map((t) => t.name)).toEqual([expect.stringMatching(/-StreamThread-2$/)]);
      expect(failedThreads(instance)).toBe(1);
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );

  it(
    'addStreamThread and removeStreamThread move tasks onto a new thread and back, and nothing is lost or counted twice',
    async () => {
      const { input, output, instance, events, producer } = await wordCountApp(4, 1, (i, o) => flakyWordCount(i, o, 'no such word', 1));
      expect(await instance.addStreamThread()).toBeUndefined();
      await instance.start();
      await produceLines(producer, input, 0, 5_000);
      await waitFor(() => instance.state === 'RUNNING', 'the instance RUNNING', 60_000);

      const added = await instance.addStreamThread();
      expect(added).toMatch(/-StreamThread-2$/);
      const activeTasks = () => instance.threads().map((t) => t.activeTasks.length);
      await waitFor(() => instance.state === 'RUNNING' && activeTasks().length === 2 && activeTasks().every((n) => n > 0), 'both threads running tasks', 60_000);
      await produceLines(producer, input, 5_000, 10_000);

      const removed = await instance.removeStreamThread(30_000);
      // Should a thread have failed meanwhile, the diff shows its error and the thread events.
      expect({ removed, error: instance.lastError?.message, events }).toEqual({
        removed: expect.stringMatching(/-StreamThread-1$/),
        error: undefined,
        events: [
          { thread: added, action: 'added' },
          { thread: removed, action: 'removed' },
        ],
      });
      // Two sub-topologies (the word count repartitions by word) of four partitions: eight tasks.
      await waitFor(() => instance.state === 'RUNNING' && activeTasks().join() === '8', 'the remaining thread running all eight tasks', 60_000);
      expect(instance.threads().map((t) => t.name)).toEqual([added]);
      await produceLines(producer, input, 10_000, 15_000);

      await expectExactCounts(instance, output, 15_000);
      expect(await instance.removeStreamThread(30_000)).toBe(added);
      expect(await instance.removeStreamThread(30_000)).toBeUndefined();
      expect(instance.state).toBe('RUNNING');
      expect(events).toEqual([
        { thread: added, action: 'added' },
        { thread: removed, action: 'removed' },
        { thread: added, action: 'removed' },
      ]);
      expect(failedThreads(instance)).toBe(0);
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );
});

describe('SHUTDOWN_APPLICATION on a real broker', () => {
  const app = new WordCountProcesses('shutdown-app');
  afterAll(() => app.cleanUp(), 30_000);

  it(
    'one node failing stops every node of the application',
    async () => {
      await app.createTopics(2);
      const poison = 'a line no node can process';
      const config = (name: string) => ({ 'state.dir': `${app.workDir}/${name}`, 'uncaught.exception.handler': 'SHUTDOWN_APPLICATION', 'session.timeout.ms': 10_000 });
      const nodes = [app.start('node-a', config('node-a'), undefined, poison), app.start('node-b', config('node-b'), undefined, poison)] as const;
      const producer = await app.clients.producer();
      await produceLines(producer, app.input, 0, 1_000);
      await waitFor(() => bothHoldTasks(nodes), 'both nodes running tasks', 90_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${nodeLogs(nodes)}`);
      });

      await producer.send({ topic: app.input, messages: [{ key: 'poison', value: poison }] });
      await waitFor(() => nodes.every((node) => node.state === 'ERROR'), 'both nodes in ERROR', 90_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${nodeLogs(nodes)}`);
      });
      const errors = (await Promise.all(nodes.map((node) => node.status()))).map((s) => s.lastError);
      expect(errors).toContainEqual(expect.stringContaining(`cannot process the line "${poison}"`));
      expect(errors).toContainEqual(expect.stringMatching(/shut the application down \(SHUTDOWN_APPLICATION\)/));
    },
    BROKER_TEST_TIMEOUT_MS + 120_000,
  );
});
