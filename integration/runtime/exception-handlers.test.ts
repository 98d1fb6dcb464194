/**
 * Issue 15, "Must show" (failure handling): a processor that throws on one key, with a processing handler that
 * continues (given in code), keeps the instance RUNNING and the other keys counted exactly, and with
 * errors.dead.letter.queue.topic.name the failed record lands there, raw, with Kafka Streams' error headers; a record
 * too large for the broker (the output topic's max.message.bytes) follows default.production.exception.handler:
 * LogAndContinueProductionExceptionHandler produces the rest, DefaultProductionExceptionHandler fails the instance.
 */
import pino from 'pino';
import { DLQ_HEADERS, Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { ErrorHandlerContext, ProcessingExceptionHandler } from '../../src';
import { createTopics, type KafkaConsumer } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { latestCounts, tempStateDir, waitFor } from '../support/streams';
import { instancesUnderTest } from './support/stop-anyway';

/** The runtime logs every skipped record (warn) and the failure (error): expected here, so not shown unless asked. */
const quietLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'fatal' });

interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: Record<string, string>;
}

/** Reads `topic` from the start until `count` records arrived, with their headers as strings. */
async function consumeRaw(consumer: KafkaConsumer, topic: string, count: number, timeoutMs = 30_000): Promise<RawRecord[]> {
  const records: RawRecord[] = [];
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
      records.push({ key: message.key, value: message.value, timestamp: message.timestamp, headers });
    },
  });
  try {
    await waitFor(() => records.length >= count, `${count} records on ${topic} (got ${records.length})`, timeoutMs);
  } finally {
    await consumer.stop();
  }
  return records;
}

function taskMetricTotal(instance: StreamsInstance, name: string): number {
  return instance.metrics.metrics({ group: 'stream-task-metrics', name }).reduce((sum, m) => sum + Number(m.value), 0);
}

describe('exception handlers on a real broker', () => {
  const { clients, instances } = instancesUnderTest();

  const topics = async (specs: { name: string; configs?: Record<string, string> }[]) => {
    const admin = await clients.admin();
    await createTopics(admin, specs.map((s) => ({ partitions: 1, ...s })));
  };

  it(
    'skips the record a processor throws on, counts the other keys exactly, and sends the record to the dead-letter queue',
    async () => {
      const input = uniqueName('handlers-in');
      const output = uniqueName('handlers-out');
      const dlq = uniqueName('handlers-dlq');
      await topics([{ name: input }, { name: output }, { name: dlq }]);

      const builder = new StreamsBuilder();
      builder
        .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .mapValues((value, key) => {
          if (key === 'bad') throw new RangeError(`no ${value} for bad`);
          return value;
        })
        .groupByKey()
        .count()
        .toStream()
        .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });

      const seen: ErrorHandlerContext[] = [];
      const processing: ProcessingExceptionHandler = (context) => {
        seen.push(context);
        return 'CONTINUE';
      };
      const instance = new StreamsInstance(
        builder.build(),
        {
          'application.id': uniqueName('handlers'),
          'bootstrap.servers': bootstrapServers().join(','),
          'state.dir': tempStateDir(),
          'commit.interval.ms': 200,
          'errors.dead.letter.queue.topic.name': dlq,
        },
        { logger: quietLogger, exceptionHandlers: { processing } },
      );
      instances.push(instance);

      // 3 keys × 20 records, and one record of the key the processor throws on, in the middle (offset 30).
      const messages: { key: string; value: string; headers?: Record<string, string> }[] = [];
      for (let i = 0; i < 60; i++) {
        if (i === 30) messages.push({ key: 'bad', value: 'poison', headers: { origin: 'test' } });
        messages.push({ key: `k${i % 3}`, value: String(i) });
      }
      const producer = await clients.producer();
      await producer.send({ topic: input, messages });
      await instance.start();

      const counts = await latestCounts(await clients.consumer({ groupId: uniqueName('handlers-check') }), output, (c) => [0, 1, 2].every((k) => c.get(`k${k}`) === 20), 30_000);
      expect(Object.fromEntries(counts)).toEqual({ k0: 20, k1: 20, k2: 20 });

      const [dead] = await consumeRaw(await clients.consumer({ groupId: uniqueName('handlers-dlq-check') }), dlq, 1);
      expect(dead!.key!.toString()).toBe('bad');
      expect(dead!.value!.toString()).toBe('poison');
      expect(dead!.headers).toMatchObject({
        origin: 'test',
        [DLQ_HEADERS.exception]: 'RangeError',
        [DLQ_HEADERS.message]: 'no poison for bad',
        [DLQ_HEADERS.topic]: input,
        [DLQ_HEADERS.partition]: '0',
        [DLQ_HEADERS.offset]: '30',
      });
      expect(dead!.headers[DLQ_HEADERS.stacktrace]).toMatch(/^RangeError: no poison for bad\n\s+at /);

      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ taskId: '0_0', topic: input, partition: 0, offset: 30 });
      await waitFor(() => taskMetricTotal(instance, 'dead-letter-queue-records-total') === 1, 'the DLQ send in the metrics', 10_000);
      expect(taskMetricTotal(instance, 'dropped-records-total')).toBe(1);
      expect(instance.state).toBe('RUNNING');
      expect(instance.lastError).toBeUndefined();

      // Processing goes on after the skip.
      await producer.send({ topic: input, messages: [{ key: 'k0', value: 'late' }] });
      const after = await latestCounts(await clients.consumer({ groupId: uniqueName('handlers-check') }), output, (c) => c.get('k0') === 21, 30_000);
      expect(after.get('k0')).toBe(21);
      expect(instance.state).toBe('RUNNING');
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  /** input → output (whose max.message.bytes is 2 000): 40 small records around one of 10 000 bytes (offset 20). */
  const tooLarge = async (handler: string) => {
    const input = uniqueName('too-large-in');
    const output = uniqueName('too-large-out');
    await topics([{ name: input }, { name: output, configs: { 'max.message.bytes': '2000' } }]);
    const builder = new StreamsBuilder();
    builder.stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() }).to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
    const instance = new StreamsInstance(
      builder.build(),
      {
        'application.id': uniqueName('too-large'),
        'bootstrap.servers': bootstrapServers().join(','),
        'state.dir': tempStateDir(),
        'commit.interval.ms': 200,
        'default.production.exception.handler': handler,
      },
      { logger: quietLogger },
    );
    instances.push(instance);
    const messages = [];
    for (let i = 0; i < 41; i++) messages.push(i === 20 ? { key: 'large', value: 'x'.repeat(10_000) } : { key: `k${i}`, value: `v${i}` });
    await (await clients.producer()).send({ topic: input, messages });
    await instance.start();
    return { instance, output };
  };

  it(
    'skips a record the broker refuses under LogAndContinueProductionExceptionHandler, and produces the rest',
    async () => {
      const { instance, output } = await tooLarge('LogAndContinueProductionExceptionHandler');
      const records = await consumeRaw(await clients.consumer({ groupId: uniqueName('too-large-check') }), output, 40);
      // Each small record once, in order: the refused batch was split, not sent twice.
      expect(records.map((r) => r.key!.toString())).toEqual([...Array(41).keys()].filter((i) => i !== 20).map((i) => `k${i}`));
      await waitFor(() => taskMetricTotal(instance, 'dropped-records-total') === 1, 'the refused record in dropped-records', 10_000);
      expect(instance.state).toBe('RUNNING');
      expect(instance.lastError).toBeUndefined();
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'fails the instance with a clear error on a record the broker refuses under DefaultProductionExceptionHandler',
    async () => {
      const { instance, output } = await tooLarge('DefaultProductionExceptionHandler');
      await waitFor(() => instance.state === 'ERROR', 'the instance to be in ERROR', 30_000);
      expect(instance.lastError?.message).toContain(`the broker refused a record for ${output}`);
      expect(instance.lastError?.message).toMatch(/larger than the max message size/i);
      expect(taskMetricTotal(instance, 'dropped-records-total')).toBe(0);
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
