import { ProduceBuffer } from './produce-buffer';

describe('ProduceBuffer', () => {
  it('is full past buffer.memory, or past the memory budget\'s smaller share, and a wait ends once half is free', async () => {
    const buffer = new ProduceBuffer(1_000);
    buffer.reserve(800);
    expect(buffer.full).toBe(false);
    buffer.limitTo(600);
    expect(buffer.limit).toBe(600);
    expect(buffer.full).toBe(true);
    let drained = false;
    const waiting = buffer.drained().then(() => (drained = true));
    buffer.release(400);
    await Promise.resolve();
    expect(drained).toBe(false);
    // A larger share frees the thread as soon as it holds no more than half of it.
    buffer.limitTo(5_000);
    expect(buffer.limit).toBe(1_000);
    await waiting;
    expect(drained).toBe(true);
    expect(buffer.waits).toBe(1);
  });
});
