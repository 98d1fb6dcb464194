/**
 * Jars fetched once from Maven Central with a POM whose `copy-dependencies` fills `${libs.dir}`, kept in a cache
 * directory shared by every checkout, by default under `~/.cache/sluice`: here the Apache Kafka broker's, in
 * `$SLUICE_CACHE_DIR/kafka-<version>/libs` with `pom.xml` beside this file (the word-count benchmark fetches
 * Kafka Streams' the same way). A finished download is marked by a file inside the libs directory, which only
 * appears by an atomic rename, so a cached copy is used without running Maven at all and an interrupted
 * download is never mistaken for one.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BrokerProvisioningFailed } from '../../errors';

export const KAFKA_VERSION = '3.9.1';

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
}

/** `$SLUICE_CACHE_DIR`, else `~/.cache/sluice`. */
export function sluiceCacheDir(): string {
  return process.env.SLUICE_CACHE_DIR || join(homedir(), '.cache', 'sluice');
}

export function kafkaLibsDir(): string {
  return join(sluiceCacheDir(), `kafka-${KAFKA_VERSION}`, 'libs');
}

/** The libs directory when a complete download is cached, else undefined. */
export function cachedLibs(libsDir: string): string | undefined {
  return existsSync(join(libsDir, COMPLETE_MARKER)) ? libsDir : undefined;
}

export function cachedKafkaLibs(): string | undefined {
  return cachedLibs(kafkaLibsDir());
}

/** The broker's libs directory, running Maven first when there is none. */
export function ensureKafkaJars(log: (line: string) => void = () => undefined): Promise<string> {
  return ensureMavenLibs(
    {
      description: `Apache Kafka ${KAFKA_VERSION} broker`,
      pomCandidates: [join(__dirname, 'pom.xml'), join(__dirname, '..', '..', '..', '..', 'src', 'host', 'broker', 'pom.xml')],
      libsDir: kafkaLibsDir(),
    },
    log,
  );
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
  const args = ['-q', '-B', '-Dstyle.color=never', '-f', join(build, 'pom.xml'), 'package', `-Dlibs.dir=${into}`];
  return new Promise((resolve, reject) => {
    execFile('mvn', args, { cwd: build, timeout: MAVEN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const tail = `${stdout}${stderr}`.trim().split('\n').slice(-20).join('\n');
      reject(new BrokerProvisioningFailed(`Maven could not fetch the ${libs.description} jars (mvn ${args.join(' ')}): ${error.message}\n${tail}`, { cause: error }));
    });
  });
}
