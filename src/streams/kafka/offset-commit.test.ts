import { decodeOffsetCommitV9, encodeOffsetCommitV9 } from './offset-commit';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

describe('OffsetCommit v9', () => {
  it('writes group_id, the member epoch as generation, member_id, no instance id, then each topic\'s partitions with no leader epoch nor metadata', () => {
    const bytes = encodeOffsetCommitV9({
      groupId: 'app',
      memberId: 'm1',
      memberEpoch: 7,
      offsets: [
        { topic: 'in', partition: 0, offset: 60 },
        { topic: 'in', partition: 3, offset: 5 },
      ],
    });
    expect(bytes.toString('hex')).toBe(
      [
        '00', // the header's tagged fields
        `04${ascii('app')}`,
        '00000007', // generation_id_or_member_epoch
        `03${ascii('m1')}`,
        '00', // group_instance_id: null
        '02', // one topic
        `03${ascii('in')}`,
        '03', // two partitions
        '00000000', '000000000000003c', 'ffffffff', '00', '00',
        '00000003', '0000000000000005', 'ffffffff', '00', '00',
        '00', // the topic's tagged fields
        '00', // the request's tagged fields
      ].join(''),
    );
  });

  it("reads each partition's error code, skipping tagged fields", () => {
    const response = hex(`
      00
      00000000
      02
        03 ${ascii('in')}
        03
          00000000 0000 00
          00000003 006e 01 05 02 aabb
        00
      00
    `);
    expect(decodeOffsetCommitV9(response)).toEqual([
      { topic: 'in', partition: 0, errorCode: 0 },
      { topic: 'in', partition: 3, errorCode: 110 },
    ]);
  });
});
