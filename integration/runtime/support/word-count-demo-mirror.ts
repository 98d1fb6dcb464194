/**
 * Sluice's mirror of Kafka Streams' WordCountDemo (org.apache.kafka.streams.examples.wordcount, 3.8 and 3.9):
 *
 *   builder.<String, String>stream(INPUT_TOPIC)
 *       .flatMapValues(value -> Arrays.asList(value.toLowerCase(Locale.getDefault()).split(" ")))
 *       .groupBy((key, value) -> value)
 *       .count()
 *       .toStream()
 *       .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), Serdes.Long()));
 *
 * with the demo's default serdes (String) and no names given, so that the store and the internal topics get the
 * names Kafka Streams generates for the demo, and a Sluice node takes over the demo's state.
 */
import { Serdes, StreamsBuilder } from '../../../src';
import type { Topology } from '../../../src';

export const WORD_COUNT_DEMO_STORE = 'KSTREAM-AGGREGATE-STATE-STORE-0000000003';

/** What WordCountDemo.getStreamsConfig adds to the properties it is given, unless they set them. */
export const WORD_COUNT_DEMO_DEFAULTS: Readonly<Record<string, string>> = {
  'statestore.cache.max.bytes': '0',
  'default.key.serde': 'org.apache.kafka.common.serialization.Serdes$StringSerde',
  'default.value.serde': 'org.apache.kafka.common.serialization.Serdes$StringSerde',
  'auto.offset.reset': 'earliest',
};

export function repartitionTopic(applicationId: string): string {
  return `${applicationId}-${WORD_COUNT_DEMO_STORE}-repartition`;
}

export function changelogTopic(applicationId: string): string {
  return `${applicationId}-${WORD_COUNT_DEMO_STORE}-changelog`;
}

/** Java's String.split(" "): JavaScript's, without the trailing empty strings that Java drops. */
function javaSplitOnSpace(value: string): string[] {
  const parts = value.split(' ');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export function wordCountDemoMirror(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((value) => javaSplitOnSpace(value.toLowerCase()))
    .groupBy((_key, value) => value, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count()
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}
