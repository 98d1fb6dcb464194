import type { Message, PartitionMetadata } from 'kafkajs';
import { groupMessagesPerPartition } from './kafkajs';
import { javaCompatiblePartitioner } from './client';

// kafkajs' own function, loaded from its file (jest's registry leaves it unreplaced).
const kafkajsGrouping = require('kafkajs/src/producer/groupMessagesPerPartition') as typeof groupMessagesPerPartition;

const metadata = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 1, replicas: [1], isr: [1] }));

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
