/**
 * The Azkarra side of the query benchmark: one Azkarra Streams 0.8.0 node (azkarra/QueryBench.java) as a child JVM,
 * on jars that Maven fetches once (azkarra/pom.xml) into `$SLUICE_CACHE_DIR/azkarra-0.8.0/libs`. The POM is all
 * the cache keeps, so QueryBench.java is compiled against those jars each time, into the node's own directory.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ensureMavenLibs, sluiceCacheDir } from '../../src/host/broker/jars';
import { findJava } from '../../src/host/broker/toolchain';
import { startChild } from '../support/child-process';

const AZKARRA_VERSION = '0.8.0';
// QueryBench.java and pom.xml: beside this module in the sources; from dist/bench/queries, back in the checkout.
const SOURCE_DIRS = [path.join(__dirname, 'azkarra'), path.join(__dirname, '..', '..', '..', 'bench', 'queries', 'azkarra')];

export const AZKARRA_LABEL = `Azkarra ${AZKARRA_VERSION}`;

export interface AzkarraSettings {
  bootstrapServers: string;
  applicationId: string;
  input: string;
  port: number;
}

/** A running Azkarra node: its base URL, why it stopped by itself (undefined while it runs), and how to stop it. */
export interface AzkarraNode {
  url: string;
  failure(): string | undefined;
  stop(): Promise<void>;
}

/** The node, or why it cannot run here. Fetching the jars (once) and compiling happen here, outside any timing. */
export async function azkarraNode(settings: AzkarraSettings, log: (line: string) => void): Promise<AzkarraNode | string> {
  const java = await findJava();
  if (java === undefined) return 'no Java runtime found (JAVA_HOME or java on PATH)';
  let libs: string;
  try {
    libs = await ensureMavenLibs(
      {
        description: `Azkarra Streams ${AZKARRA_VERSION} server`,
        pomCandidates: SOURCE_DIRS.map((dir) => path.join(dir, 'pom.xml')),
        libsDir: path.join(sluiceCacheDir(), `azkarra-${AZKARRA_VERSION}`, 'libs'),
      },
      log,
    );
  } catch (error) {
    return (error as Error).message;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-azkarra-'));
  const classes = path.join(dir, 'classes');
  const compiled = await compile(java.command, libs, classes);
  if (compiled !== undefined) {
    fs.rmSync(dir, { recursive: true, force: true });
    return compiled;
  }
  const { bootstrapServers, applicationId, input, port } = settings;
  const child = await startChild(
    AZKARRA_LABEL,
    java.command,
    [
      // slf4j-simple, the binding azkarra/pom.xml brings: Azkarra and Kafka Streams log at INFO by default.
      '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
      '-cp',
      `${classes}${path.delimiter}${path.join(libs, '*')}`,
      'QueryBench',
      bootstrapServers,
      applicationId,
      input,
      String(port),
      path.join(dir, 'state'),
    ],
    dir,
  );
  return { url: `http://127.0.0.1:${port}`, failure: () => child.failure(), stop: () => child.stop() };
}

/** Compiles QueryBench.java into `classes`; answers why it could not, else undefined. */
async function compile(javaCommand: string, libs: string, classes: string): Promise<string | undefined> {
  const source = SOURCE_DIRS.map((dir) => path.join(dir, 'QueryBench.java')).find((candidate) => fs.existsSync(candidate));
  if (source === undefined) return `no QueryBench.java; looked in ${SOURCE_DIRS.join(', ')}`;
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
