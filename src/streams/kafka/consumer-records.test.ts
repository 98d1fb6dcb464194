import { consumedRecords, DecodedBatch } from './consumer-records';
import { type BatchedRecord, FetchedRecords, RecordColumns } from './fetched-records';
import { kafkajsOriginal } from './testing/kafkajs-original';

type Encoded = { buffer: Buffer };
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (args: object) => Promise<Encoded> };
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (args: object) => unknown;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const { Types: Compression } = require('kafkajs/src/protocol/message/compression') as { Types: { None: number; GZIP: number } };

/** kafkajs' own decodeMessages and Batch, evaluated from their files (the module registry holds Sluice's). */
/** A message as kafkajs decodes it: offsets and timestamps as decimal strings. */
interface KafkajsMessage {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: BatchedRecord['headers'];
  isControlRecord: boolean;
  batchContext: BatchedRecord['batchContext'];
}

/** A decoded record's fields as a plain object (key, value and headers are read from the fetch when asked for). */
function plain(m: BatchedRecord): BatchedRecord {
  return { topic: m.topic, partition: m.partition, offset: m.offset, timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers, isControlRecord: m.isControlRecord, batchContext: m.batchContext };
}

/** kafkajs' message in the shape Sluice decodes it into: the same values, numbers for numbers. */
function asFetched(m: KafkajsMessage): BatchedRecord {
  return { topic: '', partition: -1, offset: Number(m.offset), timestamp: Number(m.timestamp), key: m.key, value: m.value, headers: m.headers, isControlRecord: m.isControlRecord, batchContext: m.batchContext };
}

interface KafkajsBatch {
  messages: KafkajsMessage[];
  messagesWithinOffset: KafkajsMessage[];
  isEmpty(): boolean;
  isEmptyIncludingFiltered(): boolean;
  isEmptyDueToFiltering(): boolean;
  isEmptyControlRecord(): boolean;
  isEmptyDueToLogCompactedMessages(): boolean;
  firstOffset(): string | null;
  lastOffset(): string;
  offsetLag(): string;
  offsetLagLow(): string;
}

function kafkajsOriginals(): {
  decodeMessages: (decoder: unknown) => Promise<KafkajsMessage[]>;
  Batch: new (topic: string, fetchedOffset: string, data: { partition: number; highWatermark: string; messages: KafkajsMessage[]; abortedTransactions: object[] }) => KafkajsBatch;
} {
  return {
    decodeMessages: kafkajsOriginal('kafkajs/src/protocol/requests/fetch/v4/decodeMessages'),
    Batch: kafkajsOriginal('kafkajs/src/consumer/batch'),
  };
}

/** The records decoded from a record set (without its size), as the tasks take them, in an array. */
async function decodedRecords(set: Buffer): Promise<BatchedRecord[]> {
  const records = FetchedRecords.from('', -1, await consumedRecords(set));
  return Array.from({ length: records.length }, (_, i) => records.recordAt(i));
}

/** A record set as a Fetch response carries it: its int32 size, then the batches. */
function recordSet(batches: Buffer[]): Buffer {
  const body = Buffer.concat(batches);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Sets attribute bits the encoder has no option for (control batch 0x20, log-append time 0x08). */
function withAttributes(batch: Buffer, bits: number): Buffer {
  const copy = Buffer.from(batch);
  copy.writeInt16BE(copy.readInt16BE(21) | bits, 21);
  return copy;
}

async function batch(firstOffset: number, records: object[], options: object = {}): Promise<Buffer> {
  const encoded = await RecordBatch({
    firstOffset: String(firstOffset),
    firstTimestamp: 1_700_000_000_000,
    maxTimestamp: 1_700_000_009_999,
    lastOffsetDelta: records.length - 1,
    records: records.map((r, i) => Record({ offsetDelta: i, timestampDelta: i * 7, ...r })),
    ...options,
  });
  return encoded.buffer;
}

describe('consumer records: the fetch response decoded and batched as kafkajs does it', () => {
  const originals = kafkajsOriginals();

  it('decodes every record as kafkajs does: keys and values null or not, headers (repeated ones as lists), compressed and transactional batches, control and log-append-time batches, a cut batch at the end', async () => {
    const batches = [
      await batch(100, [
        { key: Buffer.from('k1'), value: Buffer.from('v1') },
        { key: null, value: Buffer.from('no key') },
        { key: Buffer.from('tombstone'), value: null },
        { key: Buffer.from(''), value: Buffer.from(''), headers: { a: Buffer.from('1'), b: [Buffer.from('2'), Buffer.from('3')] } },
      ]),
      await batch(104, [{ key: Buffer.from('zipped'), value: Buffer.from('x'.repeat(500)) }, { key: Buffer.from('z2'), value: Buffer.from('y') }], { compression: Compression.GZIP }),
      await batch(106, [{ key: Buffer.from('tx'), value: Buffer.from('in a transaction') }], { transactional: true, producerId: '4242', producerEpoch: 3 }),
      withAttributes(await batch(107, [{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], { transactional: true, producerId: '4242' }), 0x20),
      withAttributes(await batch(108, [{ key: Buffer.from('appended'), value: Buffer.from('at') }]), 0x08),
    ];
    const cut = (await batch(109, [{ key: Buffer.from('cut'), value: Buffer.from('off') }])).subarray(0, 60);
    const set = recordSet([...batches, cut]);
    const expected = await originals.decodeMessages(new Decoder(set));
    const decoded = await decodedRecords(set.subarray(4));
    expect(expected).toHaveLength(9);
    expect(decoded.map(plain)).toEqual(expected.map(asFetched));
    // The cut batch at 109 waits for the next fetch.
    expect(decoded.map((m) => m.offset)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108]);
    expect(decoded[8]!.timestamp).toBe(1_700_000_009_999);
    expect(decoded[3]!.headers).toEqual({ a: Buffer.from('1'), b: [Buffer.from('2'), Buffer.from('3')] });
  });

  it('reads key and value from the fetch when asked, and gives a record one headers object, made when first read', async () => {
    const set = recordSet([await batch(0, [{ key: Buffer.from('k'), value: Buffer.from('v') }, { key: null, value: null, headers: { h: Buffer.from('x') } }])]);
    const [plainRecord, withHeader] = await decodedRecords(set.subarray(4));
    expect([plainRecord!.key, plainRecord!.value, withHeader!.key, withHeader!.value]).toEqual([Buffer.from('k'), Buffer.from('v'), null, null]);
    const headers = plainRecord!.headers;
    expect(headers).toEqual({});
    (headers as Record<string, Buffer>)['added'] = Buffer.from('by a processor');
    expect(plainRecord!.headers).toBe(headers);
    expect(withHeader!.headers).toEqual({ h: Buffer.from('x') });
    // Serialized as its fields, the views included (an application's own consumer may log its records).
    expect(JSON.parse(JSON.stringify(plainRecord))).toMatchObject({ offset: 0, key: { type: 'Buffer', data: [107] }, value: { type: 'Buffer', data: [118] } });
  });

  it('keeps a header named __proto__ as a header (kafkajs makes it a list that begins with Object.prototype)', async () => {
    const headers = Object.defineProperty({}, '__proto__', { value: Buffer.from('not a prototype'), enumerable: true });
    const set = recordSet([await batch(0, [{ key: Buffer.from('k'), value: Buffer.from('v'), headers }])]);
    const [decoded] = await decodedRecords(set.subarray(4));
    expect(Object.getPrototypeOf(decoded!.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(decoded!.headers, '__proto__')?.value).toEqual(Buffer.from('not a prototype'));
    expect((await originals.decodeMessages(new Decoder(set)))[0]!.headers['__proto__']).toEqual([Object.prototype, Buffer.from('not a prototype')]);
  });

  it('batches as kafkajs does: records before the fetch offset, control records and aborted ones left out; offsets, lags and emptiness alike', async () => {
    const marker = withAttributes(await batch(14, [{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], { transactional: true, producerId: '7' }), 0x20);
    const set = recordSet([
      await batch(10, [{ key: Buffer.from('a'), value: Buffer.from('1') }, { key: Buffer.from('b'), value: Buffer.from('2') }, { key: Buffer.from('c'), value: Buffer.from('3') }], { compression: Compression.GZIP }),
      await batch(13, [{ key: Buffer.from('t'), value: Buffer.from('aborted') }], { transactional: true, producerId: '7' }),
      marker,
      await batch(15, [{ key: Buffer.from('d'), value: Buffer.from('4') }]),
    ]);
    const both = async (records: Buffer) => ({ messages: await consumedRecords(records.subarray(4)), theirMessages: await originals.decodeMessages(new Decoder(records)) });
    const all = await both(set);
    const markerOnly = await both(recordSet([marker]));
    const cases = [
      { fetchedOffset: '11', ...all, abortedTransactions: [{ producerId: '7', firstOffset: '13' }] },
      { fetchedOffset: '10', ...all, abortedTransactions: [] },
      { fetchedOffset: '16', ...all, abortedTransactions: [] },
      { fetchedOffset: '14', ...markerOnly, abortedTransactions: [] },
      { fetchedOffset: '5', messages: new RecordColumns(), theirMessages: [], abortedTransactions: [] },
    ];
    for (const { fetchedOffset, messages: fetched, theirMessages: theirFetched, abortedTransactions } of cases) {
      const ours = new DecodedBatch('topic', fetchedOffset, { partition: 3, highWatermark: '20', messages: fetched, abortedTransactions });
      const theirs = new originals.Batch('topic', fetchedOffset, { partition: 3, highWatermark: '20', messages: theirFetched, abortedTransactions });
      const offsets = (records: { offset: string | number }[]) => records.map((m) => Number(m.offset));
      const view = (b: DecodedBatch | KafkajsBatch) => ({
        messages: offsets(b.messages),
        within: offsets(b instanceof DecodedBatch ? Array.from({ length: b.recordsWithinOffset.length }, (_, i) => b.recordsWithinOffset.recordAt(i)) : b.messagesWithinOffset),
        isEmpty: b.isEmpty(),
        isEmptyIncludingFiltered: b.isEmptyIncludingFiltered(),
        isEmptyDueToFiltering: b.isEmptyDueToFiltering(),
        isEmptyControlRecord: b.isEmptyControlRecord(),
        isEmptyDueToLogCompactedMessages: b.isEmptyDueToLogCompactedMessages(),
        firstOffset: b.firstOffset(),
        lastOffset: b.lastOffset(),
        offsetLag: b.offsetLag(),
        offsetLagLow: b.offsetLagLow(),
      });
      expect(view(ours)).toEqual(view(theirs));
    }
    const first = new DecodedBatch('topic', '11', { partition: 3, highWatermark: '20', messages: all.messages, abortedTransactions: [{ producerId: '7', firstOffset: '13' }] });
    expect(first.messages.map((m) => m.offset)).toEqual([11, 12, 15]);
    expect(first.messages.every((m) => m.topic === 'topic' && m.partition === 3)).toBe(true);
    // The batch's messages read as an array (kafkajs' consumer and an application's own read them so).
    const messages = first.messages;
    expect(Array.isArray(messages)).toBe(true);
    expect(messages).toHaveLength(3);
    expect([messages[0]!.offset, messages[2]!.offset, messages[3]]).toEqual([11, 15, undefined]);
    expect([...messages].map((m) => m.key?.toString())).toEqual(['b', 'c', 'd']);
    expect(messages.slice(1).map((m) => m.offset)).toEqual([12, 15]);
    expect(Object.keys(messages)).toEqual(['0', '1', '2']);
    expect(JSON.parse(JSON.stringify(messages)).map((m: { offset: number }) => m.offset)).toEqual([11, 12, 15]);
    // The stream threads' view of the same records.
    expect(Array.from({ length: first.records.length }, (_, i) => first.records.offsetAt(i))).toEqual([11, 12, 15]);
    expect(first.records.skip(2).recordAt(0).value?.toString()).toBe('4');
  });
});

it('columns sized for no record grow to hold as many as come, in order', () => {
  const columns = new RecordColumns(0);
  const data = Buffer.from('kv');
  const context = { isControlBatch: false } as never;
  for (let i = 0; i < 1_000; i++) columns.push(data, context, 0, 1, 1, 2, 5_000_000_000 + i, 1_700_000_000_000 + i, undefined);
  const records = FetchedRecords.from('t', 0, columns);
  expect(records.length).toBe(1_000);
  expect([records.offsetAt(0), records.offsetAt(999), records.timestampAt(999)]).toEqual([5_000_000_000, 5_000_000_999, 1_700_000_000_999]);
  expect([records.recordAt(999).key?.toString(), records.recordAt(999).value?.toString()]).toEqual(['k', 'v']);
});

it('columns keep each record its own headers when few records have any, across growth', () => {
  const columns = new RecordColumns(4);
  const data = Buffer.from('kv');
  const context = { isControlBatch: false } as never;
  const headersOf = (i: number) => (i % 300 === 7 ? { traceparent: Buffer.from(`trace-${i}`) } : undefined);
  for (let i = 0; i < 1_000; i++) columns.push(data, context, 0, 1, 1, 2, i, 1_700_000_000_000 + i, headersOf(i));
  const records = FetchedRecords.from('t', 0, columns);
  const carrying = Array.from({ length: records.length }, (_, i) => records.recordAt(i).headers)
    .map((headers, i) => [i, headers.traceparent?.toString()] as const)
    .filter(([, traceparent]) => traceparent !== undefined);
  expect(carrying).toEqual([7, 307, 607, 907].map((i) => [i, `trace-${i}`]));
});
