import { PartitionPositions } from './partition-positions';

describe('PartitionPositions.startAt', () => {
  it('puts a partition at the committed offset read stably, even behind or ahead of what an earlier read seeded', async () => {
    const positions = new PartitionPositions();
    // kafkajs' (and the admin's) read, while a transaction's offset commit was pending: the offset before it.
    await positions.seed([{ topic: 'in', partition: 0 }], () => Promise.resolve([{ tp: { topic: 'in', partition: 0 }, offset: 40 }]));
    positions.startAt('in', 0, 60);
    expect(positions.of('in', 0)).toMatchObject({ committedOffset: 60, consumedOffset: 59 });
    // Nothing up to 59 is uncommitted: the records before the offset count as consumed.
    expect(positions.uncommitted([{ topic: 'in', partition: 0, offset: 59 }])).toEqual([]);
    positions.startAt('in', 0, 50);
    expect(positions.of('in', 0)).toMatchObject({ committedOffset: 50, consumedOffset: 49 });
  });
});
