import { Serdes, StreamsBuilder } from '../src';
import type { Topology, TopologySource } from '../src';

export const WORD_COUNT_INPUT = 'streams-plaintext-input';
export const WORD_COUNT_OUTPUT = 'streams-wordcount-output';
export const WORD_COUNT_STORE = 'count';

/**
 * Kafka Streams' word count: lines → lower-cased words → count per word, kept in the store `count` and
 * written to the output topic as (word, count) with a long value.
 */
export function wordCountTopology(input = WORD_COUNT_INPUT, output = WORD_COUNT_OUTPUT): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter((word) => word.length > 0))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: WORD_COUNT_STORE })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

/** Where a stream thread in a worker builds this topology from (StreamsInstance's `topologySource`). */
export function wordCountTopologySource(input = WORD_COUNT_INPUT, output = WORD_COUNT_OUTPUT): TopologySource {
  return { module: __filename, export: 'wordCountTopology', args: [input, output] };
}
