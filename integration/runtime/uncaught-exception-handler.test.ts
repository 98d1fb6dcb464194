/**
 * Issue 15, "Must show" (threads): a processor that throws once, with REPLACE_THREAD, keeps the instance RUNNING,
 * every word counted exactly (exactly-once: the failed thread's open transactions abort, its stores restore) and the
 * thread replaced, which a `thread` event and the failed-stream-threads metric tell, whether the thread ran on the
 * instance's event loop or in a worker; addStreamThread and removeStreamThread spread the tasks over one more thread
 * (in a worker) and back, losing and repeating nothing; and SHUTDOWN_APPLICATION, set in the configuration, stops
 * both nodes of a two-node application.
 */
import pino from 'pino';
import * as path from 'node:path';
import { StreamsInstance } from '../../src';
import type { ThreadEvent, Topology, TopologySource } from '../../src';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { corpusLine, expectedCounts, latestCounts, produceLines, queriedStoreValues, tempStateDir, waitFor } from '../support/streams';
import { bothHoldTasks, nodeLogs } from '../faults/support/two-nodes';
import { instancesUnderTest } from './support/stop-anyway';
import { flakyWordCount, flakyWordCountSource, THREAD_STORE as STORE } from './support/thread-topologies';
import { WordCountProcesses } from './support/word-count-processes';

/** The runtime logs the failure (error) and the replacement (warn): expected here, so not shown unless asked. */
const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });

const failedThreads = (instance: StreamsInstance): number =>
  Number(instance.metrics.metrics({ group: 'stream-metrics', name: 'failed-stream-threads' })[0]?.value ?? Number.NaN);

describe('stream threads on a real broker', () => {
  const { clients, instances } = instancesUnderTest();

  /** The threads past the first run in workers, which build the topology from `source`. */
  async function wordCountApp(partitions: number, threads: number, topology: (input: string, output: string) => Topology, source: (input: string, output: string) => TopologySource) {
    const input = uniqueName('threads-in');
    const output = uniqueName('threads-out');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions }, { name: output, partitions }]);
    const instance = new StreamsInstance(
      topology(input, output),
      {
        'application.id': uniqueName('threads'),
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'processing.guarantee': 'exactly_once_v2',
        'num.stream.threads': threads,
      },
      { logger: quietLogger, topologySource: source(input, output) },
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
    let counted = new Map<string, number>();
    await waitFor(async () => total((counted = await queriedStoreValues<number>(instance, STORE))) >= expectedTotal, `${expectedTotal} words counted`, 90_000);
    const consumer = await clients.consumer({ groupId: uniqueName('threads-check'), isolationLevel: 'read_committed' });
    const published = await latestCounts(consumer, output, (counts) => total(counts) >= expectedTotal || [...expected].every(([w, n]) => counts.get(w) === n), 90_000);
    expect(Object.fromEntries(counted)).toEqual(Object.fromEntries(expected));
    expect(Object.fromEntries(published)).toEqual(Object.fromEntries(expected));
  }

  it(
    'REPLACE_THREAD: the failed thread is replaced, the instance stays up and every word is counted exactly once',
    async () => {
      const word = corpusLine(0).split(' ')[0]!;
      const { input, output, instance, events, states, producer } = await wordCountApp(2, 1, (i, o) => flakyWordCount(i, o, word, 500), (i, o) => flakyWordCountSource(i, o, word, 500));
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
    'REPLACE_THREAD of a thread in a worker: a new worker takes its place, and every word is counted exactly once',
    async () => {
      const word = corpusLine(0).split(' ')[0]!;
      const once = path.join(tempStateDir(), 'failed');
      const { input, output, instance, events, states, producer } = await wordCountApp(4, 2, (i, o) => flakyWordCount(i, o, word, 300, 'worker', once), (i, o) => flakyWordCountSource(i, o, word, 300, 'worker', once));
      instance.setUncaughtExceptionHandler(() => 'REPLACE_THREAD');
      await instance.start();
      await produceLines(producer, input, 0, 20_000);

      await expectExactCounts(instance, output, 20_000);
      await waitFor(() => instance.state === 'RUNNING', 'the instance RUNNING', 30_000);
      expect(states).not.toContain('ERROR');
      expect(events).toEqual([
        { thread: expect.stringMatching(/-StreamThread-2$/), action: 'failed', error: expect.stringContaining(`failed: a transient failure on the 300th "${word}"`), response: 'REPLACE_THREAD' },
        { thread: expect.stringMatching(/-StreamThread-2$/), action: 'replaced', replacement: expect.stringMatching(/-StreamThread-3$/) },
      ]);
      expect(instance.threads().map((t) => t.name)).toEqual([expect.stringMatching(/-StreamThread-1$/), expect.stringMatching(/-StreamThread-3$/)]);
      expect(failedThreads(instance)).toBe(1);
      // The worker's thread metrics reach the instance's registry, tagged with its thread id.
      await waitFor(() => instance.metrics.metrics({ group: 'stream-thread-metrics', name: 'process-total' }).some((m) => m.tags['thread-id']!.endsWith('-StreamThread-3')), 'the replacement\'s metrics', 10_000);
    },
    BROKER_TEST_TIMEOUT_MS + 60_000,
  );

  it(
    'addStreamThread and removeStreamThread move tasks onto a new thread and back, and nothing is lost or counted twice',
    async () => {
      const { input, output, instance, events, producer } = await wordCountApp(4, 1, (i, o) => flakyWordCount(i, o, 'no such word', 1), (i, o) => flakyWordCountSource(i, o, 'no such word', 1));
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
  const workersApp = new WordCountProcesses('shutdown-workers');
  afterAll(() => Promise.all([app.cleanUp(), workersApp.cleanUp()]), 30_000);

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

  it(
    "a stream thread in a worker failing stops every node: the request leaves through the node's other thread",
    async () => {
      await workersApp.createTopics(4);
      const poison = 'a line only a worker cannot process';
      const config = (name: string) => ({
        'state.dir': `${workersApp.workDir}/${name}`,
        'num.stream.threads': 2,
        'uncaught.exception.handler': 'SHUTDOWN_APPLICATION',
        'session.timeout.ms': 10_000,
      });
      // Node a's threads in workers fail on the poison; node b never fails: it stops only if the request reaches it.
      const nodes = [
        workersApp.start('node-a', config('node-a'), undefined, poison, 'worker'),
        workersApp.start('node-b', config('node-b'), undefined, 'a line never sent'),
      ] as const;
      const workerHoldsTask = async () => nodes.every((node) => node.state === 'RUNNING') && ((await nodes[0].threads())[1]?.activeTasks.length ?? 0) > 0;
      await waitFor(workerHoldsTask, "node a's thread in a worker running a task", 90_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${nodeLogs(nodes)}`);
      });

      const producer = await workersApp.clients.producer();
      await producer.send({ topic: workersApp.input, messages: [0, 1, 2, 3].map((partition) => ({ key: 'poison', value: poison, partition })) });
      await waitFor(() => nodes.every((node) => node.state === 'ERROR'), 'both nodes in ERROR', 90_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${nodeLogs(nodes)}`);
      });
      const [a, b] = await Promise.all(nodes.map((node) => node.status()));
      expect(a!.lastError).toContain(`cannot process the line "${poison}"`);
      expect(b!.lastError).toMatch(/shut the application down \(SHUTDOWN_APPLICATION\)/);
    },
    BROKER_TEST_TIMEOUT_MS + 120_000,
  );
});
