import { TopicPartitionMap } from './topic-partition';
import { decodeFetchResponse } from './fetch-response';

// Batches are encoded with kafkajs' own producer-side encoder: the decoder must read what Kafka's clients write.
const Long: { fromValue(value: unknown): unknown } = require('kafkajs/src/utils/long');
const { RecordBatch }: { RecordBatch: (args: Record<string, unknown>) => Promise<{ buffer: Buffer }> } = require('kafkajs/src/protocol/recordBatch/v0');
const Record: (args: Record<string, unknown>) => unknown = require('kafkajs/src/protocol/recordBatch/record/v0');
const GZIP = 1;

interface TestRecord {
  key: string | null;
  value: string | null;
  timestampDelta?: number;
}

async function batch(firstOffset: number, records: TestRecord[], options: { transactional?: boolean; producerId?: number; compression?: number; firstTimestamp?: number } = {}): Promise<Buffer> {
  const encoded = await RecordBatch({
    firstOffset: Long.fromValue(firstOffset),
    firstTimestamp: options.firstTimestamp ?? 1_000,
    maxTimestamp: 5_000,
    lastOffsetDelta: records.length - 1,
    transactional: options.transactional ?? false,
    producerId: Long.fromValue(options.producerId ?? -1),
    compression: options.compression ?? 0,
    records: records.map((r, i) =>
      Record({ offsetDelta: i, timestampDelta: r.timestampDelta ?? i, key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) }),
    ),
  });
  return encoded.buffer;
}

/** A transaction marker: a control batch of one record whose key is (version 0, type). */
async function marker(offset: number, producerId: number, type: 'abort' | 'commit'): Promise<Buffer> {
  const key = Buffer.from([0, 0, 0, type === 'abort' ? 0 : 1]);
  const encoded = await RecordBatch({
    firstOffset: Long.fromValue(offset),
    transactional: true,
    producerId: Long.fromValue(producerId),
    records: [Record({ offsetDelta: 0, key, value: Buffer.from([0, 0, 0, 0, 0, 0]) })],
  });
  const buffer = Buffer.from(encoded.buffer);
  // Attributes (after offset, length, leader epoch, magic and CRC): set the control flag.
  buffer.writeInt16BE(buffer.readInt16BE(21) | 0x20, 21);
  return buffer;
}

interface PartitionData {
  partition: number;
  errorCode?: number;
  highWatermark?: number;
  lastStableOffset?: number;
  aborted?: [producerId: number, firstOffset: number][];
  records: Buffer;
}

function int(bytes: number, value: number | bigint): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 2) b.writeInt16BE(Number(value));
  else if (bytes === 4) b.writeInt32BE(Number(value));
  else b.writeBigInt64BE(BigInt(value));
  return b;
}

function fetchResponse(topic: string, partitions: PartitionData[]): Buffer {
  const parts: Buffer[] = [int(4, 0), int(2, 0), int(4, 0), int(4, 1), int(2, topic.length), Buffer.from(topic), int(4, partitions.length)];
  for (const p of partitions) {
    parts.push(int(4, p.partition), int(2, p.errorCode ?? 0), int(8, p.highWatermark ?? 100), int(8, p.lastStableOffset ?? p.highWatermark ?? 100), int(8, 0));
    const aborted = p.aborted ?? [];
    parts.push(int(4, aborted.length));
    for (const [producerId, firstOffset] of aborted) parts.push(int(8, producerId), int(8, firstOffset));
    parts.push(int(4, -1), int(4, p.records.length), p.records);
  }
  return Buffer.concat(parts);
}

const text = (b: Buffer | null): string | null => (b === null ? null : b.toString());

function offsetsAt(topic: string, partition: number, offset: number): TopicPartitionMap<number> {
  return new TopicPartitionMap<number>().set(topic, partition, offset);
}

describe('decodeFetchResponse', () => {
  it('gives key, value, timestamp and offset of each record, and the next offset', async () => {
    const records = Buffer.concat([
      await batch(0, [{ key: 'a', value: '1' }, { key: 'b', value: null }]),
      await batch(2, [{ key: null, value: 'x', timestampDelta: 2 ** 33 }]),
    ]);
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 3, records }]), offsetsAt('t', 3, 0), false);
    expect(partitions).toHaveLength(1);
    const p = partitions[0]!;
    expect(p).toMatchObject({ topic: 't', partition: 3, errorCode: 0, highWatermark: 100, fetchOffset: 0, nextOffset: 3, endOffset: 100 });
    expect([...p.records].map((r) => [text(r.key), text(r.value), r.timestamp, r.offset])).toEqual([
      ['a', '1', 1_000, 0],
      ['b', null, 1_001, 1],
      ['', 'x', 1_000 + 2 ** 33, 2],
    ]);
  });

  it('skips the records of a batch that precede the fetch offset', async () => {
    const records = await batch(10, [{ key: 'a', value: '1' }, { key: 'b', value: '2' }, { key: 'c', value: '3' }]);
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 0, records }]), offsetsAt('t', 0, 11), false);
    expect([...partitions[0]!.records].map((r) => r.offset)).toEqual([11, 12]);
    expect(partitions[0]!.nextOffset).toBe(13);
  });

  it('ignores a batch cut short by the size limit: the next offset stays before it', async () => {
    const whole = await batch(0, [{ key: 'a', value: '1' }]);
    const cut = (await batch(1, [{ key: 'b', value: '2' }, { key: 'c', value: '3' }])).subarray(0, 40);
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 0, records: Buffer.concat([whole, cut]) }]), offsetsAt('t', 0, 0), false);
    expect([...partitions[0]!.records].map((r) => r.offset)).toEqual([0]);
    expect(partitions[0]!.nextOffset).toBe(1);
  });

  it('leaves the fetch offset as the next offset when nothing came', async () => {
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 0, records: Buffer.alloc(0) }]), offsetsAt('t', 0, 42), false);
    expect(partitions[0]).toMatchObject({ records: { length: 0 }, fetchOffset: 42, nextOffset: 42 });
  });

  it('reads gzip-compressed batches', async () => {
    const records = await batch(5, [{ key: 'k', value: 'compressed' }, { key: 'l', value: 'too' }], { compression: GZIP });
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 0, records }]), offsetsAt('t', 0, 5), false);
    expect([...partitions[0]!.records].map((r) => [text(r.key), text(r.value), r.offset])).toEqual([
      ['k', 'compressed', 5],
      ['l', 'too', 6],
    ]);
    expect(partitions[0]!.nextOffset).toBe(7);
  });

  describe('transactions', () => {
    // Producer 7 commits offsets 0-1 (marker 2); producer 8 writes 3-4 and aborts (marker 6), while producer 7
    // writes 5 and commits (marker 7).
    async function log(): Promise<Buffer> {
      return Buffer.concat([
        await batch(0, [{ key: 'c1', value: '1' }, { key: 'c2', value: '2' }], { transactional: true, producerId: 7 }),
        await marker(2, 7, 'commit'),
        await batch(3, [{ key: 'a1', value: 'x' }, { key: 'a2', value: 'y' }], { transactional: true, producerId: 8 }),
        await batch(5, [{ key: 'c3', value: '3' }], { transactional: true, producerId: 7 }),
        await marker(6, 8, 'abort'),
        await marker(7, 7, 'commit'),
      ]);
    }

    it('read_committed: aborted batches and markers are left out, and the next offset passes them', async () => {
      const response = fetchResponse('t', [{ partition: 0, highWatermark: 8, lastStableOffset: 8, aborted: [[8, 3]], records: await log() }]);
      const { partitions } = await decodeFetchResponse(response, offsetsAt('t', 0, 0), true);
      expect([...partitions[0]!.records].map((r) => text(r.key))).toEqual(['c1', 'c2', 'c3']);
      expect(partitions[0]!.nextOffset).toBe(8);
      expect(partitions[0]!.endOffset).toBe(8);
    });

    it('read_uncommitted: every data record, no markers', async () => {
      const response = fetchResponse('t', [{ partition: 0, highWatermark: 8, lastStableOffset: 3, records: await log() }]);
      const { partitions } = await decodeFetchResponse(response, offsetsAt('t', 0, 0), false);
      expect([...partitions[0]!.records].map((r) => text(r.key))).toEqual(['c1', 'c2', 'a1', 'a2', 'c3']);
      expect(partitions[0]!.endOffset).toBe(8);
    });

    it("as a stream thread's batch: the records kafkajs' consumer would hand out, from the fetch offset, markers and aborted ones left out", async () => {
      const response = fetchResponse('t', [{ partition: 0, highWatermark: 8, lastStableOffset: 8, aborted: [[8, 3]], records: await log() }]);
      const { partitions } = await decodeFetchResponse(response, offsetsAt('t', 0, 1), true, true);
      const { batch, nextOffset, records } = partitions[0]!;
      expect(records).toHaveLength(0);
      expect(batch!.messages.map((m) => [m.offset, text(m.key)])).toEqual([
        [1, 'c2'],
        [5, 'c3'],
      ]);
      expect(batch!.lastOffset()).toBe('7');
      expect(nextOffset).toBe(8);
    });

    it('read_committed ends at the last stable offset', async () => {
      const response = fetchResponse('t', [{ partition: 0, highWatermark: 8, lastStableOffset: 3, records: Buffer.alloc(0) }]);
      const { partitions } = await decodeFetchResponse(response, offsetsAt('t', 0, 0), true);
      expect(partitions[0]!.endOffset).toBe(3);
    });
  });

  it('reports partition errors', async () => {
    const { partitions } = await decodeFetchResponse(fetchResponse('t', [{ partition: 0, errorCode: 1, records: Buffer.alloc(0) }]), new TopicPartitionMap<number>(), false);
    expect(partitions[0]!.errorCode).toBe(1);
  });

  it('refuses the message formats before Kafka 0.11 with the offset', async () => {
    const legacy = Buffer.from(await batch(9, [{ key: 'a', value: '1' }]));
    legacy.writeInt8(1, 16);
    await expect(decodeFetchResponse(fetchResponse('t', [{ partition: 0, records: legacy }]), offsetsAt('t', 0, 9), false)).rejects.toThrow(
      't-0 holds a record batch of message format 1 at offset 9',
    );
  });
});
