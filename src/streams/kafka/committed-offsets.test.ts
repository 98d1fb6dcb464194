import { StreamsException } from '../../errors';
import { readUntilStable, UNSTABLE_OFFSET_COMMIT } from './committed-offsets';
import type { FetchedOffset, OffsetFetchResponse } from './offset-fetch';
import type { TopicPartition } from './topic-partition';

const tp = (partition: number): TopicPartition => ({ topic: 'in', partition });
const answer = (partition: number, offset: number, errorCode = 0): FetchedOffset => ({ topic: 'in', partition, offset, leaderEpoch: -1, metadata: '', errorCode });
const FAST = { timeoutMs: 1_000, backoffMs: 1, maxBackoffMs: 2 };

/** A coordinator that answers in turn: each element a response, or an error thrown. Records what was asked. */
function scripted(...answers: (OffsetFetchResponse | Error)[]) {
  const asked: number[][] = [];
  const fetch = (partitions: readonly TopicPartition[]) => {
    asked.push(partitions.map((p) => p.partition));
    const next = answers.shift();
    if (next === undefined) throw new Error('asked once too often');
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { fetch, asked };
}

const response = (...partitions: FetchedOffset[]): OffsetFetchResponse => ({ throttleTimeMs: 0, errorCode: 0, partitions });

describe('readUntilStable', () => {
  it('asks again for the partitions a pending transaction holds, and only for those, until they are stable', async () => {
    const { fetch, asked } = scripted(
      response(answer(0, 60), answer(1, -1, UNSTABLE_OFFSET_COMMIT), answer(2, -1)),
      response(answer(1, -1, UNSTABLE_OFFSET_COMMIT)),
      response(answer(1, 42)),
    );
    expect(await readUntilStable(fetch, [tp(0), tp(1), tp(2)], FAST)).toEqual([
      { topic: 'in', partition: 0, offset: 60 },
      { topic: 'in', partition: 2, offset: -1 },
      { topic: 'in', partition: 1, offset: 42 },
    ]);
    expect(asked).toEqual([[0, 1, 2], [1], [1]]);
  });

  it('rides out a coordinator that moved or is loading, and a lost connection, asking for every partition again', async () => {
    const { fetch, asked } = scripted(
      { throttleTimeMs: 0, errorCode: 16, partitions: [] },
      Object.assign(new Error('Connection error: ECONNREFUSED'), { name: 'KafkaJSConnectionError', retriable: true }),
      response(answer(0, 7, 14), answer(1, 8)),
      response(answer(0, 7), answer(1, 8)),
    );
    expect(await readUntilStable(fetch, [tp(0), tp(1)], FAST)).toEqual([
      { topic: 'in', partition: 0, offset: 7 },
      { topic: 'in', partition: 1, offset: 8 },
    ]);
    expect(asked).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
  });

  it('fails at once on an error no retry cures', async () => {
    const { fetch } = scripted(response(answer(0, -1, 30)));
    await expect(readUntilStable(fetch, [tp(0)], FAST)).rejects.toMatchObject({ type: 'GROUP_AUTHORIZATION_FAILED' });
  });

  it('gives up after timeoutMs, naming the partitions still unstable, with a cause the thread recovery counts as transient', async () => {
    const unstable = () => response(answer(0, -1, UNSTABLE_OFFSET_COMMIT));
    const { fetch } = scripted(...Array.from({ length: 100 }, unstable));
    const error = await readUntilStable(fetch, [tp(0)], { timeoutMs: 20, backoffMs: 5, maxBackoffMs: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamsException);
    expect((error as Error).message).toMatch(/committed offsets of in-0 could not be read stably within 20 ms: There are unstable offsets/);
    expect((error as Error).cause).toMatchObject({ type: 'UNSTABLE_OFFSET_COMMIT', retriable: true });
  });

  it('asks nothing for no partitions', async () => {
    const { fetch, asked } = scripted();
    expect(await readUntilStable(fetch, [], FAST)).toEqual([]);
    expect(asked).toEqual([]);
  });
});
