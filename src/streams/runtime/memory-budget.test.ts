import { MemoryBudget, type BudgetedThread, type MemoryLimits, type MemoryPressure } from './memory-budget';

const MiB = 1024 * 1024;

/** A stream thread (produces: a cache, a buffer, two consumers), a global thread (a cache, a consumer), or with `caches` false a standby updater. */
class Thread implements BudgetedThread {
  limits: MemoryLimits | undefined;
  cacheBytes = 0;
  produceBufferBytes = 0;
  readonly consumers: number;
  constructor(
    readonly produces: boolean,
    readonly caches = true,
  ) {
    this.consumers = produces ? 2 : 1;
  }
  limitMemory(limits: MemoryLimits): void {
    this.limits = limits;
  }
  memoryInUse() {
    return { cacheBytes: this.cacheBytes, produceBufferBytes: this.produceBufferBytes, fetchBytes: this.limits!.fetchBytes * this.consumers };
  }
}

describe('MemoryBudget', () => {
  it('shares the record-cache part among every thread and the producer part among the stream threads, again as they come and go', () => {
    const budget = new MemoryBudget(512 * MiB, () => ({ anonymous: 0, heapUsed: 0 }));
    const a = new Thread(true);
    const b = new Thread(true);
    const global = new Thread(false);
    const tenth = Math.floor(51.2 * MiB);
    budget.join(a);
    expect(a.limits).toEqual({ cacheBytes: tenth, produceBufferBytes: tenth, fetchBytes: Math.floor(tenth / 2) });
    budget.join(b);
    budget.join(global);
    expect(a.limits).toEqual({ cacheBytes: Math.floor(tenth / 3), produceBufferBytes: Math.floor(tenth / 2), fetchBytes: Math.floor(tenth / 5) });
    expect(b.limits).toEqual(a.limits);
    expect(global.limits).toEqual({ cacheBytes: a.limits!.cacheBytes, produceBufferBytes: undefined, fetchBytes: Math.floor(tenth / 5) });
    budget.leave(b);
    budget.leave(global);
    expect(a.limits).toEqual({ cacheBytes: tenth, produceBufferBytes: tenth, fetchBytes: Math.floor(tenth / 2) });
  });

  it("shares the fetch part among every consumer, a standby updater's too, and tells a thread about to be made its share once it has joined", () => {
    const budget = new MemoryBudget(100 * MiB, () => ({ anonymous: 0, heapUsed: 0 }));
    const standbys = new Thread(false, false);
    budget.join(standbys);
    expect(standbys.limits).toEqual({ cacheBytes: undefined, produceBufferBytes: undefined, fetchBytes: 10 * MiB });
    // Two stream threads about to be made: five consumers in all once they have joined.
    const planned = budget.fetchBytesPerConsumer(4);
    expect(planned).toBe(2 * MiB);
    const threads = [new Thread(true), new Thread(true)];
    for (const thread of threads) budget.join(thread);
    expect(threads.map((t) => t.limits!.fetchBytes)).toEqual([planned, planned]);
    expect(standbys.limits!.fetchBytes).toBe(planned);
    // The standby updater has no cache: the two threads split the cache part.
    expect(threads[0]!.limits!.cacheBytes).toBe(5 * MiB);
    const fetch = budget.readings().find((r) => r.part === 'fetch');
    expect(fetch).toEqual({ part: 'fetch', budgetBytes: 10 * MiB, usedBytes: 10 * MiB });
    for (const thread of [standbys, ...threads]) budget.leave(thread);
  });

  it('reads each part: the whole against the memory no file backs, the heap against the smaller of its share and V8\'s limit, the caches and buffers summed', () => {
    const budget = new MemoryBudget(100 * MiB, () => ({ anonymous: 90 * MiB, heapUsed: 40 * MiB }));
    const a = new Thread(true);
    const b = new Thread(true);
    a.cacheBytes = 3 * MiB;
    b.cacheBytes = 2 * MiB;
    b.produceBufferBytes = 1 * MiB;
    budget.join(a);
    budget.join(b);
    const readings = Object.fromEntries(budget.readings().map((r) => [r.part, r]));
    expect(readings.total).toEqual({ part: 'total', budgetBytes: 100 * MiB, usedBytes: 90 * MiB });
    expect(readings.heap!.budgetBytes).toBeLessThanOrEqual(60 * MiB);
    expect(readings.heap!.usedBytes).toBe(40 * MiB);
    expect(readings['record-cache']).toEqual({ part: 'record-cache', budgetBytes: 10 * MiB, usedBytes: 5 * MiB });
    expect(readings['producer-buffer']).toEqual({ part: 'producer-buffer', budgetBytes: 10 * MiB, usedBytes: 1 * MiB });
    budget.leave(a);
    budget.leave(b);
  });

  it('reads the process\' own memory by default: some, and less than RSS', () => {
    const budget = new MemoryBudget(100 * MiB);
    const total = budget.readings().find((r) => r.part === 'total')!;
    expect(total.usedBytes).toBeGreaterThan(0);
    expect(total.usedBytes).toBeLessThanOrEqual(process.memoryUsage().rss);
  });

  it('tells a part that stays at its bound for three looks, once, and again only after it has left the bound', () => {
    let anonymous = 99 * MiB;
    const budget = new MemoryBudget(100 * MiB, () => ({ anonymous, heapUsed: 0 }));
    const thread = new Thread(true);
    budget.join(thread);
    const told: MemoryPressure[] = [];
    budget.on('pressure', (p) => told.push(p));
    thread.produceBufferBytes = 10 * MiB;
    budget.lookForPressure(1_000);
    budget.lookForPressure(6_000);
    expect(told).toEqual([]);
    budget.lookForPressure(11_000);
    budget.lookForPressure(16_000);
    expect(told.map((p) => [p.part, p.since])).toEqual([['total', 1_000], ['producer-buffer', 1_000]]);
    anonymous = 50 * MiB;
    thread.produceBufferBytes = 0;
    budget.lookForPressure(21_000);
    thread.produceBufferBytes = 10 * MiB;
    for (const now of [26_000, 31_000, 36_000]) budget.lookForPressure(now);
    expect(told.map((p) => [p.part, p.since])).toEqual([['total', 1_000], ['producer-buffer', 1_000], ['producer-buffer', 26_000]]);
    // The caches are meant to fill: never told.
    thread.cacheBytes = 10 * MiB;
    for (const now of [41_000, 46_000, 51_000]) budget.lookForPressure(now);
    expect(told.some((p) => p.part === 'record-cache')).toBe(false);
    budget.leave(thread);
  });
});
