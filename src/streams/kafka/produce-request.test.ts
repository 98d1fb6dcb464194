import type { Message } from 'kafkajs';
import { encodeProduceRequest, groupMessagesPerPartition, oneBufferProduceRequest } from './produce-request';
import { ProducedRecords, producedRecordsMessage } from './produced-records';
import type { ProduceMessage, ProduceRequestArgs } from './produce-request';
import { kafkajsFixesInstalled } from './kafkajs';
import { kafkajsOriginal } from './testing/kafkajs-original';

type KafkajsRequest = (args: ProduceRequestArgs & { compression?: number }) => { encode(): Promise<{ buffer: Buffer }> };
const kafkajsRequest = kafkajsOriginal<KafkajsRequest>('kafkajs/src/protocol/requests/produce/v3/request');
const NOW = 1_795_000_000_000;

const kafkajsBytes = async (args: ProduceRequestArgs & { compression?: number }) => (await kafkajsRequest(args).encode()).buffer;
const sluiceBytes = async (args: ProduceRequestArgs & { compression?: number }) =>
  ((await oneBufferProduceRequest(kafkajsRequest)(args).encode()) as { buffer: Buffer }).buffer;

/** A deterministic mix: string, Buffer and null keys and values, multi-byte text, headers, timestamps out of order. */
function messages(count: number, seed: number): ProduceMessage[] {
  const out: ProduceMessage[] = [];
  for (let i = 0; i < count; i++) {
    const n = (i * 7919 + seed) % 1000;
    out.push({
      key: n % 5 === 0 ? null : n % 5 === 1 ? Buffer.from([n % 256, 0, 255]) : `key-${n}-ü€`,
      value: n % 7 === 0 ? null : n % 7 === 1 ? Buffer.alloc(n * 40, n % 256) : `value ${i} ${'x'.repeat(n % 300)}`,
      timestamp: String(NOW + ((n * 37) % 5000) - 2500),
      headers: n % 3 === 0 ? { trace: `t-${n}`, bin: Buffer.from('héader'), many: ['a', Buffer.from('b')] } : undefined,
    });
  }
  return out;
}

beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
afterEach(() => jest.restoreAllMocks());

it('is what kafkajs runs for produce requests', () => {
  expect(kafkajsFixesInstalled).toBe(true);
  expect(require('kafkajs/src/protocol/requests/produce/v3/request')).not.toBe(kafkajsRequest);
});

it('writes the bytes kafkajs writes: several topics and partitions, every kind of key, value and header', async () => {
  const args: ProduceRequestArgs = {
    acks: -1,
    timeout: 30_000,
    topicData: [
      { topic: 'words', partitions: [0, 1, 2].map((partition) => ({ partition, messages: messages(400 + partition * 50, partition) })) },
      { topic: 'tëxt-counts', partitions: [{ partition: 7, messages: messages(3, 99) }] },
    ],
  };
  const ours = await sluiceBytes(args);
  expect(ours.length).toBeGreaterThan(100_000);
  expect(ours.equals(await kafkajsBytes(args))).toBe(true);
});

it('writes the bytes kafkajs writes for a request of more records than it first has room to size, then for a small one', async () => {
  const large: ProduceRequestArgs = {
    acks: -1,
    timeout: 30_000,
    topicData: [{ topic: 'words', partitions: [0, 1, 2].map((partition) => ({ partition, messages: messages(4_000 + partition, partition) })) }],
  };
  expect((await sluiceBytes(large)).equals(await kafkajsBytes(large))).toBe(true);
  const small: ProduceRequestArgs = { acks: 1, timeout: 1_000, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messages(2, 5) }] }] };
  expect((await sluiceBytes(small)).equals(await kafkajsBytes(small))).toBe(true);
});

it('writes the bytes kafkajs writes for a transactional, idempotent batch', async () => {
  const args: ProduceRequestArgs = {
    acks: -1,
    timeout: 5_000,
    transactionalId: 'app-0_1',
    producerId: '4611686018427387904',
    producerEpoch: 3,
    topicData: [{ topic: 't', partitions: [{ partition: 1, firstSequence: 2_000_000, messages: messages(50, 3) }] }],
  };
  expect((await sluiceBytes(args)).equals(await kafkajsBytes(args))).toBe(true);
});

it('writes the bytes kafkajs writes for records without timestamps, and deltas beyond 32 bits', async () => {
  const args: ProduceRequestArgs = {
    acks: 1,
    timeout: 1_000,
    topicData: [
      { topic: 'now', partitions: [{ partition: 0, messages: [{ key: 'a', value: 'b' }, { value: 'c', timestamp: null }] }] },
      // Same number of digits, as kafkajs' string sort needs to agree; 8e12 ms apart, past a 32-bit varint.
      { topic: 'far', partitions: [{ partition: 0, messages: [{ value: 'late', timestamp: '9000000000000' }, { value: 'early', timestamp: '1000000000000' }] }] },
    ],
  };
  expect((await sluiceBytes(args)).equals(await kafkajsBytes(args))).toBe(true);
});

it('takes the first and max timestamps by value where kafkajs compares them as text', () => {
  const body = encodeProduceRequest({
    acks: -1,
    timeout: 1_000,
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ value: 'a', timestamp: '900' }, { value: 'b', timestamp: '1000' }] }] }],
  });
  // Request header (2 + 2 + 4 + 4), topic (2 + 1 + 4), partition and sizes (4 + 4), base offset, length, epoch,
  // magic, CRC (8 + 4 + 4 + 1 + 4), attributes and last offset delta (2 + 4): then the first and max timestamps.
  const at = 12 + 7 + 8 + 21 + 6;
  expect([body.readBigInt64BE(at), body.readBigInt64BE(at + 8)]).toEqual([900n, 1000n]);
});

it('leaves compressed requests to kafkajs', async () => {
  const args = { acks: -1, timeout: 1_000, compression: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messages(20, 5) }] }] };
  const [ours, theirs] = [await sluiceBytes(args), await kafkajsBytes(args)];
  // Gzip output of equal input has equal length; its bytes hold no time here (kafkajs' gzip writes no mtime).
  expect(ours.equals(theirs)).toBe(true);
});

it('writes a record at time 0 as at time 0, given as a number, compressed or not (kafkajs takes a falsy timestamp for none)', async () => {
  const request = (compression: number, timestamp: number | string): ProduceRequestArgs & { compression: number } => ({
    acks: -1,
    timeout: 1_000,
    compression,
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', timestamp }, { key: 'k', value: 'w', timestamp: 5 }] }] }],
  });
  for (const compression of [0, 1]) {
    expect((await sluiceBytes(request(compression, 0))).equals(await kafkajsBytes(request(compression, '0')))).toBe(true);
  }
});

describe('records written as they were produced', () => {
  /** `messages`, each with a timestamp no earlier than the one before, written into one partition's records. */
  function written(partition: number, list: ProduceMessage[]): ProducedRecords {
    const records = new ProducedRecords('words', partition);
    let timestamp = NOW;
    for (const { key, value, headers } of list) records.append(key, value, (timestamp += 3), headers);
    return records;
  }
  const inOrder = (list: ProduceMessage[]) => {
    let timestamp = NOW;
    return list.map((message) => ({ ...message, timestamp: String((timestamp += 3)) }));
  };

  it('are the bytes kafkajs writes for the same records, in a plain and a transactional request', async () => {
    const [first, second] = [messages(1_500, 1), messages(300, 2)];
    for (const transactional of [false, true]) {
      const common = { acks: -1, timeout: 30_000, ...(transactional ? { transactionalId: 'app-0_1', producerId: '77', producerEpoch: 2 } : {}) };
      const ours = await sluiceBytes({ ...common, topicData: [{ topic: 'words', partitions: [{ partition: 0, firstSequence: 9, messages: written(0, first) }, { partition: 1, messages: written(1, second) }] }] });
      const theirs = await kafkajsBytes({ ...common, topicData: [{ topic: 'words', partitions: [{ partition: 0, firstSequence: 9, messages: inOrder(first) }, { partition: 1, messages: inOrder(second) }] }] });
      expect(ours.equals(theirs)).toBe(true);
    }
  });

  it("take the first record's timestamp as the batch's base, as Java's producer does, and read back as written", () => {
    const records = new ProducedRecords('t', 0);
    records.append('a', Buffer.from([1, 2]), 2_000, { trace: 'x', twice: ['1', Buffer.from('2')] });
    records.append(null, null, 1_000, undefined);
    records.append('c', 'ü€', 9_000_000_000_000, null);
    expect([records.firstTimestamp, records.maxTimestamp, records.count, records.length]).toEqual([2_000, 9_000_000_000_000, 3, 3]);
    expect(records.read()).toEqual([
      { key: Buffer.from('a'), value: Buffer.from([1, 2]), timestamp: 2_000, headers: { trace: Buffer.from('x'), twice: [Buffer.from('1'), Buffer.from('2')] } },
      { key: null, value: null, timestamp: 1_000, headers: {} },
      { key: Buffer.from('c'), value: Buffer.from('ü€'), timestamp: 9_000_000_000_000, headers: {} },
    ]);
  });

  it("are grouped as their partition's messages, whose length is their count (the idempotent producer's sequence)", () => {
    const records = written(2, messages(7, 4));
    const grouped = groupMessagesPerPartition({
      topic: 'words',
      partitionMetadata: [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 })),
      messages: [producedRecordsMessage(records) as Message, { key: 'k', value: 'v', partition: 0 }],
      partitioner: ({ message }) => message.partition!,
    });
    expect(grouped[2]).toBe(records);
    expect(grouped[2]!.length).toBe(7);
    expect(grouped[0]).toEqual([{ key: 'k', value: 'v', partition: 0 }]);
  });

  it('are read back for a compressed request, which kafkajs writes', async () => {
    const list = messages(20, 6);
    const args = (partitionMessages: ProduceMessage[] | ProducedRecords) => ({ acks: -1, timeout: 1_000, compression: 1, topicData: [{ topic: 'words', partitions: [{ partition: 0, messages: partitionMessages }] }] });
    expect((await sluiceBytes(args(written(0, list)))).equals(await kafkajsBytes(args(inOrder(list).map((m) => ({ ...m, key: asBytes(m.key), value: asBytes(m.value) })))))).toBe(true);
  });
});

function asBytes(data: ProduceMessage['value']): Buffer | null {
  return data == null ? null : Buffer.isBuffer(data) ? data : Buffer.from(data);
}
