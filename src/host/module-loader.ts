import { ConfigException } from '../errors';
import type { TopologyRegistry } from './topology-registry';

/** Loads the modules the configuration names (CommonJS or JavaScript compiled from TypeScript) into the registry. */
export function loadTopologyModules(registry: TopologyRegistry, modules: readonly { module: string }[]): void {
  for (const { module } of modules) {
    let exported: unknown;
    let resolved: string;
    try {
      // A run-time require: the configuration names the module.
      resolved = require.resolve(module, { paths: [process.cwd()] });
      exported = require(resolved);
    } catch (error) {
      throw new ConfigException(`cannot load topology module '${module}': ${(error as Error).message.split('\n')[0]}`);
    }
    registry.registerModule(exported, module, resolved);
  }
}
