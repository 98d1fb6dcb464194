/**
 * The Kafka Streams side of the differential suite: Java, the jars of pom.xml (Kafka Streams 3.9.1 and its
 * kafka-streams-test-utils) fetched once by Maven into `$SLUICE_CACHE_DIR/kafka-streams-test-utils-3.9.1/libs` as
 * the broker's jars are, and KafkaStreamsDriver.java compiled once per version of its source into the same cache.
 * The jars come the way the broker's do (src/host/broker).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { KAFKA_VERSION, cachedLibs, ensureMavenLibs, sluiceCacheDir } from '../../src/host/broker/jars';
import { findOnPath } from '../../src/host/broker/toolchain';
import type { InputRecord, OutputRecord, OutputTopic } from './scenarios';

const run = promisify(execFile);
const SOURCE = path.join(__dirname, 'KafkaStreamsDriver.java');
const CACHE = path.join(sluiceCacheDir(), `kafka-streams-test-utils-${KAFKA_VERSION}`);
const LIBS = path.join(CACHE, 'libs');

/** One run of a scenario: its records, with caching off or on. */
export interface Run {
  id: string;
  topology: string;
  caching: boolean;
  inputs: InputRecord[];
  outputs: OutputTopic[];
}

/** What a driver gave for one run: its output records, or the error that ended it. */
export interface RunResult {
  id: string;
  records: OutputRecord[];
  error?: string;
}

/** The JDK's bin directory: JAVA_HOME's, else the one holding `javac` on PATH. */
function jdkBin(): string | undefined {
  if (process.env.JAVA_HOME) {
    const bin = path.join(process.env.JAVA_HOME, 'bin');
    return fs.existsSync(path.join(bin, 'javac')) ? bin : undefined;
  }
  const javac = findOnPath('javac');
  return javac === undefined ? undefined : path.dirname(fs.realpathSync(javac));
}

/** Why Kafka Streams' driver cannot run here (no JDK, or no cached jars and no Maven to fetch them), else undefined. */
export function unavailable(): string | undefined {
  if (jdkBin() === undefined) return 'no JDK found (JAVA_HOME, or javac on PATH)';
  if (cachedLibs(LIBS) === undefined && findOnPath('mvn') === undefined) return `no Maven on PATH to fetch Kafka Streams ${KAFKA_VERSION} into ${LIBS}`;
  return undefined;
}

/** The compiled classes of KafkaStreamsDriver.java, compiled here unless this version of the source already was. */
async function classes(bin: string, libs: string): Promise<string> {
  const hash = createHash('sha256').update(fs.readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const dir = path.join(CACHE, `classes-${hash}`);
  if (fs.existsSync(dir)) return dir;
  const staged = fs.mkdtempSync(path.join(CACHE, 'classes-build-'));
  try {
    await run(path.join(bin, 'javac'), ['-nowarn', '-cp', path.join(libs, '*'), '-d', staged, SOURCE]);
    fs.renameSync(staged, dir);
  } catch (error) {
    // Another run compiled the same source first: use theirs.
    if (!fs.existsSync(dir)) throw error;
  } finally {
    fs.rmSync(staged, { recursive: true, force: true });
  }
  return dir;
}

/** Runs every run through Kafka Streams' TopologyTestDriver in one JVM; results by run id. */
export async function runKafkaStreams(runs: Run[]): Promise<Map<string, RunResult>> {
  const bin = jdkBin();
  if (bin === undefined) throw new Error('no JDK found');
  const libs = await ensureMavenLibs({
    description: `Kafka Streams ${KAFKA_VERSION} test-utils`,
    pomCandidates: [path.join(__dirname, 'pom.xml')],
    libsDir: LIBS,
  });
  const compiled = await classes(bin, libs);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-differential-'));
  try {
    const scenarios = path.join(dir, 'scenarios.json');
    fs.writeFileSync(scenarios, JSON.stringify(runs));
    const { stdout } = await run(
      path.join(bin, 'java'),
      ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', `${compiled}${path.delimiter}${path.join(libs, '*')}`, 'KafkaStreamsDriver', scenarios],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    const results = stdout.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as RunResult);
    return new Map(results.map((result) => [result.id, result]));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
