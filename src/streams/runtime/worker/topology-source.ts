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

/**
 * A module that configuration or code names (never a client), resolved from the process's working directory, as
 * `sluice start` loads topology modules and a worker loads its topology. `what` names it in the ConfigException a
 * module that does not load throws.
 */
export function requireModule(module: string, what: string): { exported: unknown; resolved: string } {
  try {
    const resolved = require.resolve(module, { paths: [process.cwd()] });
    return { exported: require(resolved), resolved };
  } catch (error) {
    throw new ConfigException(`cannot load ${what}: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** A function a module exports, loaded in a stream thread's worker. */
export function loadExport<F>(module: string, exportName: string): F {
  const { exported } = requireModule(module, `the module '${module}' in a stream thread's worker`);
  const fn = (exported as Record<string, unknown>)[exportName];
  if (typeof fn !== 'function') throw new ConfigException(`the module '${module}' exports no function '${exportName}'`);
  return fn as F;
}
