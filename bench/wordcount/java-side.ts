/**
 * The Java side of the word-count benchmark: Kafka Streams' own `WordCountDemo`, unchanged, as a child JVM on
 * jars that Maven fetches once (java/pom.xml) into `$SLUICE_CACHE_DIR/kafka-streams-<version>/libs`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WORD_COUNT_INPUT, WORD_COUNT_OUTPUT } from '../../examples/word-count';
import { KAFKA_VERSION } from '../../src/host/broker/jars';
import { toProperties } from '../../src/host/broker/local-kafka';
import { startChild } from '../support/child-process';
import { javaWithLibs } from '../support/java-libs';
import type { CommonSettings, Running, Side } from './side';

const DEMO_CLASS = 'org.apache.kafka.streams.examples.wordcount.WordCountDemo';

/** The Java side, or why it cannot run here. Fetching the jars (once) happens here, outside any timing. */
export async function kafkaStreamsSide(settings: CommonSettings, log: (line: string) => void): Promise<Side | string> {
  const java = await javaWithLibs(`Kafka Streams ${KAFKA_VERSION} word-count demo`, 'wordcount/java', `kafka-streams-${KAFKA_VERSION}`, log);
  if (typeof java === 'string') return java;
  return {
    label: `Kafka Streams ${KAFKA_VERSION}`,
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
  const propertiesFile = path.join(dir, 'streams.properties');
  const log4jFile = path.join(dir, 'log4j.properties');
  fs.writeFileSync(
    propertiesFile,
    toProperties({
      'application.id': applicationId,
      'bootstrap.servers': bootstrapServers,
      'state.dir': path.join(dir, 'state'),
      'num.stream.threads': String(settings.threads),
      'commit.interval.ms': String(settings.commitIntervalMs),
      'processing.guarantee': settings.guarantee,
      // The demo sets statestore.cache.max.bytes to 0 unless given, and that key beats cache.max.bytes.buffering.
      'statestore.cache.max.bytes': String(settings.cacheBytes),
    }),
  );
  fs.writeFileSync(
    log4jFile,
    toProperties({
      'log4j.rootLogger': 'WARN, stderr',
      'log4j.appender.stderr': 'org.apache.log4j.ConsoleAppender',
      'log4j.appender.stderr.Target': 'System.err',
      'log4j.appender.stderr.layout': 'org.apache.log4j.PatternLayout',
      'log4j.appender.stderr.layout.ConversionPattern': '[%d] %p %m (%c)%n',
    }),
  );
  return startChild('WordCountDemo', javaCommand, [`-Dlog4j.configuration=file:${log4jFile}`, '-cp', path.join(libs, '*'), DEMO_CLASS, propertiesFile], dir);
}
