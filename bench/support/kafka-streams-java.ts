/**
 * Kafka Streams 3.9.1 as the benchmarks and the tests that compare with it run it: a child JVM on the jars of
 * wordcount/java/pom.xml (Kafka Streams and its WordCountDemo), fetched once by Maven into
 * `$SLUICE_CACHE_DIR/kafka-streams-<version>/libs`, with a properties file and a log4j configuration of its own.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KAFKA_VERSION } from '../../src/host/broker/jars';
import { toProperties } from '../../src/host/broker/local-kafka';
import { startChild, type MeasuredProcess } from './child-process';
import { compileJava, javaWithLibs, type JavaLibs } from './java-libs';

export const KAFKA_STREAMS_LABEL = `Kafka Streams ${KAFKA_VERSION}`;

const POM_DIR = 'wordcount/java';
const REPORTING_DEMO_CLASS = 'org.apache.kafka.streams.examples.wordcount.ReportingWordCountDemo';

/** Java and the Kafka Streams jars (fetched here the first time), or why not. */
export function kafkaStreamsLibs(log: (line: string) => void): Promise<JavaLibs | string> {
  return javaWithLibs(`${KAFKA_STREAMS_LABEL} word-count demo`, POM_DIR, `kafka-streams-${KAFKA_VERSION}`, log);
}

/**
 * Writes the streams properties and a log4j configuration (warnings and errors, to stderr) into `dir`; answers the
 * JVM options and the properties file, which WordCountDemo takes as its argument.
 */
export function writeKafkaStreamsFiles(dir: string, properties: Record<string, string>): { jvmOptions: string[]; propertiesFile: string } {
  const propertiesFile = path.join(dir, 'streams.properties');
  const log4jFile = path.join(dir, 'log4j.properties');
  fs.writeFileSync(propertiesFile, toProperties(properties));
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
  return { jvmOptions: [`-Dlog4j.configuration=file:${log4jFile}`], propertiesFile };
}

/** WordCountDemo with a report on stdout (ReportingWordCountDemo.java), compiled and ready to start. */
export interface ReportingWordCountDemo {
  /**
   * Starts one demo process in a directory of its own, `state.dir` in it unless `properties` sets one; the directory
   * (and so its local state) is deleted when it stops. Each stdout line goes to `onStdoutLine`.
   */
  start(properties: Record<string, string>, onStdoutLine: (line: string) => void): Promise<MeasuredProcess>;
  /** Removes the compiled classes. */
  dispose(): void;
}

/** Fetches the jars (once) and compiles the reporting demo; or why it cannot run here. */
export async function reportingWordCountDemo(log: (line: string) => void): Promise<ReportingWordCountDemo | string> {
  const java = await kafkaStreamsLibs(log);
  if (typeof java === 'string') return java;
  const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kstreams-classes-'));
  const compiled = await compileJava(java.javaCommand, java.libs, POM_DIR, 'ReportingWordCountDemo.java', classes);
  if (compiled !== undefined) {
    fs.rmSync(classes, { recursive: true, force: true });
    return compiled;
  }
  return {
    start: (properties, onStdoutLine) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kstreams-'));
      const { jvmOptions, propertiesFile } = writeKafkaStreamsFiles(dir, { 'state.dir': path.join(dir, 'state'), ...properties });
      const classpath = `${classes}${path.delimiter}${path.join(java.libs, '*')}`;
      return startChild('ReportingWordCountDemo', java.javaCommand, [...jvmOptions, '-cp', classpath, REPORTING_DEMO_CLASS, propertiesFile], dir, { onStdoutLine });
    },
    dispose: () => fs.rmSync(classes, { recursive: true, force: true }),
  };
}
