/**
 * Jars fetched once from Maven Central with a POM whose `copy-dependencies` fills `${libs.dir}`, kept in a cache
 * directory shared by every checkout, by default under `~/.cache/sluice`: here the Apache Kafka broker's, in
 * `$SLUICE_CACHE_DIR/kafka-<version>/libs` with `pom.xml` beside this file (the word-count benchmark fetches
 * Kafka Streams' the same way). The broker is Kafka 3.9.1 unless `$SLUICE_KAFKA_VERSION` asks for 4.2. A finished download is marked by a file inside the libs directory, which only
 * appears by an atomic rename, so a cached copy is used without running Maven at all and an interrupted
 * download is never mistaken for one.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BrokerProvisioningFailed, ConfigException } from '../../errors';

/** The local broker's default release, and the Kafka Streams release the differential tests and benchmarks compare with. */
export const KAFKA_VERSION = '3.9.1';

/** The setting that picks the local broker's Kafka release. */
export const KAFKA_VERSION_ENV = 'SLUICE_KAFKA_VERSION';

/** A Kafka release the local broker can run, and what its class path needs. */
export interface KafkaRelease {
  /** `3.9.1`, `4.2.2`. */
  readonly version: string;
  /** The major version: which POM profile (`kafka-3`, `kafka-4`) brings its logging. */
  readonly major: 3 | 4;
  /** Kafka 3.x logs through log4j 1 (reload4j), Kafka 4.x through log4j2. */
  readonly logging: 'log4j' | 'log4j2';
}

/** The minor lines the local broker runs, each with the release taken when only the line is named. */
const KAFKA_LINES: Readonly<Record<string, Omit<KafkaRelease, 'version'> & { release: string }>> = {
  '3.9': { release: KAFKA_VERSION, major: 3, logging: 'log4j' },
  '4.2': { release: '4.2.2', major: 4, logging: 'log4j2' },
};

/** `3.9` or `4.2` (the line's release: 3.9.1, 4.2.2), or a release of one of them (`4.2.1`). */
export function parseKafkaVersion(value: string): KafkaRelease {
  const match = /^(\d+\.\d+)(?:\.(\d+))?$/.exec(value.trim());
  const line = match ? KAFKA_LINES[match[1]!] : undefined;
  if (!match || !line) {
    const lines = Object.entries(KAFKA_LINES).map(([name, { release }]) => `${name} (${release})`);
    throw new ConfigException(
      `${KAFKA_VERSION_ENV} must be a Kafka line the local broker runs, ${lines.join(' or ')}, or a release of one (e.g. 4.2.1); got '${value}'`,
    );
  }
  return { version: match[2] === undefined ? line.release : `${match[1]}.${Number(match[2])}`, major: line.major, logging: line.logging };
}

/** The release `$SLUICE_KAFKA_VERSION` asks for; 3.9.1 when it is unset or empty. */
export function kafkaVersionSetting(env: NodeJS.ProcessEnv = process.env): KafkaRelease {
  const value = env[KAFKA_VERSION_ENV]?.trim();
  return parseKafkaVersion(value ? value : KAFKA_VERSION);
}

const COMPLETE_MARKER = '.complete';
const MAVEN_TIMEOUT_MS = 10 * 60_000;

/** A set of jars Maven collects into a cache directory. */
export interface MavenLibs {
  /** What the jars are, for progress and error messages: `Apache Kafka 3.9.1 broker`. */
  readonly description: string;
  /** Where the POM may be, the first that exists being used: run from a build (dist/), tsc has not copied it. */
  readonly pomCandidates: readonly string[];
  /** The cache directory the jars end up in. */
  readonly libsDir: string;
  /** Further arguments to Maven: properties and profiles of the POM. */
  readonly mavenArgs?: readonly string[];
}

/** `$SLUICE_CACHE_DIR`, else `~/.cache/sluice`. */
export function sluiceCacheDir(): string {
  return process.env.SLUICE_CACHE_DIR || join(homedir(), '.cache', 'sluice');
}

/** Where the jars of a release are cached: one directory per release, never mixed. */
export function kafkaLibsDir(release: KafkaRelease = kafkaVersionSetting()): string {
  return join(sluiceCacheDir(), `kafka-${release.version}`, 'libs');
}

/** The libs directory when a complete download is cached, else undefined. */
export function cachedLibs(libsDir: string): string | undefined {
  return existsSync(join(libsDir, COMPLETE_MARKER)) ? libsDir : undefined;
}

export function cachedKafkaLibs(release: KafkaRelease = kafkaVersionSetting()): string | undefined {
  return cachedLibs(kafkaLibsDir(release));
}

/** What Maven fetches for a release's broker: `pom.xml` with the release and its logging's profile. */
export function kafkaMavenLibs(release: KafkaRelease): MavenLibs {
  return {
    description: `Apache Kafka ${release.version} broker`,
    pomCandidates: [join(__dirname, 'pom.xml'), join(__dirname, '..', '..', '..', '..', 'src', 'host', 'broker', 'pom.xml')],
    libsDir: kafkaLibsDir(release),
    mavenArgs: [`-Dkafka.version=${release.version}`, `-Pkafka-${release.major}`],
  };
}

/** The broker's libs directory, running Maven first when there is none. */
export function ensureKafkaJars(log: (line: string) => void = () => undefined, release: KafkaRelease = kafkaVersionSetting()): Promise<string> {
  return ensureMavenLibs(kafkaMavenLibs(release), log);
}

/**
 * Returns the cached libs directory, running Maven first when there is none. Concurrent callers each build
 * into a private directory; the first rename wins and the others discard theirs.
 */
export async function ensureMavenLibs(libs: MavenLibs, log: (line: string) => void = () => undefined): Promise<string> {
  const cached = cachedLibs(libs.libsDir);
  if (cached) return cached;

  const pom = findPom(libs);
  // Maven writes target/ next to the POM it runs: a private copy keeps the source tree clean.
  const build = join(libs.libsDir, '..', `build-${process.pid}-${Date.now()}`);
  const staged = join(build, 'libs');
  await mkdir(build, { recursive: true });
  try {
    await copyFile(pom, join(build, 'pom.xml'));
    log(`Fetching the ${libs.description} jars with Maven into ${libs.libsDir} (once)`);
    await runMaven(libs, build, staged);
    await writeFile(join(staged, COMPLETE_MARKER), `${libs.description}\n`);
    // A libs dir without the marker is not ours to trust (e.g. the marker was deleted to force a refetch).
    if (existsSync(libs.libsDir) && !cachedLibs(libs.libsDir)) await rm(libs.libsDir, { recursive: true, force: true });
    try {
      await rename(staged, libs.libsDir);
    } catch (error) {
      if (!cachedLibs(libs.libsDir)) throw error;
    }
  } finally {
    await rm(build, { recursive: true, force: true });
  }
  return libs.libsDir;
}

function findPom(libs: MavenLibs): string {
  const found = libs.pomCandidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new BrokerProvisioningFailed(`No pom.xml to fetch the ${libs.description} jars with; looked at ${libs.pomCandidates.join(', ')}`);
  }
  return found;
}

function runMaven(libs: MavenLibs, build: string, into: string): Promise<void> {
  const args = ['-q', '-B', '-Dstyle.color=never', '-f', join(build, 'pom.xml'), 'package', `-Dlibs.dir=${into}`, ...(libs.mavenArgs ?? [])];
  return new Promise((resolve, reject) => {
    // The environment passed on as this module sees it (jest gives tests a copy of process.env of their own).
    const options = { cwd: build, env: process.env, timeout: MAVEN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 };
    execFile('mvn', args, options, (error, stdout, stderr) => {
      if (!error) return resolve();
      const tail = `${stdout}${stderr}`.trim().split('\n').slice(-20).join('\n');
      reject(new BrokerProvisioningFailed(`Maven could not fetch the ${libs.description} jars (mvn ${args.join(' ')}): ${error.message}\n${tail}`, { cause: error }));
    });
  });
}
