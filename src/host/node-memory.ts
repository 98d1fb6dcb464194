/**
 * The node's memory budget: `memory.budget` (or `SLUICE_MEMORY_BUDGET`), else the memory limit of the container the
 * node runs in (a Kubernetes pod's `limits.memory`, read by Node from the cgroup), else none. Told at start with the
 * parts it gives, and checked against V8's heap limit, which the process was started with and cannot change.
 */

import * as os from 'node:os';
import type { Logger } from 'pino';
import { MemoryBudget } from '../streams/runtime/memory-budget';

const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${Math.round(bytes / MiB)} MiB`;

/** The container's memory limit, if the process has one below the machine's memory. */
export function containerMemoryLimit(): number | undefined {
  // Older typings (and Node before 22) say undefined where there is no constraint; newer ones a huge number.
  const constrained: number | undefined = process.constrainedMemory();
  return constrained !== undefined && constrained > 0 && constrained < os.totalmem() ? constrained : undefined;
}

export function nodeMemoryBudget(configured: number | undefined, logger: Logger, containerLimit = containerMemoryLimit()): MemoryBudget | undefined {
  const total = configured ?? containerLimit;
  if (total === undefined) return undefined;
  const budget = new MemoryBudget(total);
  const heap = budget.heapBytes();
  const source = configured === undefined ? 'the container\'s memory limit' : 'memory.budget';
  logger.info(
    { memoryBudget: { total, recordCache: budget.recordCacheBytes, producerBuffer: budget.producerBufferBytes, heap: heap.budget, heapLimit: heap.limit } },
    `memory budget ${mib(total)} (${source}): record caches ${mib(budget.recordCacheBytes)} and producer buffers ${mib(budget.producerBufferBytes)} shared by every thread, heap ${mib(heap.budget)}`,
  );
  if (heap.limit > heap.budget) {
    logger.warn(
      { memoryBudget: { total, heap: heap.budget, heapLimit: heap.limit } },
      `V8's heap may grow to ${mib(heap.limit)}, past the ${mib(heap.budget)} the memory budget gives it: start Node with --max-old-space-size=${Math.floor(heap.budget / MiB)}`,
    );
  }
  return budget;
}
