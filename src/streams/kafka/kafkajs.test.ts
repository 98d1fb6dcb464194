import type { Message, PartitionMetadata } from 'kafkajs';
import type { AbortedTransaction, FetchedRecord } from './kafkajs';
import { checkKafkajs, filterAbortedMessages, groupMessagesPerPartition, KAFKAJS_VERSION, kafkajsFixesInstalled, kafkajsState } from './kafkajs';
import { javaCompatiblePartitioner } from './client';
import { kafkajsOriginal } from './testing/kafkajs-original';

const kafkajsGrouping = kafkajsOriginal<typeof groupMessagesPerPartition>('kafkajs/src/producer/groupMessagesPerPartition');
const kafkajsFilter = kafkajsOriginal<typeof filterAbortedMessages>('kafkajs/src/consumer/filterAbortedMessages');

const metadata = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 1, replicas: [1], isr: [1] }));

it('kafkajs runs with the replacements', () => {
  expect(kafkajsFixesInstalled).toBe(true);
  expect(kafkajsGrouping).not.toBe(groupMessagesPerPartition);
});

describe('groupMessagesPerPartition', () => {
  it('groups exactly as kafkajs does: the same partitions, each with its messages in their order', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 2_000; i++) {
      messages.push(i % 7 === 0 ? { key: null, value: `v${i}` } : i % 11 === 0 ? { partition: i % 3, value: `p${i}` } : { key: `k${i % 97}`, value: `v${i}` });
    }
    // Keyed and explicit placements from Sluice's partitioner; keyless ones from a round robin that starts at 0
    // (Sluice's starts at a random partition), so that both sides see the same sequence.
    const partitioner = () => {
      const java = javaCompatiblePartitioner();
      let next = 0;
      return (a: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) =>
        a.message.key === null && a.message.partition === undefined ? next++ % 6 : java(a);
    };
    const args = () => ({ topic: 't', partitionMetadata: metadata(6), messages, partitioner: partitioner() });
    const ours = groupMessagesPerPartition(args());
    const theirs = kafkajsGrouping(args());
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    for (const partition of Object.keys(theirs)) {
      expect(ours[Number(partition)]!.map((m) => m.value)).toEqual(theirs[Number(partition)]!.map((m) => m.value));
    }
  });

  it('gives nothing for a topic without partition metadata, as kafkajs does', () => {
    const args = { topic: 't', partitionMetadata: [], messages: [{ key: 'a', value: 'b' }], partitioner: () => 0 };
    expect(groupMessagesPerPartition(args)).toEqual(kafkajsGrouping(args));
  });
});

describe('filterAbortedMessages', () => {
  /** Records of a partition: `P<n>:<offset>` data in a transaction, `A<n>:<offset>` producer n's abort marker. */
  const records = (...specs: string[]): FetchedRecord[] =>
    specs.map((spec) => {
      const [, kind, producer, offset] = /^([PA])(\d+):(\d+)$/.exec(spec)!;
      const marker = kind === 'A';
      return {
        offset: Number(offset),
        key: marker ? Buffer.from([0, 0, 0, 0]) : Buffer.from(`k${offset}`),
        isControlRecord: marker,
        batchContext: { producerId: producer!, inTransaction: true },
      };
    });
  const kept = (messages: FetchedRecord[]) => messages.filter((m) => !m.isControlRecord).map((m) => m.offset);
  // Producer 2's transaction began at 100 and producer 0's at 102; producer 0's was aborted first.
  const messages = records('P2:100', 'P1:101', 'P0:102', 'P2:103', 'A0:104', 'A2:105', 'P1:106');

  it('keeps what kafkajs keeps when the aborted transactions come in the order they began', () => {
    const aborted: AbortedTransaction[] = [
      { producerId: '2', firstOffset: '100' },
      { producerId: '0', firstOffset: '102' },
    ];
    expect(kept(filterAbortedMessages({ messages, abortedTransactions: aborted }))).toEqual([101, 106]);
    expect(kept(filterAbortedMessages({ messages, abortedTransactions: aborted }))).toEqual(kept(kafkajsFilter({ messages, abortedTransactions: aborted })));
  });

  it('drops every aborted record when the broker lists them in the order they ended (kafkajs kept one)', () => {
    const aborted: AbortedTransaction[] = [
      { producerId: '0', firstOffset: '102' },
      { producerId: '2', firstOffset: '100' },
    ];
    expect(kept(filterAbortedMessages({ messages, abortedTransactions: aborted }))).toEqual([101, 106]);
    expect(kept(kafkajsFilter({ messages, abortedTransactions: aborted }))).toEqual([100, 101, 106]);
  });

  it('keeps everything when nothing was aborted', () => {
    expect(filterAbortedMessages({ messages, abortedTransactions: [] })).toBe(messages);
  });
});

describe('checkKafkajs', () => {
  it('runs on the pinned kafkajs with Sluice replacements in place (this process)', () => {
    expect(kafkajsState).toEqual({ version: KAFKAJS_VERSION, fixesInstalled: true });
    expect(() => checkKafkajs()).not.toThrow();
  });

  it('refuses another kafkajs version, naming both', () => {
    expect(() => checkKafkajs({ version: '2.3.0', fixesInstalled: true })).toThrow(/finds kafkajs 2\.3\.0; install kafkajs 2\.2\.4 exactly/);
  });

  it('refuses a kafkajs loaded before Sluice, whose consumers would hand out its own records', () => {
    const early = { version: KAFKAJS_VERSION, fixesInstalled: false };
    expect(() => checkKafkajs(early)).toThrow(expect.objectContaining({ code: 'SLUICE_UNSUPPORTED_KAFKA_CLIENT', message: expect.stringMatching(/could not put its fetch decoding .* in place\. Import Sluice before kafkajs/) }));
  });
});
