import { StreamsBuilder } from '../streams/kstream/streams-builder';
import type { TopologyDefinition } from './topology-definition';
import { definitionsOf } from './topology-definition';
import { compareVersions, TopologyRegistry } from './topology-registry';
import { WORKER_TOPOLOGY_MODULE } from './worker-topology';
import type { Topology } from '../streams/topology/topology';

function definition(name: string, version: string, aliases: string[] = []): TopologyDefinition {
  return {
    name,
    version,
    description: `${name} ${version}`,
    aliases,
    build: () => {
      const builder = new StreamsBuilder();
      builder.stream('in').to('out');
      return builder.build();
    },
  };
}

describe('TopologyRegistry', () => {
  it('finds a topology by name or alias, in a version or the latest', () => {
    const registry = new TopologyRegistry();
    const v1 = definition('io.x.WordCount', '1.9.0', ['word-count']);
    const v2 = definition('io.x.WordCount', '1.10.0', ['word-count']);
    registry.register(v1);
    registry.register(v2);
    expect(registry.resolve('word-count')).toBe(v2);
    expect(registry.resolve('io.x.WordCount', 'latest')).toBe(v2);
    expect(registry.resolve('word-count', '1.9.0')).toBe(v1);
    expect(() => registry.resolve('nope')).toThrow("No topology named 'nope'; known: io.x.WordCount, io.x.WordCount");
    expect(() => registry.resolve('word-count', '3')).toThrow("No topology 'word-count' in version 3; versions: 1.9.0, 1.10.0");
    expect(registry.list()).toEqual([
      { name: 'io.x.WordCount', version: '1.9.0', description: 'io.x.WordCount 1.9.0', aliases: ['word-count'] },
      { name: 'io.x.WordCount', version: '1.10.0', description: 'io.x.WordCount 1.10.0', aliases: ['word-count'] },
    ]);
  });

  it('refuses two different topologies answering to the same name and version', () => {
    const registry = new TopologyRegistry();
    const a = definition('a', '1', ['shared']);
    registry.register(a);
    registry.register(a);
    expect(() => registry.register(definition('b', '1', ['shared']))).toThrow("topology 'b' version 1 clashes with 'a'");
    expect(registry.list()).toHaveLength(1);
  });

  it('takes what a module exports: one definition, an array, a default export or named exports', () => {
    const a = definition('a', '1');
    const b = definition('b', '1');
    expect(definitionsOf(a)).toEqual([a]);
    expect(definitionsOf([a, b])).toEqual([a, b]);
    expect(definitionsOf({ default: [a], b, helper: () => 1, constant: 'x' })).toEqual([a, b]);
    const registry = new TopologyRegistry();
    expect(() => registry.registerModule({ helper: 1 }, './lib/x')).toThrow("module './lib/x' exports no TopologyDefinition");
  });

  it("tells a stream thread's worker how to build a module's topology: from the module's file, by name and version", () => {
    const registry = new TopologyRegistry();
    const file = require.resolve('../../examples');
    registry.registerModule(require(file), './examples', file);
    const wordCount = registry.resolve('word-count');
    const config = { 'application.id': 'wc' };
    const source = registry.workerSource(wordCount, config)!;
    expect(source).toEqual({ module: WORKER_TOPOLOGY_MODULE, export: 'buildRegistered', args: [file, wordCount.name, wordCount.version, config] });
    const built = (require(source.module) as Record<string, (...args: unknown[]) => Topology>)[source.export]!(...source.args!);
    expect(built.describe()).toEqual(wordCount.build(config).describe());
    registry.register(definition('io.x.InCode', '1.0.0'));
    expect(registry.workerSource(registry.resolve('io.x.InCode'), config)).toBeUndefined();
  });

  it('orders versions numerically part by part', () => {
    expect(['1.10.0', '1.9.0', '2', '1.9'].sort(compareVersions)).toEqual(['1.9', '1.9.0', '1.10.0', '2']);
  });
});
