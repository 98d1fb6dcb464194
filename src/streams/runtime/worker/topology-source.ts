import { ConfigException } from '../../../errors';
import type { Topology } from '../../topology/topology';

/**
 * Where a worker thread gets the topology from: a module it can load itself, and the function of it that builds the
 * topology from `args` (JSON values). A topology is code and cannot be sent to another thread; the worker builds its own.
 */
export interface TopologySource {
  /** An absolute path, or a module name resolved from the process's working directory. */
  readonly module: string;
  /** The exported function that returns the topology. */
  readonly export: string;
  readonly args?: readonly unknown[];
}

/** Loads the module and builds the topology (in the worker that runs the stream thread). */
export function loadTopology(source: TopologySource): Topology {
  return loadExport<(...args: unknown[]) => Topology>(source.module, source.export)(...(source.args ?? []));
}

/** A function a module exports, loaded in a stream thread's worker. */
export function loadExport<F>(module: string, exportName: string): F {
  let exported: unknown;
  try {
    // A run-time require: the instance, or the layer that asks the thread, names the module.
    exported = (require(require.resolve(module, { paths: [process.cwd()] })) as Record<string, unknown>)[exportName];
  } catch (error) {
    throw new ConfigException(`cannot load the module '${module}' in a stream thread's worker: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof exported !== 'function') throw new ConfigException(`the module '${module}' exports no function '${exportName}'`);
  return exported as F;
}
