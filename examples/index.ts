/**
 * The example topologies as Sluice runs them: their definitions (name, version, aliases), and what the demo
 * needs to show them working (topics to create, sample input, a store worth querying). A configuration can load
 * them with `topologies: [{ module: './examples' }]` (compiled: `dist/examples`).
 */

import type { TopologyDefinition } from '../src/host/topology-definition';
import type { TopicSpec } from '../src/streams/kafka';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT, WORD_COUNT_STORE, wordCountTopology } from './word-count';

export const wordCount: TopologyDefinition = {
  name: 'io.sluice.examples.WordCount',
  version: '1.0.0',
  description: `Kafka Streams' word count: counts the words of the lines on ${WORD_COUNT_INPUT}`,
  aliases: ['word-count', 'WordCount'],
  build: () => wordCountTopology(),
};

export const topologies: readonly TopologyDefinition[] = [wordCount];

export interface SampleRecord {
  topic: string;
  key: string | null;
  value: string;
}

/** An example as the demo runs it. */
export interface DemoExample {
  readonly topology: TopologyDefinition;
  readonly applicationId: string;
  readonly topics: readonly TopicSpec[];
  /** The next record of the steady trickle of sample input. */
  sample(): SampleRecord;
  /** A query for the printed curl command. */
  readonly query: { store: string; body: unknown };
}

const LINES = [
  'all streams lead to kafka',
  'hello kafka streams',
  'join kafka summit',
  'a stream is a table is a stream',
  'tables are streams at rest',
  'streams are tables in motion',
  'sluice runs kafka streams topologies in node',
  'the quick brown fox jumps over the lazy dog',
];

let nextLine = 0;

export const DEMO_EXAMPLES: readonly DemoExample[] = [
  {
    topology: wordCount,
    applicationId: 'word-count',
    topics: [
      { name: WORD_COUNT_INPUT, partitions: 3 },
      { name: WORD_COUNT_OUTPUT, partitions: 3 },
    ],
    sample: () => ({ topic: WORD_COUNT_INPUT, key: null, value: LINES[nextLine++ % LINES.length]! }),
    query: { store: WORD_COUNT_STORE, body: { type: 'key_value', query: { get: { key: 'kafka' } } } },
  },
];
