/**
 * The Java side of the word-count benchmark: Kafka Streams' own `WordCountDemo`, unchanged, as a child JVM on
 * jars that Maven fetches once (java/pom.xml) into `$SLUICE_CACHE_DIR/kafka-streams-<version>/libs`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT } from '../../examples/word-count';
import { startChild } from '../support/child-process';
import { KAFKA_STREAMS_LABEL, kafkaStreamsLibs, writeKafkaStreamsFiles } from '../support/kafka-streams-java';
import type { CommonSettings, Running, Side } from './side';

const DEMO_CLASS = 'org.apache.kafka.streams.examples.wordcount.WordCountDemo';

/** The Java side, or why it cannot run here. Fetching the jars (once) happens here, outside any timing. */
export async function kafkaStreamsSide(settings: CommonSettings, log: (line: string) => void): Promise<Side | string> {
  const java = await kafkaStreamsLibs(log);
  if (typeof java === 'string') return java;
  return {
    label: KAFKA_STREAMS_LABEL,
    // WordCountDemo's topic names are fixed.
    input: WORD_COUNT_INPUT,
    output: WORD_COUNT_OUTPUT,
    start: (bootstrapServers, applicationId) => startDemo(java.javaCommand, java.libs, bootstrapServers, applicationId, settings),
  };
}

async function startDemo(
  javaCommand: string,
  libs: string,
  bootstrapServers: string,
  applicationId: string,
  settings: CommonSettings,
): Promise<Running> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-java-'));
  const { jvmOptions, propertiesFile } = writeKafkaStreamsFiles(dir, {
    'application.id': applicationId,
    'bootstrap.servers': bootstrapServers,
    'state.dir': path.join(dir, 'state'),
    'num.stream.threads': String(settings.threads),
    'commit.interval.ms': String(settings.commitIntervalMs),
    'processing.guarantee': settings.guarantee,
    // The demo sets statestore.cache.max.bytes to 0 unless given, and that key beats cache.max.bytes.buffering.
    'statestore.cache.max.bytes': String(settings.cacheBytes),
  });
  const heap = settings.javaHeap === undefined ? [] : [`-Xmx${settings.javaHeap}`];
  return startChild('WordCountDemo', javaCommand, [...heap, ...jvmOptions, '-cp', path.join(libs, '*'), DEMO_CLASS, propertiesFile], dir);
}
