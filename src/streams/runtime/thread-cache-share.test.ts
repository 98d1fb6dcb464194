import { cacheBytesPerThread } from './thread-cache-share';

describe('cacheBytesPerThread', () => {
  const total = 10 * 1024 * 1024;

  it('divides statestore.cache.max.bytes among the stream threads, and the global thread when there is one', () => {
    expect(cacheBytesPerThread(total, 1, false)).toBe(total);
    expect(cacheBytesPerThread(total, 2, false)).toBe(total / 2);
    expect(cacheBytesPerThread(total, 2, true)).toBe(Math.floor(total / 3));
  });

  it('gives the whole of it when no stream thread is left', () => {
    expect(cacheBytesPerThread(total, 0, true)).toBe(total);
  });
});
