/**
 * Loaded in a stream thread's worker: builds the topology of a definition from the module file the registry loaded
 * it from, as the instance built its own (the worker cannot be handed the definition, which is code).
 */
import { ConfigException } from '../errors';
import type { ConfigValue } from '../streams/runtime/streams-config';
import type { Topology } from '../streams/topology/topology';
import { definitionsOf } from './topology-definition';

/** This module, for the worker to load. */
export const WORKER_TOPOLOGY_MODULE = __filename;

export function buildRegistered(file: string, name: string, version: string, config: Readonly<Record<string, ConfigValue>>): Topology {
  // A run-time require: the registry loaded this file from the configuration's topology modules.
  const definition = definitionsOf(require(file)).find((d) => d.name === name && d.version === version);
  if (definition === undefined) throw new ConfigException(`module '${file}' no longer exports topology '${name}' version ${version}`);
  return definition.build(config);
}
