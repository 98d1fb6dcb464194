/**
 * A Java program's runtime for a benchmark: a Java found on this machine, the jars its POM names, fetched once, and
 * its sources compiled against them.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ensureMavenLibs, sluiceCacheDir } from '../../src/host/broker/jars';
import { findJava } from '../../src/host/broker/toolchain';

export interface JavaLibs {
  javaCommand: string;
  /** Directory of the jars. */
  libs: string;
}

/**
 * Java and the jars of `<sourceDir>/pom.xml` (`sourceDir` relative to bench/, found beside the compiled module in
 * dist/ or back in the sources of the checkout), cached in `$SLUICE_CACHE_DIR/<cacheName>/libs`; or why not.
 */
export async function javaWithLibs(description: string, sourceDir: string, cacheName: string, log: (line: string) => void): Promise<JavaLibs | string> {
  const java = await findJava();
  if (java === undefined) return 'no Java runtime found (JAVA_HOME or java on PATH)';
  try {
    const libs = await ensureMavenLibs(
      { description, pomCandidates: benchSourceCandidates(sourceDir, 'pom.xml'), libsDir: path.join(sluiceCacheDir(), cacheName, 'libs') },
      log,
    );
    return { javaCommand: java.command, libs };
  } catch (error) {
    return (error as Error).message;
  }
}

/** Where a non-TypeScript file of bench/ is: in dist/bench/ beside the compiled module, or in the checkout's bench/. */
export function benchSourceCandidates(sourceDir: string, file: string): string[] {
  return [path.join(__dirname, '..', sourceDir, file), path.join(__dirname, '..', '..', '..', 'bench', sourceDir, file)];
}

/**
 * Compiles `<sourceDir>/<file>` (relative to bench/, found as benchSourceCandidates finds it) against the jars in
 * `libs` into `classes`; answers why it could not, else undefined.
 */
export async function compileJava(javaCommand: string, libs: string, sourceDir: string, file: string, classes: string): Promise<string | undefined> {
  const candidates = benchSourceCandidates(sourceDir, file);
  const source = candidates.find((candidate) => fs.existsSync(candidate));
  if (source === undefined) return `no ${file}; looked at ${candidates.join(', ')}`;
  // javac sits beside the java that findJava found (JAVA_HOME/bin or the PATH's).
  const javac = path.join(path.dirname(javaCommand), 'javac');
  try {
    await promisify(execFile)(javac, ['-nowarn', '-cp', path.join(libs, '*'), '-d', classes, source]);
    return undefined;
  } catch (error) {
    const { message, stderr } = error as Error & { stderr?: string };
    return `javac could not compile ${source}: ${message}\n${stderr ?? ''}`.trimEnd();
  }
}
