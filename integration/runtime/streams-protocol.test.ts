/**
 * `group.protocol=streams` (KIP-1071) end to end on a real broker: two Sluice instances in one streams group run the
 * word count, the group coordinator splitting its tasks between them; the counts in the output topic are exact; the
 * host map names both endpoints; one instance closes (leaving with epoch -1) and the other takes every task, the
 * counts staying exact; Kafka's own `kafka-streams-groups.sh` lists both members; a node whose thread fails under
 * SHUTDOWN_APPLICATION stops both, through the coordinator. On a
 * broker without the protocol (Kafka 3.9) the first test checks instead that Sluice refuses to start with it.
 */
import { StreamsInstance } from '../../src';
import { StreamsProtocolUnsupported } from '../../src/errors';
import { WORD_COUNT_STORE, wordCountTopology } from '../../examples/word-count';
import { parseKafkaVersion } from '../../src/host/broker/jars';
import { createTopics, StreamsGroupHeartbeats } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { runKafkaTool, STREAMS_GROUP_COMMAND } from '../support/kafka-tools';
import { corpusLine, produceLines, storeValues, tempStateDir, testLogger, waitFor } from '../support/streams';
import { instancesUnderTest } from './support/stop-anyway';
import { failingLines } from './support/thread-topologies';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

/** Thousands of lines in each of two rounds: enough for every task to process while the group changes. */
const LINES = 5_000;
const PARTITIONS = 4;
/** The word count's tasks: its two sub-topologies on each partition. */
const TASKS = 2 * PARTITIONS;
const NODE_A = '127.0.0.1:17201';
const NODE_B = '127.0.0.1:17202';

/** The counts the example word count (split on non-word characters, lower case) makes of lines [0, lines). */
function expectedCounts(lines: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < lines; i++) {
    for (const word of corpusLine(i).toLowerCase().split(/\W+/).filter((w) => w.length > 0)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

describe('group.protocol=streams', () => {
  const { clients, instances } = instancesUnderTest();

  function create(applicationId: string, input: string, output: string, server: string, topology = wordCountTopology(input, output), more: Record<string, string> = {}): StreamsInstance {
    const instance = new StreamsInstance(
      topology,
      {
        ...more,
        'application.id': applicationId,
        'bootstrap.servers': bootstrapServers().join(','),
        'application.server': server,
        'state.dir': tempStateDir(),
        'group.protocol': 'streams',
        'commit.interval.ms': 200,
      },
      { logger: testLogger },
    );
    instances.push(instance);
    return instance;
  }

  const tasksOf = (instance: StreamsInstance) => instance.threads().flatMap((t) => t.activeTasks.map((task) => task.taskId));

  /** The latest count per word in the output topic, read from the start by a consumer of its own. */
  async function outputCounts(output: string, expected: Map<string, number>): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const consumer = await clients.consumer({ groupId: uniqueName('streams-check') });
    await consumer.subscribe({ topics: [output], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) if (m.key && m.value) counts.set(m.key.toString('utf8'), Number(m.value.readBigInt64BE(0)));
      },
    });
    try {
      await waitFor(() => [...expected].every(([word, n]) => (counts.get(word) ?? 0) >= n), 'the output topic to reach the expected counts', 90_000).catch(() => undefined);
      // Anything counted twice shows once the counts have settled: wait a little beyond.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await consumer.disconnect();
    }
    return counts;
  }

  it('splits the word count between two instances, counts exactly, names both endpoints, and moves every task to the one left', async () => {
    const probe = new StreamsGroupHeartbeats(clients.kafka, uniqueName('probe'));
    const offered = await probe.offered().finally(() => probe.close());
    const applicationId = uniqueName('streams-wc');
    const input = uniqueName('streams-wc-in');
    const output = uniqueName('streams-wc-out');
    await createTopics(await clients.admin(), [
      { name: input, partitions: PARTITIONS },
      { name: output, partitions: PARTITIONS },
    ]);

    if (!offered) {
      const refused = create(applicationId, input, output, NODE_A);
      await expect(refused.start()).rejects.toThrow(StreamsProtocolUnsupported);
      expect(refused.lastError?.message ?? '').toMatch(/does not offer StreamsGroupHeartbeat \(API key 88\)/);
      return;
    }

    const producer = await clients.producer();
    await produceLines(producer, input, 0, LINES);
    const a = create(applicationId, input, output, NODE_A);
    const b = create(applicationId, input, output, NODE_B);
    const started = Date.now();
    await Promise.all([a.start(), b.start()]);

    // Both run, each with some of the tasks, together all of them, and each host map names both endpoints.
    const split = () =>
      a.state === 'RUNNING' &&
      b.state === 'RUNNING' &&
      tasksOf(a).length > 0 &&
      tasksOf(b).length > 0 &&
      tasksOf(a).length + tasksOf(b).length === TASKS &&
      [a, b].every((instance) => instance.allMetadata().length === 2 && instance.allMetadata().flatMap((h) => h.topicPartitions).length === TASKS);
    await waitFor(split, 'both instances running with the tasks split and a host map of both', 90_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\nA (${a.state}): ${JSON.stringify(tasksOf(a))} ${JSON.stringify(a.allMetadata())}\nB (${b.state}): ${JSON.stringify(tasksOf(b))}`);
    });
    process.stderr.write(`streams protocol: both instances running with the tasks split and both host maps complete ${Date.now() - started} ms after start\n`);
    expect(new Set([...tasksOf(a), ...tasksOf(b)]).size).toBe(TASKS);
    for (const instance of [a, b]) {
      expect(instance.allMetadata().map((h) => h.endpoint)).toEqual([NODE_A, NODE_B]);
      expect(instance.allMetadata().map((h) => h.isLocal)).toEqual([instance === a, instance === b]);
      // Every input partition of both sub-topologies once; the store where the counting tasks are.
      expect(instance.allMetadata().flatMap((h) => h.topicPartitions)).toHaveLength(TASKS);
      const counting = instance.allMetadata().filter((h) => h.topicPartitions.some((tp) => tp.topic !== input));
      expect(instance.metadataForStore(WORD_COUNT_STORE).map((h) => h.endpoint)).toEqual(counting.map((h) => h.endpoint));
    }

    const first = expectedCounts(LINES);
    expect(Object.fromEntries(await outputCounts(output, first))).toEqual(Object.fromEntries(first));

    // Kafka's own kafka-streams-groups.sh lists the group's two members, one per instance's process, with their tasks.
    const described = await runKafkaTool(parseKafkaVersion('4.2').version, STREAMS_GROUP_COMMAND, [
      '--bootstrap-server',
      bootstrapServers().join(','),
      '--describe',
      '--members',
      '--verbose',
      '--group',
      applicationId,
    ]);
    process.stderr.write(`streams protocol: kafka-streams-groups --describe --members --verbose:\n${described.stdout}`);
    const memberLines = described.stdout.split('\n').filter((line) => line.startsWith(applicationId));
    expect(memberLines).toHaveLength(2);
    // `ACTIVE: 0:[1,3]; 1:[1,3];` as task ids, `0_1`, `0_3`, ...
    const listedTasks = (line: string) =>
      [...(/ ACTIVE: (.*?) TARGET-ACTIVE:/.exec(line)?.[1] ?? '').matchAll(/(\d+):\[([\d,]*)\]/g)].flatMap(([, sub, partitions]) => partitions!.split(',').map((p) => `${sub}_${p}`));
    for (const instance of [a, b]) {
      const line = memberLines.find((l) => l.includes(instance.processId));
      expect(line).toMatch(/ streams /);
      expect(listedTasks(line!).sort()).toEqual([...tasksOf(instance)].sort());
    }

    // A leaves: B takes every task, and counts the second round on top of the first, exactly.
    const closing = Date.now();
    await a.close();
    await produceLines(producer, input, LINES, 2 * LINES);
    await waitFor(() => b.state === 'RUNNING' && tasksOf(b).length === TASKS, 'the instance left to take every task', 90_000);
    process.stderr.write(`streams protocol: the instance left holds every task ${Date.now() - closing} ms after the other began to close\n`);
    const both = expectedCounts(2 * LINES);
    expect(Object.fromEntries(await outputCounts(output, both))).toEqual(Object.fromEntries(both));
    await waitFor(() => storeValues(b, WORD_COUNT_STORE).size === both.size, 'the store of the instance left to hold every word', 30_000);
    expect(Object.fromEntries(storeValues<number>(b, WORD_COUNT_STORE))).toEqual(Object.fromEntries(both));
    await waitFor(() => b.allMetadata().length === 1, 'the host map to name the instance left alone', 30_000);
    expect(b.allMetadata().map((h) => h.endpoint)).toEqual([NODE_B]);
  });
});

describe('group.protocol=streams: SHUTDOWN_APPLICATION', () => {
  const { clients, instances } = instancesUnderTest();

  it('one node failing stops both nodes, the request carried by its heartbeat', async () => {
    const probe = new StreamsGroupHeartbeats(clients.kafka, uniqueName('probe'));
    const offered = await probe.offered().finally(() => probe.close());
    if (!offered) return;
    const applicationId = uniqueName('streams-shutdown');
    const input = uniqueName('streams-shutdown-in');
    const output = uniqueName('streams-shutdown-out');
    await createTopics(await clients.admin(), [
      { name: input, partitions: PARTITIONS },
      { name: output, partitions: PARTITIONS },
    ]);
    const poison = 'a line no node can process';
    const node = (server: string) => {
      const instance = new StreamsInstance(
        failingLines(input, output, poison),
        {
          'application.id': applicationId,
          'bootstrap.servers': bootstrapServers().join(','),
          'application.server': server,
          'state.dir': tempStateDir(),
          'group.protocol': 'streams',
          'uncaught.exception.handler': 'SHUTDOWN_APPLICATION',
        },
        { logger: testLogger },
      );
      instances.push(instance);
      return instance;
    };
    const nodes = [node(NODE_A), node(NODE_B)];
    await Promise.all(nodes.map((n) => n.start()));
    const holding = () => nodes.every((n) => n.state === 'RUNNING' && n.threads().some((t) => t.activeTasks.length > 0));
    await waitFor(holding, 'both nodes running tasks', 90_000);
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: [{ key: 'poison', value: poison }] });
    await waitFor(() => nodes.every((n) => n.state === 'ERROR'), 'both nodes in ERROR', 90_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${nodes.map((n) => `${n.state} ${n.lastError?.message}`).join('; ')}`);
    });
    const errors = nodes.map((n) => n.lastError?.message ?? '');
    expect(errors).toContainEqual(expect.stringContaining(`cannot process the line "${poison}"`));
    expect(errors).toContainEqual(expect.stringMatching(/shut the application down \(SHUTDOWN_APPLICATION\)/));
  });
});
