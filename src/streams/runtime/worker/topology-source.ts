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
  let exported: unknown;
  try {
    // A run-time require: the instance names the module.
    exported = (require(require.resolve(source.module, { paths: [process.cwd()] })) as Record<string, unknown>)[source.export];
  } catch (error) {
    throw new ConfigException(`cannot load the topology module '${source.module}' in a stream thread's worker: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof exported !== 'function') throw new ConfigException(`the topology module '${source.module}' exports no function '${source.export}'`);
  return (exported as (...args: unknown[]) => Topology)(...(source.args ?? []));
}
