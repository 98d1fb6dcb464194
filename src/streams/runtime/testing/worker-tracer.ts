/**
 * A tracer a stream thread's worker can be told to start (worker/worker-tracing.ts's TracerSource), for unit tests:
 * the in-memory SDK, with what it was started with kept.
 */
import type { Logger } from 'pino';
import type { WorkerTracer } from '../worker/worker-tracing';
import { startInMemoryTracing, type InMemoryTracing } from './in-memory-tracing';

export const startedWith: { logger: Logger; args: unknown[] }[] = [];
export const started: InMemoryTracing[] = [];

export function startTestTracer(logger: Logger, ...args: unknown[]): WorkerTracer {
  startedWith.push({ logger, args });
  const tracing = startInMemoryTracing();
  started.push(tracing);
  return { shutdown: () => tracing.stop() };
}
