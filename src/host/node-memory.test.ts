import pino from 'pino';
import { getHeapStatistics } from 'node:v8';
import { nodeMemoryBudget } from './node-memory';

function captured() {
  const lines: Array<{ level: number; msg: string }> = [];
  return { lines, logger: pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }) };
}

describe('nodeMemoryBudget', () => {
  it('is none without memory.budget outside a container, the container\'s limit inside one, and memory.budget over both', () => {
    const { logger } = captured();
    expect(nodeMemoryBudget(undefined, logger, undefined)).toBeUndefined();
    expect(nodeMemoryBudget(undefined, logger, 256 * 1024 * 1024)?.totalBytes).toBe(256 * 1024 * 1024);
    expect(nodeMemoryBudget(512 * 1024 * 1024, logger, 256 * 1024 * 1024)?.totalBytes).toBe(512 * 1024 * 1024);
  });

  it('tells its parts, and warns with the flag to use when V8\'s heap may grow past its share', () => {
    const heapLimit = getHeapStatistics().heap_size_limit;
    const small = captured();
    nodeMemoryBudget(Math.floor(heapLimit / 2), small.logger, undefined);
    expect(small.lines[0]!.msg).toMatch(/^memory budget \d+ MiB \(memory\.budget\): record caches \d+ MiB and producer buffers \d+ MiB shared by every thread, heap \d+ MiB$/);
    expect(small.lines[1]).toMatchObject({ level: 40 });
    expect(small.lines[1]!.msg).toMatch(/start Node with --max-old-space-size=\d+$/);
    const large = captured();
    nodeMemoryBudget(heapLimit * 4, large.logger, undefined);
    expect(large.lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
