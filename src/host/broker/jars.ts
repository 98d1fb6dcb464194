/**
 * The Apache Kafka broker's jars, fetched once from Maven Central with `pom.xml` beside this file and kept in
 * a cache directory shared by every checkout: `$SLUICE_CACHE_DIR/kafka-<version>/libs`, by default under
 * `~/.cache/sluice`. A finished download is marked by a file inside the libs directory, which only appears
 * by an atomic rename, so a cached copy is used without running Maven at all and an interrupted download is
 * never mistaken for one.
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

/** `$SLUICE_CACHE_DIR`, else `~/.cache/sluice`. */
export function sluiceCacheDir(): string {
  return process.env.SLUICE_CACHE_DIR || join(homedir(), '.cache', 'sluice');
}

export function kafkaLibsDir(): string {
  return join(sluiceCacheDir(), `kafka-${KAFKA_VERSION}`, 'libs');
}

/** The libs directory when a complete download is cached, else undefined. */
export function cachedKafkaLibs(): string | undefined {
  const libs = kafkaLibsDir();
  return existsSync(join(libs, COMPLETE_MARKER)) ? libs : undefined;
}

/**
 * Returns the cached libs directory, running Maven first when there is none. Concurrent callers each build
 * into a private directory; the first rename wins and the others discard theirs.
 */
export async function ensureKafkaJars(log: (line: string) => void = () => undefined): Promise<string> {
  const cached = cachedKafkaLibs();
  if (cached) return cached;

  const libs = kafkaLibsDir();
  const versionDir = join(libs, '..');
  // Maven writes target/ next to the POM it runs: a private copy keeps the source tree clean.
  const build = join(versionDir, `build-${process.pid}-${Date.now()}`);
  const staged = join(build, 'libs');
  await mkdir(build, { recursive: true });
  try {
    await copyFile(findPom(), join(build, 'pom.xml'));
    log(`Fetching Apache Kafka ${KAFKA_VERSION} broker jars with Maven into ${libs} (once)`);
    await runMaven(build, staged);
    await writeFile(join(staged, COMPLETE_MARKER), `kafka ${KAFKA_VERSION}\n`);
    // A libs dir without the marker is not ours to trust (e.g. the marker was deleted to force a refetch).
    if (existsSync(libs) && !cachedKafkaLibs()) await rm(libs, { recursive: true, force: true });
    try {
      await rename(staged, libs);
    } catch (error) {
      if (!cachedKafkaLibs()) throw error;
    }
  } finally {
    await rm(build, { recursive: true, force: true });
  }
  return libs;
}

/**
 * The POM beside this module when run from the sources; run from a build (dist/), tsc has not copied it, so
 * it is the one in the sources of the same checkout.
 */
function findPom(): string {
  const candidates = [join(__dirname, 'pom.xml'), join(__dirname, '..', '..', '..', '..', 'src', 'host', 'broker', 'pom.xml')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new BrokerProvisioningFailed(`No pom.xml to fetch the Kafka ${KAFKA_VERSION} jars with; looked at ${candidates.join(', ')}`);
  }
  return found;
}

function runMaven(build: string, libsDir: string): Promise<void> {
  const args = ['-q', '-B', '-Dstyle.color=never', '-f', join(build, 'pom.xml'), 'package', `-Dlibs.dir=${libsDir}`];
  return new Promise((resolve, reject) => {
    execFile('mvn', args, { cwd: build, timeout: MAVEN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const tail = `${stdout}${stderr}`.trim().split('\n').slice(-20).join('\n');
      reject(new BrokerProvisioningFailed(`Maven could not fetch the Kafka ${KAFKA_VERSION} jars (mvn ${args.join(' ')}): ${error.message}\n${tail}`, { cause: error }));
    });
  });
}
