/**
 * Apache Kafka's own command-line tools, for tests that check what Kafka says of Sluice (a streams group's members,
 * as `kafka-streams-groups.sh` lists them). The `kafka-tools` jar of the broker's release and what it needs are fetched
 * with Maven once into `$SLUICE_CACHE_DIR/kafka-tools-<release>/libs`; a tool runs as `java -cp <libs>/* <class>`,
 * as Kafka's scripts run it.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ensureMavenLibs, sluiceCacheDir } from '../../src/host/broker/jars';
import { findJava } from '../../src/host/broker/toolchain';

/** What `kafka-streams-groups.sh` runs. */
export const STREAMS_GROUP_COMMAND = 'org.apache.kafka.tools.streams.StreamsGroupCommand';

/** The tools of `release` (e.g. 4.2.2), fetched unless cached: their libs directory. */
export function ensureKafkaTools(release: string, log: (line: string) => void = () => undefined): Promise<string> {
  return ensureMavenLibs(
    {
      description: `Apache Kafka ${release} tools`,
      pomCandidates: [path.join(__dirname, 'kafka-tools', 'pom.xml')],
      libsDir: path.join(sluiceCacheDir(), `kafka-tools-${release}`, 'libs'),
      mavenArgs: [`-Dkafka.version=${release}`],
    },
    log,
  );
}

/** Runs one of Kafka's tools of `release` with `args`; answers what it printed. */
export async function runKafkaTool(release: string, mainClass: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const libs = await ensureKafkaTools(release);
  const java = await findJava();
  if (java === undefined) throw new Error('No Java runtime found (JAVA_HOME or java on PATH) to run Kafka\'s tools');
  return promisify(execFile)(java.command, ['-cp', path.join(libs, '*'), mainClass, ...args], { timeout: 60_000 });
}
