import { spawnStreamThreadWorker } from './spawn-worker';
import type { WorkerSetup } from './protocol';

/** Enough of a setup to start a worker that is stopped at once: only its limits are looked at. */
const setup = { clientId: 'c', index: 1, number: 2 } as unknown as Omit<WorkerSetup, 'entry'>;

describe('spawnStreamThreadWorker', () => {
  it("limits the worker's V8 heap to the memory budget's share, and leaves V8's own limit without one", async () => {
    const limited = spawnStreamThreadWorker({ ...setup, heapLimitMb: 64 });
    const free = spawnStreamThreadWorker(setup);
    try {
      expect(limited.resourceLimits?.maxOldGenerationSizeMb).toBe(64);
      expect(free.resourceLimits?.maxOldGenerationSizeMb).not.toBe(64);
    } finally {
      await Promise.all([limited.terminate(), free.terminate()]);
    }
  });
});
