/**
 * Record tracing in a stream thread's worker. A worker's isolate has OpenTelemetry's API globals of its own, with no
 * tracer provider: the worker starts one itself, from a module the instance names (the host's SDK setup, so that
 * the sampler, the resource and the exporter are made as on the main thread, and this layer never imports the SDK),
 * and exports its spans itself. Its records never leave it, and neither do their spans: shipping them to the main
 * thread would put their serialization on the event loop that serves HTTP, the peers and the first stream thread.
 * The module is loaded only when tracing is on: a worker without it loads no SDK.
 */
import type { Logger } from 'pino';
import { RecordTracing } from '../record-tracing';
import { loadExport } from './topology-source';

/**
 * A function of a module that a worker loads to start its tracer provider: called with the worker's logger (for the
 * SDK's complaints), then `args` (JSON values), and answers a WorkerTracer.
 */
export interface TracerSource {
  /** An absolute path, or a module name resolved from the process's working directory. */
  readonly module: string;
  readonly export: string;
  readonly args: readonly unknown[];
}

/** A tracer provider a worker started: its spans exported until `shutdown`, which exports what is pending. */
export interface WorkerTracer {
  shutdown(): Promise<void>;
}

/** How a worker traces its records (its `workerData`): as the main thread's RecordTracing, under its own provider. */
export interface WorkerTracing {
  readonly startRatio: number;
  readonly tracer: TracerSource;
}

/** Starts the worker's tracer provider, then the record tracing of its tasks under it. */
export function startWorkerTracing(tracing: WorkerTracing, applicationId: string, logger: Logger): { tracer: WorkerTracer; records: RecordTracing } {
  const start = loadExport<(logger: Logger, ...args: unknown[]) => WorkerTracer>(tracing.tracer.module, tracing.tracer.export);
  const tracer = start(logger, ...tracing.tracer.args);
  return { tracer, records: new RecordTracing(applicationId, { startRatio: tracing.startRatio }) };
}
