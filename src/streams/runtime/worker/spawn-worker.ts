import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerSetup } from './protocol';

/** The worker's module, beside this one: compiled JavaScript, or the TypeScript source when Sluice runs from source. */
const ENTRY = path.join(__dirname, `stream-thread-worker${path.extname(__filename)}`);

/** The worker's start when Sluice runs from its TypeScript sources (see the file). */
const SOURCE_BOOTSTRAP = path.join(__dirname, 'source-bootstrap.cjs');

/** Starts the worker of one stream thread. */
export function spawnStreamThreadWorker(setup: Omit<WorkerSetup, 'entry'>): Worker {
  const workerData: WorkerSetup = { ...setup, entry: ENTRY };
  const resourceLimits = setup.heapLimitMb === undefined ? undefined : { maxOldGenerationSizeMb: setup.heapLimitMb };
  return new Worker(ENTRY.endsWith('.ts') ? SOURCE_BOOTSTRAP : ENTRY, { workerData, ...(resourceLimits ? { resourceLimits } : {}) });
}
