import { requireModule } from '../streams/runtime/worker/topology-source';
import type { TopologyRegistry } from './topology-registry';

/** Loads the modules the configuration names (CommonJS or JavaScript compiled from TypeScript) into the registry. */
export function loadTopologyModules(registry: TopologyRegistry, modules: readonly { module: string }[]): void {
  for (const { module } of modules) {
    const { exported, resolved } = requireModule(module, `topology module '${module}'`);
    registry.registerModule(exported, module, resolved);
  }
}
