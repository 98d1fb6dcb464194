/**
 * The topologies this process can run: each registered version with its name, description and aliases, found by
 * name or alias and by version (`latest` is the highest), and loaded from the modules the configuration names.
 */

import { ConfigException, UnknownTopology } from '../errors';
import type { TopologyInfo } from '../server/context';
import type { ConfigValue } from '../streams/runtime/streams-config';
import type { TopologySource } from '../streams/runtime/worker/topology-source';
import { definitionsOf, type TopologyDefinition } from './topology-definition';
import { WORKER_TOPOLOGY_MODULE } from './worker-topology';

/** Compares versions by their dot-separated parts, numerically where both parts are numbers (1.10 > 1.9). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? '';
    const y = right[i] ?? '';
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    const order = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
    if (order !== 0) return order;
  }
  return 0;
}

export class TopologyRegistry {
  private readonly definitions: TopologyDefinition[] = [];
  /** The file each definition of a module came from: a stream thread's worker loads it to build the topology. */
  private readonly files = new Map<TopologyDefinition, string>();

  register(definition: TopologyDefinition): void {
    if (definition.name.trim() === '' || definition.version.trim() === '') {
      throw new ConfigException(`a topology needs a name and a version, got '${definition.name}' version '${definition.version}'`);
    }
    const clash = this.definitions.find((d) => d.version === definition.version && namesOf(d).some((n) => namesOf(definition).includes(n)));
    // The same object registered twice (a module named twice) is harmless; two different ones are ambiguous.
    if (clash === definition) return;
    if (clash) throw new ConfigException(`topology '${definition.name}' version ${definition.version} clashes with '${clash.name}'`);
    this.definitions.push(definition);
  }

  /** Registers what a module exports; `source` names it in errors, `file` is where it was loaded from. */
  registerModule(moduleExports: unknown, source: string, file?: string): void {
    const definitions = definitionsOf(moduleExports);
    if (definitions.length === 0) throw new ConfigException(`module '${source}' exports no TopologyDefinition (name, version, build)`);
    for (const definition of definitions) {
      this.register(definition);
      if (file !== undefined) this.files.set(definition, file);
    }
  }

  /**
   * How a stream thread's worker builds the topology of a definition with `config`: from the file of the module
   * that exported it (see worker-topology.ts). Undefined for a definition registered in code.
   */
  workerSource(definition: TopologyDefinition, config: Readonly<Record<string, ConfigValue>>): TopologySource | undefined {
    const file = this.files.get(definition);
    return file === undefined ? undefined : { module: WORKER_TOPOLOGY_MODULE, export: 'buildRegistered', args: [file, definition.name, definition.version, config] };
  }

  /** The definition of a name or alias in a version, or in its latest version when `version` is `latest` or absent. */
  resolve(nameOrAlias: string, version?: string): TopologyDefinition {
    const named = this.definitions.filter((d) => namesOf(d).includes(nameOrAlias));
    if (named.length === 0) throw new UnknownTopology(`named '${nameOrAlias}'; known: ${this.knownNames()}`);
    if (version === undefined || version === 'latest') return named.sort((a, b) => compareVersions(b.version, a.version))[0]!;
    const exact = named.find((d) => d.version === version);
    if (!exact) {
      throw new UnknownTopology(`'${nameOrAlias}' in version ${version}; versions: ${named.map((d) => d.version).join(', ')}`);
    }
    return exact;
  }

  list(): TopologyInfo[] {
    return [...this.definitions]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : compareVersions(a.version, b.version)))
      .map(topologyInfo);
  }

  private knownNames(): string {
    return this.definitions.map((d) => d.name).join(', ') || 'none';
  }
}

export function topologyInfo(definition: TopologyDefinition): TopologyInfo {
  return {
    name: definition.name,
    version: definition.version,
    description: definition.description ?? '',
    aliases: [...(definition.aliases ?? [])],
  };
}

function namesOf(definition: TopologyDefinition): string[] {
  return [definition.name, ...(definition.aliases ?? [])];
}
