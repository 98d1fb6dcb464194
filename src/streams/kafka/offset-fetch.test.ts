import { type KafkajsBroker, sendStableOffsetFetch } from './broker-requests';
import { decodeOffsetFetchV7, encodeOffsetFetchV7 } from './offset-fetch';

/** kafkajs' framing of a request: size, header v1 (api key, version, correlation id, client id), then the request's own bytes. */
const createRequest: (args: { correlationId: number; clientId: string; request: unknown }) => Promise<{ buffer: Buffer }> = require('kafkajs/src/protocol/request');

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

/** A v7 response after the correlation id: partition 0 committed at 60, partition 3 unstable (with a tagged field to skip). */
const RESPONSE = hex(`
  00
  00000000
  02
    03 ${ascii('in')}
    03
      00000000 000000000000003c ffffffff 01 0000 00
      00000003 ffffffffffffffff ffffffff 00 0058 01 05 02 aabb
    00
  0000
  00
`);

describe('OffsetFetch v7', () => {
  it('writes the request header v2 tagged fields, then group_id, topics (compact), require_stable and the tagged fields', () => {
    const bytes = encodeOffsetFetchV7({ groupId: 'app', topics: [{ topic: 'in', partitions: [0, 3] }], requireStable: true });
    expect(bytes.toString('hex')).toBe(
      [
        '00', // the header's tagged fields: none
        `04${ascii('app')}`, // group_id: length + 1, then UTF-8
        '02', // one topic
        `03${ascii('in')}`,
        '03', // two partitions
        '00000000',
        '00000003',
        '00', // the topic's tagged fields
        '01', // require_stable
        '00', // the request's tagged fields
      ].join(''),
    );
  });

  it('writes lengths past 127 as multi-byte unsigned varints, and require_stable false as 0', () => {
    const groupId = 'g'.repeat(200);
    const bytes = encodeOffsetFetchV7({ groupId, topics: [], requireStable: false });
    // 201 = 0b1_1001001: low seven bits with the continuation bit, then 1.
    expect(bytes.subarray(0, 3).toString('hex')).toBe('00c901');
    expect(bytes.subarray(3 + 200).toString('hex')).toBe('010000');
  });

  it('reads each partition: offset, leader epoch, metadata (empty or null), error code, past unknown tagged fields', () => {
    expect(decodeOffsetFetchV7(RESPONSE)).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      partitions: [
        { topic: 'in', partition: 0, offset: 60, leaderEpoch: -1, metadata: '', errorCode: 0 },
        { topic: 'in', partition: 3, offset: -1, leaderEpoch: -1, metadata: null, errorCode: 88 },
      ],
    });
  });

  it('reads a group-level error with no topics', () => {
    expect(decodeOffsetFetchV7(hex('00 00000064 01 000f 00'))).toEqual({ throttleTimeMs: 100, errorCode: 15, partitions: [] });
  });

  it('refuses a response cut short', () => {
    expect(() => decodeOffsetFetchV7(RESPONSE.subarray(0, 20))).toThrow(RangeError);
  });
});

describe('sendStableOffsetFetch', () => {
  const broker = (maxVersion: number) => {
    const sent: { request: unknown; response: { decode(body: Buffer): Promise<unknown> } }[] = [];
    const fake = {
      versions: { 9: { maxVersion } },
      connectionPool: {
        send: async (args: (typeof sent)[number]) => {
          sent.push(args);
          return args.response.decode(RESPONSE);
        },
      },
    } as unknown as KafkajsBroker;
    return { fake, sent };
  };

  it("goes out in kafkajs' framing as a whole request header v2, and decodes the answer", async () => {
    const { fake, sent } = broker(9);
    const response = await sendStableOffsetFetch(fake, 'app', [
      { topic: 'in', partition: 0 },
      { topic: 'in', partition: 3 },
    ]);
    expect(response.partitions.map((p) => [p.partition, p.offset, p.errorCode])).toEqual([
      [0, 60, 0],
      [3, -1, 88],
    ]);
    const { buffer } = await createRequest({ correlationId: 7, clientId: 'c', request: sent[0]!.request });
    const body = encodeOffsetFetchV7({ groupId: 'app', topics: [{ topic: 'in', partitions: [0, 3] }], requireStable: true });
    // Size, api key 9, version 7, correlation id, client id (a nullable string, not compact), then the tagged fields and body.
    const header = hex(`0009 0007 00000007 0001 ${ascii('c')}`);
    expect(buffer.readInt32BE(0)).toBe(header.length + body.length);
    expect(buffer.subarray(4).toString('hex')).toBe(Buffer.concat([header, body]).toString('hex'));
  });

  it('refuses a coordinator without require_stable (before Kafka 2.5)', () => {
    expect(() => sendStableOffsetFetch(broker(6).fake, 'app', [{ topic: 'in', partition: 0 }])).toThrow(/OffsetFetch v7 \(Kafka 2.5 or later\); the group coordinator offers v6/);
  });
});
