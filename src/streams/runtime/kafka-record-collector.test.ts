import { type KafkaProducer, partitionForKey, producedRecordsOf } from '../kafka';
import { ProduceBuffer } from './produce-buffer';
import { KafkaRecordCollector } from './kafka-record-collector';

type SendBatch = KafkaProducer['sendBatch'];
type Batch = Parameters<SendBatch>[0];
type Message = Batch['topicMessages'][number]['messages'][number];

/** The records a message stands for: itself, or the records of a partition written as they were produced. */
const recordsIn = (message: Message) => producedRecordsOf(message)?.read() ?? [message];

/** The values a request carries, each topic's in order. */
const valuesOf = (batch: Batch) => (batch.topicMessages ?? []).flatMap((t) => t.messages.flatMap(recordsIn).map((m) => String(m.value)));

/** A producer whose sends fail while `failure()` gives an error, and which records what it accepted, in order. */
function fakeProducer(failure: () => Error | undefined) {
  const accepted: string[] = [];
  const attempts: number[] = [];
  const sendBatch = async (batch: Batch) => {
    const values = valuesOf(batch);
    attempts.push(values.length);
    const error = failure();
    if (error) throw error;
    accepted.push(...values);
    return (batch.topicMessages ?? []).map((t) => ({ topicName: t.topic, partition: 0, errorCode: 0, baseOffset: String(accepted.length - t.messages.flatMap(recordsIn).length) }));
  };
  return { producer: { sendBatch } as unknown as KafkaProducer, accepted, attempts };
}

/** What kafkajs rejects a send with once its own retries against an unreachable broker are spent. */
const unreachable = () =>
  Object.assign(new Error('Connection error: connect ECONNREFUSED', { cause: Object.assign(new Error('connect ECONNREFUSED'), { name: 'KafkaJSConnectionError', retriable: true }) }), {
    name: 'KafkaJSNumberOfRetriesExceeded',
    retriable: false,
  });

describe('KafkaRecordCollector', () => {
  it("keeps each produce request under the broker's size limit, in order, whatever the record count allows", async () => {
    const { producer, accepted, attempts } = fakeProducer(() => undefined);
    const collector = new KafkaRecordCollector(producer, new Map([['out', 1]]), { maxBatch: 5_000, maxBatchBytes: 10_000, retryForMs: 0 });
    const value = 'v'.repeat(1_000);
    for (let i = 0; i < 25; i++) collector.send({ topic: 'out', partition: 0, key: Buffer.from(`k${i}`), value: Buffer.from(`${i}:${value}`), timestamp: 0, headers: { h: 'x' } });
    await collector.flush();
    expect(accepted.map((v) => v.split(':')[0])).toEqual(Array.from({ length: 25 }, (_, i) => String(i)));
    // About 1 030 bytes a record: nine fit in 10 000 bytes.
    expect(attempts).toEqual([9, 9, 7]);
  });

  it('sends a record larger than the limit on its own rather than never', async () => {
    const { producer, attempts } = fakeProducer(() => undefined);
    const collector = new KafkaRecordCollector(producer, new Map([['out', 1]]), { maxBatchBytes: 100, retryForMs: 0 });
    for (let i = 0; i < 2; i++) collector.send({ topic: 'out', partition: 0, key: null, value: Buffer.alloc(500), timestamp: 0, headers: {} });
    await collector.flush();
    expect(attempts).toEqual([1, 1]);
  });

  it('sends a consumed record on whose headers Kafka allows a null value and a repeated name', async () => {
    const { producer, accepted } = fakeProducer(() => undefined);
    const collector = new KafkaRecordCollector(producer, new Map([['out', 1]]), { retryForMs: 0 });
    // As a fetched record carries them: the processor API's Headers type has no place for either.
    const headers = { empty: null, twice: [Buffer.from('1'), Buffer.from('2')] } as unknown as Record<string, Buffer>;
    collector.send({ topic: 'out', partition: 0, key: null, value: 'v', timestamp: 0, headers });
    await collector.flush();
    expect(accepted).toEqual(['v']);
  });

  it('sends a batch again after a transient failure, before anything produced later, and loses nothing', async () => {
    let failures = 2;
    const { producer, accepted } = fakeProducer(() => (failures-- > 0 ? unreachable() : undefined));
    const retried: number[] = [];
    const collector = new KafkaRecordCollector(producer, new Map([['out', 1]]), { maxBatch: 2, retryForMs: 60_000, onRetry: (_error, attempt) => retried.push(attempt) });
    for (const value of ['a', 'b', 'c', 'd', 'e']) collector.send({ topic: 'out', partition: 0, key: null, value: Buffer.from(value), timestamp: 0, headers: {} });
    await collector.flush();
    expect(accepted).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(retried).toEqual([1, 2]);
    expect(collector.writtenOffset('out', 0)).toBe(4);
  });

  it('fails once task.timeout.ms has passed since the first failure', async () => {
    const { producer, attempts } = fakeProducer(unreachable);
    const collector = new KafkaRecordCollector(producer, new Map(), { maxBatch: 10, retryForMs: 250 });
    collector.send({ topic: 'out', key: null, value: Buffer.from('a'), timestamp: 0, headers: {} });
    await expect(collector.flush()).rejects.toThrow(/retried for task.timeout.ms = 250/);
    expect(attempts.length).toBeGreaterThan(1);
    expect(() => collector.send({ topic: 'out', key: null, value: Buffer.from('b'), timestamp: 0, headers: {} })).toThrow(/sending records to Kafka failed/);
  });

  it('fails at once on an error that retrying cannot cure', async () => {
    const { producer, attempts } = fakeProducer(() => Object.assign(new Error('too large'), { retriable: false }));
    const collector = new KafkaRecordCollector(producer, new Map(), { maxBatch: 10, retryForMs: 60_000 });
    collector.send({ topic: 'out', key: null, value: Buffer.from('a'), timestamp: 0, headers: {} });
    await expect(collector.flush()).rejects.toThrow(/sending records to Kafka failed: too large/);
    expect(attempts).toEqual([1]);
  });

  it("holds each record's bytes in the thread's buffer from send until the broker acknowledges its batch", async () => {
    let release!: () => void;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const sent: number[] = [];
    const producer = {
      sendBatch: async (batch: Batch) => {
        await gate;
        sent.push(valuesOf(batch).length);
        return [];
      },
    } as unknown as KafkaProducer;
    const buffer = new ProduceBuffer(1_000);
    const collector = new KafkaRecordCollector(producer, new Map(), { maxBatch: 10, retryForMs: 60_000, buffer });
    for (let i = 0; i < 45; i++) collector.send({ topic: 'out', key: null, value: Buffer.alloc(10), timestamp: 0, headers: {} });
    // 45 records of 10 bytes and Kafka's per-record overhead (24) wait or are in flight.
    expect(buffer.usedBytes).toBe(45 * 34);
    expect(buffer.full).toBe(true);
    let drained = false;
    const draining = buffer.drained().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    release();
    gate = Promise.resolve();
    await draining;
    expect(buffer.usedBytes).toBeLessThanOrEqual(500);
    await collector.flush();
    expect(sent.reduce((a, b) => a + b, 0)).toBe(45);
    expect(buffer.usedBytes).toBe(0);
    expect(buffer.waits).toBe(1);
    expect(buffer.waitedNs).toBeGreaterThan(0);
  });

  it('frees its part of the buffer when its task is dropped and when a send fails for good', async () => {
    const buffer = new ProduceBuffer(10_000);
    const stuck = { sendBatch: () => new Promise(() => undefined) } as unknown as KafkaProducer;
    const dropped = new KafkaRecordCollector(stuck, new Map(), { maxBatch: 10, buffer });
    for (let i = 0; i < 25; i++) dropped.send({ topic: 'out', key: null, value: Buffer.alloc(10), timestamp: 0, headers: {} });
    expect(buffer.usedBytes).toBe(25 * 34);
    dropped.discard();
    expect(buffer.usedBytes).toBe(0);

    const failing = { sendBatch: async () => Promise.reject(new Error('refused for good')) } as unknown as KafkaProducer;
    const failed = new KafkaRecordCollector(failing, new Map(), { maxBatch: 10, retryForMs: 0, buffer });
    for (let i = 0; i < 25; i++) failed.send({ topic: 'out', key: null, value: Buffer.alloc(10), timestamp: 0, headers: {} });
    await expect(failed.flush()).rejects.toThrow(/refused for good/);
    expect(buffer.usedBytes).toBe(0);
  });

  describe('a record the broker refuses', () => {
    /** A producer that, as a broker with max.message.bytes 100, refuses a whole request holding a value over 100 bytes. */
    function refusingLarge() {
      const accepted: string[] = [];
      const requests: number[] = [];
      const sendBatch = async (batch: Batch) => {
        const values = valuesOf(batch);
        requests.push(values.length);
        if (values.some((v) => v.length > 100)) throw Object.assign(new Error('The request included a message larger than the max message size the server will accept'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', retriable: false });
        accepted.push(...values);
        return [];
      };
      return { producer: { sendBatch } as unknown as KafkaProducer, accepted, requests };
    }
    const sendAll = (collector: KafkaRecordCollector) => {
      for (let i = 0; i < 8; i++) collector.send({ topic: 'out', partition: 0, key: null, value: Buffer.from(i === 5 ? 'x'.repeat(200) : `v${i}`), timestamp: 0, headers: {} });
    };

    it('is found by splitting the batch in halves, and skipped when the handler continues: the rest is sent once, in order', async () => {
      const { producer, accepted, requests } = refusingLarge();
      const refused: string[] = [];
      const collector = new KafkaRecordCollector(producer, new Map(), {
        retryForMs: 0,
        onRefused: (record, error) => {
          refused.push(`${record.topic}:${String(record.value).length}:${(error as { type?: string }).type}`);
          return 'CONTINUE';
        },
      });
      sendAll(collector);
      await collector.flush();
      expect(accepted).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v6', 'v7']);
      expect(refused).toEqual(['out:200:MESSAGE_TOO_LARGE']);
      // v0-v7 refused; v0-v3 sent; v4-v7 refused; v4-v5 refused; v4 sent; v5 refused alone; v6-v7 sent.
      expect(requests).toEqual([8, 4, 4, 2, 1, 1, 2]);
    });

    it("fails the sends when the handler fails, after what preceded it, naming what the broker refused", async () => {
      const { producer, accepted } = refusingLarge();
      const collector = new KafkaRecordCollector(producer, new Map(), { retryForMs: 0, onRefused: () => 'FAIL' });
      sendAll(collector);
      await expect(collector.flush()).rejects.toThrow(/the broker refused a record for out: The request included a message larger/);
      expect(accepted).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
      expect(() => collector.send({ topic: 'out', key: null, value: null, timestamp: 0, headers: {} })).toThrow(/refused/);
    });

    it('fails the whole batch, unsplit, without a handler (exactly-once)', async () => {
      const { producer, accepted, requests } = refusingLarge();
      const collector = new KafkaRecordCollector(producer, new Map(), { retryForMs: 0 });
      sendAll(collector);
      await expect(collector.flush()).rejects.toThrow(/the broker refused records for out/);
      expect(accepted).toEqual([]);
      expect(requests).toEqual([8]);
    });

    it('fails the sends when the handler throws', async () => {
      const { producer } = refusingLarge();
      const collector = new KafkaRecordCollector(producer, new Map(), {
        retryForMs: 0,
        onRefused: () => {
          throw new Error('handler bug');
        },
      });
      sendAll(collector);
      await expect(collector.flush()).rejects.toThrow('the production exception handler threw: handler bug');
    });
  });
});

describe('KafkaRecordCollector, records of a topic whose partitions it knows', () => {
  /** A producer that keeps each request's partitions as written, with their records. */
  function recordingProducer() {
    const requests: { topic: string; partition: number | undefined; keys: string[] }[][] = [];
    const sendBatch = async (batch: Batch) => {
      requests.push(
        batch.topicMessages.flatMap((t) =>
          t.messages.map((m) => {
            const written = producedRecordsOf(m);
            return { topic: t.topic, partition: written?.partition ?? m.partition ?? undefined, keys: recordsIn(m).map((r) => String(r.key)) };
          }),
        ),
      );
      return batch.topicMessages.flatMap((t) => t.messages.map((m) => ({ topicName: t.topic, partition: m.partition!, errorCode: 0, baseOffset: '10' })));
    };
    return { producer: { sendBatch } as unknown as KafkaProducer, requests };
  }

  it("writes each record into its partition's records as sent, partitioned by its key's murmur2 as Java's producer does", async () => {
    const { producer, requests } = recordingProducer();
    const collector = new KafkaRecordCollector(producer, new Map([['words', 4]]), { retryForMs: 0 });
    // murmur2.test.ts checks partitionForKey against Java's partitions.
    for (const key of ['kafka', 'streams', 'sluice', 'kafka']) collector.send({ topic: 'words', key, value: key, timestamp: 1, headers: {} });
    await collector.flush();
    const partitions = requests[0]!;
    expect(partitions.every((p) => p.topic === 'words')).toBe(true);
    expect(partitions.flatMap((p) => p.keys).sort()).toEqual(['kafka', 'kafka', 'sluice', 'streams']);
    for (const { partition, keys } of partitions) for (const key of keys) expect(partition).toBe(partitionForKey(key, 4));
    const kafka = partitions.find((p) => p.keys.includes('kafka'))!;
    expect(kafka.keys.filter((k) => k === 'kafka')).toHaveLength(2);
    expect(collector.writtenOffset('words', kafka.partition!)).toBe(10 + kafka.keys.length - 1);
  });

  it('spreads records without key or partition round robin over the partitions', async () => {
    const { producer, requests } = recordingProducer();
    const collector = new KafkaRecordCollector(producer, new Map([['events', 3]]), { retryForMs: 0 });
    for (let i = 0; i < 6; i++) collector.send({ topic: 'events', key: null, value: `e${i}`, timestamp: 1, headers: {} });
    await collector.flush();
    expect(requests[0]!.map((p) => p.keys.length)).toEqual([2, 2, 2]);
  });

  it('hands kafkajs the records of a topic it does not know the partitions of, to partition them', async () => {
    const { producer, requests } = recordingProducer();
    const collector = new KafkaRecordCollector(producer, new Map(), { retryForMs: 0 });
    collector.send({ topic: 'chosen-per-record', key: 'k', value: 'v', timestamp: 1, headers: {} });
    await collector.flush();
    expect(requests).toEqual([[{ topic: 'chosen-per-record', partition: undefined, keys: ['k'] }]]);
  });
});
