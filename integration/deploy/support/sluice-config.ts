/** What Sluice makes of a configuration found in the image or in a pod: its instances, checked as the host checks them. */
import * as fs from 'node:fs';
import pino from 'pino';
import type { HostConfig } from '../../../src/host/config/host-config';
import { InstanceManager } from '../../../src/host/instances/instance-manager';
import { streamsInstanceFactory } from '../../../src/host/instances/runtime';
import { loadTopologyModules } from '../../../src/host/module-loader';
import { TopologyRegistry } from '../../../src/host/topology-registry';
import { sourceInRepository } from './image';

/**
 * Loads the configuration's topology modules from their sources in the repository (the image holds them compiled)
 * and checks every instance: a known topology, and a streams configuration whose every key Sluice reads.
 * Returns the application ids.
 */
export function checkInstances(config: HostConfig): string[] {
  const registry = new TopologyRegistry();
  loadTopologyModules(
    registry,
    config.topologies.map(({ module }) => {
      const source = sourceInRepository(module);
      if (source === undefined || !fs.existsSync(source)) throw new Error(`topology module ${module} is not in the image`);
      return { module: source };
    }),
  );
  const logger = pino({ level: 'silent' });
  const instances = new InstanceManager({
    topologies: registry,
    streamsConfig: () => config.streams,
    // check() creates no runtime.
    createRuntime: streamsInstanceFactory(logger),
    logger,
    closeTimeoutMs: config.shutdownTimeoutMs,
  });
  return config.instances.map((spec) => instances.check(spec).config.applicationId);
}
