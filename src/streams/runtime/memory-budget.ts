/**
 * A node's memory budget (`memory.budget`, or the container's memory limit): the one number an operator sets, divided
 * among the parts of a node's memory that grow with load and that Sluice bounds. Every stream and global thread of
 * every instance on the node joins it, and each instance's standby updater; the record-cache part is shared evenly
 * among those with a cache, the producer-buffer part among the stream threads and the fetch part among their
 * consumers (a stream thread's group and restore consumers, the global thread's, the standby updater's), each share
 * capping the thread's `statestore.cache.max.bytes` share, its `buffer.memory` and each consumer's `fetch.max.bytes`
 * (whichever is smaller wins), and shares are recomputed as threads come and go. A part that stays at its bound (a
 * producer buffer always full, a heap near its limit) is told once per episode.
 */

import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/** The share of the budget for the record caches of all the node's threads. */
export const RECORD_CACHE_SHARE = 0.1;
/** The share of the budget for the bytes all the node's stream threads have produced and not had acknowledged. */
export const PRODUCER_BUFFER_SHARE = 0.1;
/** The share of the budget for what all the node's consumers may bring in one fetch each (`fetch.max.bytes`). */
export const FETCH_SHARE = 0.1;
/**
 * The most of the budget the main thread's V8 heap should be allowed: the rest holds Node itself, buffers outside
 * the heap, LMDB's transactions and the pages of the stores the node reads.
 */
export const HEAP_SHARE = 0.6;

/** How often the budget looks for a part at its bound, and for how many looks in a row it must stay there. */
const PRESSURE_CHECK_MS = 5000;
const PRESSURE_CHECKS = 3;
/** How long one reading of the parts serves a scrape's gauges. */
const READING_TTL_MS = 200;
/** A part at or above this share of its bound is at its bound. */
const AT_BOUND = 0.95;

export const MEMORY_PARTS = ['total', 'heap', 'record-cache', 'producer-buffer', 'fetch'] as const;
export type MemoryPart = (typeof MEMORY_PARTS)[number];

export interface MemoryLimits {
  /** Undefined for a thread without a record cache (the standby updater). */
  readonly cacheBytes: number | undefined;
  /** Undefined for a thread that does not produce (the global thread, the standby updater). */
  readonly produceBufferBytes: number | undefined;
  /** The most each of the thread's consumers may bring in one fetch. */
  readonly fetchBytes: number;
}

export interface MemoryInUse {
  readonly cacheBytes: number;
  readonly produceBufferBytes: number;
  /**
   * What the thread's consumers may bring at once, their `fetch.max.bytes` summed: a response is held only while it
   * is applied, so the bound is the figure that matters.
   */
  readonly fetchBytes: number;
}

/**
 * A thread whose memory the budget sizes: a stream thread (record cache, producer buffer, two consumers), a global
 * thread (cache, a consumer) or a standby updater (a consumer).
 */
export interface BudgetedThread {
  readonly caches: boolean;
  readonly produces: boolean;
  /** How many consumers fetch for it. */
  readonly consumers: number;
  limitMemory(limits: MemoryLimits): void;
  /** What the thread holds now (a worker's as of its last report). */
  memoryInUse(): MemoryInUse;
}

export interface MemoryPartReading {
  readonly part: MemoryPart;
  readonly budgetBytes: number;
  readonly usedBytes: number;
}

/** A part that stayed at its bound for PRESSURE_CHECKS looks in a row. */
export interface MemoryPressure extends MemoryPartReading {
  readonly since: number;
}

export interface MemoryBudgetEvents {
  pressure: [MemoryPressure];
}

const PAGE_BYTES = 4096;

/** Resident pages less those of files (/proc/self/statm's resident and shared), and the heap in use. */
function processMemory(): { anonymous: number; heapUsed: number } {
  const { rss, heapUsed } = process.memoryUsage();
  let anonymous = rss;
  try {
    const [, resident, shared] = readFileSync('/proc/self/statm', 'utf8').split(' ').map(Number);
    if (resident !== undefined && shared !== undefined) anonymous = (resident - shared) * PAGE_BYTES;
  } catch {
    // No /proc (not Linux): all of RSS.
  }
  return { anonymous, heapUsed };
}

export class MemoryBudget extends EventEmitter<MemoryBudgetEvents> {
  readonly parts: readonly MemoryPart[] = MEMORY_PARTS;
  private readonly threads = new Set<BudgetedThread>();
  private lastReading: { at: number; parts: readonly MemoryPartReading[] } | undefined;
  private readonly atBound = new Map<MemoryPart, { looks: number; since: number; told: boolean }>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * `totalBytes`: the budget; `readMemory`: the process' resident memory that no file backs (what the kernel cannot
   * take back near the limit: the stores' pages it can) and its heap in use.
   */
  constructor(
    readonly totalBytes: number,
    private readonly readMemory: () => { anonymous: number; heapUsed: number } = processMemory,
  ) {
    super();
    // One listener per instance on the node.
    this.setMaxListeners(0);
  }

  get recordCacheBytes(): number {
    return Math.floor(this.totalBytes * RECORD_CACHE_SHARE);
  }

  get producerBufferBytes(): number {
    return Math.floor(this.totalBytes * PRODUCER_BUFFER_SHARE);
  }

  get fetchBytes(): number {
    return Math.floor(this.totalBytes * FETCH_SHARE);
  }

  /**
   * Each consumer's share of the fetch part once `more` consumers have joined: what a thread about to be made gives
   * the consumer it cannot resize later (kafkajs fixes a group consumer's fetch size when it starts).
   */
  fetchBytesPerConsumer(more = 0): number {
    return Math.max(1, Math.floor(this.fetchBytes / Math.max(1, this.consumers() + more)));
  }

  /** The heap this budget allows the main thread, and V8's own limit for it, which should not be above. */
  heapBytes(): { budget: number; limit: number } {
    return { budget: Math.floor(this.totalBytes * HEAP_SHARE), limit: getHeapStatistics().heap_size_limit };
  }

  join(thread: BudgetedThread): void {
    this.threads.add(thread);
    this.share();
    this.timer ??= setInterval(() => this.lookForPressure(Date.now()), PRESSURE_CHECK_MS).unref();
  }

  leave(thread: BudgetedThread): void {
    if (!this.threads.delete(thread)) return;
    this.share();
    if (this.threads.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Each part's bound and what is in use now, node-wide. A scrape reads every part's two gauges in every instance:
   * one reading (a /proc read, a walk over the threads) serves them all for READING_TTL_MS.
   */
  readings(): readonly MemoryPartReading[] {
    const now = performance.now();
    if (this.lastReading === undefined || now - this.lastReading.at >= READING_TTL_MS) this.lastReading = { at: now, parts: this.readNow() };
    return this.lastReading.parts;
  }

  private readNow(): MemoryPartReading[] {
    let cacheBytes = 0;
    let produceBufferBytes = 0;
    let fetchBytes = 0;
    for (const thread of this.threads) {
      const inUse = thread.memoryInUse();
      cacheBytes += inUse.cacheBytes;
      produceBufferBytes += inUse.produceBufferBytes;
      fetchBytes += inUse.fetchBytes;
    }
    const memory = this.readMemory();
    const heap = this.heapBytes();
    return [
      { part: 'total', budgetBytes: this.totalBytes, usedBytes: memory.anonymous },
      { part: 'heap', budgetBytes: Math.min(heap.budget, heap.limit), usedBytes: memory.heapUsed },
      { part: 'record-cache', budgetBytes: this.recordCacheBytes, usedBytes: cacheBytes },
      { part: 'producer-buffer', budgetBytes: this.producerBufferBytes, usedBytes: produceBufferBytes },
      { part: 'fetch', budgetBytes: this.fetchBytes, usedBytes: fetchBytes },
    ];
  }

  /**
   * One look: a part at its bound for PRESSURE_CHECKS looks in a row is told once, until it leaves the bound. The
   * record caches are left out (a cache is meant to fill up), and the fetch part (it reads its bound).
   */
  lookForPressure(now: number): void {
    for (const reading of this.readNow()) {
      if (reading.part === 'record-cache' || reading.part === 'fetch') continue;
      const state = this.atBound.get(reading.part);
      if (reading.usedBytes < reading.budgetBytes * AT_BOUND) {
        this.atBound.delete(reading.part);
        continue;
      }
      const looks = (state?.looks ?? 0) + 1;
      const since = state?.since ?? now;
      const told = (state?.told ?? false) || looks >= PRESSURE_CHECKS;
      this.atBound.set(reading.part, { looks, since, told });
      if (told && !state?.told) this.emit('pressure', { ...reading, since });
    }
  }

  private consumers(): number {
    let consumers = 0;
    for (const thread of this.threads) consumers += thread.consumers;
    return consumers;
  }

  private share(): void {
    this.lastReading = undefined;
    const threads = [...this.threads];
    const cacheBytes = Math.floor(this.recordCacheBytes / Math.max(1, threads.filter((t) => t.caches).length));
    const produceBufferBytes = Math.floor(this.producerBufferBytes / Math.max(1, threads.filter((t) => t.produces).length));
    const fetchBytes = this.fetchBytesPerConsumer();
    for (const thread of threads) {
      thread.limitMemory({ cacheBytes: thread.caches ? cacheBytes : undefined, produceBufferBytes: thread.produces ? produceBufferBytes : undefined, fetchBytes });
    }
  }
}
