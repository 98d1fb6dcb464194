import type { ConfigValue } from '../streams/runtime/streams-config';
import type { Topology } from '../streams/topology/topology';

/**
 * A topology that Sluice can run, as a module named in the configuration exports it (one object, or an array):
 *
 *     export const wordCount: TopologyDefinition = {
 *       name: 'io.sluice.examples.WordCount', version: '1.0.0', description: 'Counts words',
 *       aliases: ['word-count'], build: () => wordCountTopology(),
 *     };
 */
export interface TopologyDefinition {
  /** Fully qualified name, e.g. `io.sluice.examples.WordCount`. */
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  /** Other names that `type` in a deployment and `topology` in the configuration may use. */
  readonly aliases?: readonly string[];
  /** Configuration that the topology's instances get unless theirs says otherwise (serdes, application.id, ...). */
  readonly defaults?: Readonly<Record<string, ConfigValue>>;
  /** Builds the topology for an instance; called once per instance, with its effective configuration. */
  build(config: Readonly<Record<string, ConfigValue>>): Topology;
}

export function isTopologyDefinition(value: unknown): value is TopologyDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<TopologyDefinition>;
  return typeof candidate.name === 'string' && typeof candidate.version === 'string' && typeof candidate.build === 'function';
}

/** Every definition a module exports: the module itself, its default export, its named exports, or arrays of them. */
export function definitionsOf(moduleExports: unknown): TopologyDefinition[] {
  const found = new Set<TopologyDefinition>();
  const collect = (value: unknown): void => {
    if (isTopologyDefinition(value)) found.add(value);
    else if (Array.isArray(value)) value.filter(isTopologyDefinition).forEach((d) => found.add(d));
  };
  collect(moduleExports);
  if (typeof moduleExports === 'object' && moduleExports !== null && !isTopologyDefinition(moduleExports)) {
    Object.values(moduleExports).forEach(collect);
  }
  return [...found];
}
