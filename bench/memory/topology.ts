/**
 * The memory benchmark's topology, as `sluice start` loads it: the example word count (store `count`) between the
 * topics SLUICE_BENCH_INPUT_TOPIC and SLUICE_BENCH_OUTPUT_TOPIC, so that each load of a run has topics of its own.
 */
import type { TopologyDefinition } from '../../src/host/topology-definition';
import { wordCountTopology } from '../../examples/word-count';

export const MEMORY_BENCH_TOPOLOGY = 'memory-word-count';

export const memoryBenchTopology: TopologyDefinition = {
  name: 'io.sluice.bench.MemoryWordCount',
  version: '1.0.0',
  description: 'The example word count between the topics the memory benchmark names',
  aliases: [MEMORY_BENCH_TOPOLOGY],
  build: () => {
    const input = process.env.SLUICE_BENCH_INPUT_TOPIC;
    const output = process.env.SLUICE_BENCH_OUTPUT_TOPIC;
    if (!input || !output) throw new Error('SLUICE_BENCH_INPUT_TOPIC and SLUICE_BENCH_OUTPUT_TOPIC must be set');
    return wordCountTopology(input, output);
  },
};
