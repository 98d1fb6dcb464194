/**
 * Issue 4, "Must show": a poison record (a value the source's value serde cannot read) is skipped and counted in
 * `dropped-records-total` (stream-task-metrics) under LogAndContinueExceptionHandler, and moves the instance to
 * ERROR, with the error kept, under LogAndFailExceptionHandler. Two serdes: JSON (invalid JSON) and Long (3 bytes).
 */
import pino from 'pino';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { Serde, Topology } from '../../src';
import type { StateChange } from '../../src/streams/runtime/streams-state';
import { createTopics, type KafkaConsumer } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';
import { describeLog, transitionProblems } from './support/kafka-streams-states';
import { instancesUnderTest } from './support/stop-anyway';

/** The runtime logs every skipped record (warn) and the failure (error): expected here, so not shown unless asked. */
const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });

interface Case {
  serde: string;
  valueSerde: Serde<unknown>;
  /** The value of good record i, as bytes, and what the topology writes for it. */
  good(i: number): Buffer;
  doubled(i: number): Buffer;
  double(value: unknown): unknown;
  poison: Buffer;
}

const long = (n: number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(BigInt(n));
  return bytes;
};

const CASES: Case[] = [
  {
    serde: 'JSON',
    valueSerde: Serdes.Json(),
    good: (i) => Buffer.from(JSON.stringify({ n: i })),
    doubled: (i) => Buffer.from(JSON.stringify({ n: 2 * i })),
    double: (value) => ({ n: 2 * (value as { n: number }).n }),
    poison: Buffer.from('{"n": 1, oops'),
  },
  {
    serde: 'Long',
    valueSerde: Serdes.Long() as Serde<unknown>,
    good: (i) => long(i),
    doubled: (i) => long(2 * i),
    double: (value) => 2 * (value as number),
    poison: Buffer.from([1, 2, 3]),
  },
];

/** input → value doubled → output, with the case's value serde on both sides. */
function doubling(c: Case, input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream<string, unknown>(input, { keySerde: Serdes.String(), valueSerde: c.valueSerde })
    .mapValues((value) => c.double(value))
    .to(output, { keySerde: Serdes.String(), valueSerde: c.valueSerde });
  return builder.build();
}

/** Reads `topic` from the start until `count` records arrived: key → raw value bytes. */
async function consumeRaw(consumer: KafkaConsumer, topic: string, count: number, timeoutMs: number): Promise<Map<string, Buffer>> {
  const values = new Map<string, Buffer>();
  let received = 0;
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      received++;
      values.set(message.key!.toString('utf8'), message.value!);
    },
  });
  try {
    await waitFor(() => received >= count, `${count} records on ${topic} (got ${received})`, timeoutMs);
  } finally {
    await consumer.stop();
  }
  return values;
}

/** Sum of a stream-task-metrics metric over tasks, and per task. */
function taskMetric(instance: StreamsInstance, name: string): { total: number; byTask: Record<string, number> } {
  const byTask: Record<string, number> = {};
  for (const m of instance.metrics.metrics({ group: 'stream-task-metrics', name })) byTask[m.tags['task-id']!] = Number(m.value);
  return { total: Object.values(byTask).reduce((a, b) => a + b, 0), byTask };
}

describe('a poison record', () => {
  const { clients, instances } = instancesUnderTest();

  const setUp = async (c: Case, handler: string, partitions: number) => {
    const input = uniqueName('poison-in');
    const output = uniqueName('poison-out');
    const admin = await clients.admin();
    await createTopics(admin, [{ name: input, partitions }, { name: output, partitions }]);
    const applicationId = uniqueName('poison');
    const instance = new StreamsInstance(
      doubling(c, input, output),
      {
        'application.id': applicationId,
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'commit.interval.ms': 200,
        'default.deserialization.exception.handler': handler,
      },
      { logger: quietLogger },
    );
    instances.push(instance);
    const states: StateChange[] = [];
    instance.on('state', (change) => states.push(change));
    return { input, output, applicationId, instance, states, admin, producer: await clients.producer() };
  };

  /** LogAndFail: the instance goes to ERROR and keeps the error; with `listen`, the 'error' event carries it. */
  const failsToError = async (c: Case, listen: boolean) => {
    const { input, applicationId, instance, states, admin, producer } = await setUp(c, 'LogAndFailExceptionHandler', 1);
    const emitted: Error[] = [];
    if (listen) instance.on('error', (error) => emitted.push(error));
    // A close() while the instance fails returns once it is in ERROR, as in Kafka Streams.
    let stateAfterClose: string | undefined;
    instance.on('state', (change) => {
      if (change.state === 'PENDING_ERROR') void instance.close().then(() => (stateAfterClose = instance.state));
    });
    const messages = [];
    for (let i = 0; i < 11; i++) messages.push({ key: `k-${i}`, value: i === 5 ? c.poison : c.good(i) });
    await producer.send({ topic: input, messages });
    await instance.start();
    await waitFor(() => instance.state === 'ERROR', 'the instance to be in ERROR', 15_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; states: ${describeLog(states)}; lastError: ${String(instance.lastError)}`);
    });
    expect(instance.lastError).toBeInstanceOf(Error);
    expect(instance.lastError!.message).toContain(`${input}-0@5`);
    expect(instance.lastError!.message).toMatch(/deserializ/i);
    if (listen) expect(emitted).toEqual([instance.lastError]);
    await waitFor(() => stateAfterClose !== undefined, 'the close() made in PENDING_ERROR to return', 15_000);
    expect(stateAfterClose).toBe('ERROR');
    expect(transitionProblems('instance', states)).toEqual([]);
    expect(describeLog(states)).toMatch(/ -> PENDING_ERROR -> ERROR$/);
    // Nothing was dropped, and nothing committed past the poison: it is still there for a fixed topology.
    expect(taskMetric(instance, 'dropped-records-total').total).toBe(0);
    const [committed] = await admin.fetchOffsets({ groupId: applicationId, topics: [input] });
    expect(Number(committed!.partitions[0]!.offset)).toBeLessThanOrEqual(5);
    // ERROR is final: close() changes nothing, and the error stays.
    await instance.close();
    expect(instance.state).toBe('ERROR');
    expect(instance.lastError).toBeInstanceOf(Error);
  };

  describe.each(CASES)('for the $serde serde', (c) => {
    it(
      'is skipped and counted in dropped-records-total under LogAndContinueExceptionHandler',
      async () => {
        const { input, output, applicationId, instance, states, admin, producer } = await setUp(c, 'LogAndContinueExceptionHandler', 2);
        // Per partition: 50 good, the poison, 50 good.
        const good: { key: string; i: number; partition: number }[] = [];
        for (const partition of [0, 1]) {
          const messages = [];
          for (let j = 0; j < 101; j++) {
            if (j === 50) {
              messages.push({ key: `poison-${partition}`, value: c.poison, partition });
              continue;
            }
            const i = partition * 1000 + j;
            good.push({ key: `k-${i}`, i, partition });
            messages.push({ key: `k-${i}`, value: c.good(i), partition });
          }
          await producer.send({ topic: input, messages });
        }

        await instance.start();
        const consumer = await clients.consumer({ groupId: uniqueName('poison-check') });
        const received = await consumeRaw(consumer, output, good.length, 30_000);
        // Every good record made it, doubled; the poison did not.
        expect([...received.keys()].sort()).toEqual(good.map((g) => g.key).sort());
        for (const g of good) expect({ key: g.key, value: received.get(g.key)!.toString('hex') }).toEqual({ key: g.key, value: c.doubled(g.i).toString('hex') });

        // Counted once per task, in stream-task-metrics.
        await waitFor(() => taskMetric(instance, 'dropped-records-total').total === 2, 'two dropped records in the metrics', 10_000).catch((error: unknown) => {
          throw new Error(`${String(error)}: ${JSON.stringify(taskMetric(instance, 'dropped-records-total'))}`);
        });
        expect(taskMetric(instance, 'dropped-records-total').byTask).toEqual({ '0_0': 1, '0_1': 1 });
        expect(taskMetric(instance, 'dropped-records-rate').total).toBeGreaterThan(0);
        // The poison did not stop the partition: everything is committed past it.
        await waitFor(
          async () => {
            const [committed] = await admin.fetchOffsets({ groupId: applicationId, topics: [input] });
            return committed!.partitions.every((p) => Number(p.offset) === 101);
          },
          'offsets committed past the poison records',
          10_000,
        );
        expect(instance.state).toBe('RUNNING');
        expect(instance.lastError).toBeUndefined();
        expect(transitionProblems('instance', states)).toEqual([]);
        await instance.close();
        expect(describeLog(states)).toBe('CREATED -> REBALANCING -> RUNNING -> PENDING_SHUTDOWN -> NOT_RUNNING');
      },
      BROKER_TEST_TIMEOUT_MS,
    );

    it(
      'moves the instance to ERROR, with the error kept and emitted, under LogAndFailExceptionHandler',
      () => failsToError(c, true),
      BROKER_TEST_TIMEOUT_MS,
    );
  });

  it(
    'moves the instance to ERROR under LogAndFailExceptionHandler also when nobody listens to its error event',
    () => failsToError(CASES[0]!, false),
    BROKER_TEST_TIMEOUT_MS,
  );
});
