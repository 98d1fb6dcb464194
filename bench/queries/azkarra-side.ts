/**
 * The Azkarra side of the query benchmark: one Azkarra Streams 0.8.0 node (azkarra/QueryBench.java) as a child JVM,
 * on jars that Maven fetches once (azkarra/pom.xml) into `$SLUICE_CACHE_DIR/azkarra-0.8.0/libs`. The POM is all
 * the cache keeps, so QueryBench.java is compiled against those jars each time, into the node's own directory.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startChild } from '../support/child-process';
import { compileJava, javaWithLibs } from '../support/java-libs';

const AZKARRA_VERSION = '0.8.0';
const SOURCE_DIR = 'queries/azkarra';

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
  /** CPU seconds the JVM has used (from /proc). */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** The node, or why it cannot run here. Fetching the jars (once) and compiling happen here, outside any timing. */
export async function azkarraNode(settings: AzkarraSettings, log: (line: string) => void): Promise<AzkarraNode | string> {
  const java = await javaWithLibs(`Azkarra Streams ${AZKARRA_VERSION} server`, SOURCE_DIR, `azkarra-${AZKARRA_VERSION}`, log);
  if (typeof java === 'string') return java;
  const { javaCommand, libs } = java;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-azkarra-'));
  const classes = path.join(dir, 'classes');
  const compiled = await compileJava(javaCommand, libs, SOURCE_DIR, 'QueryBench.java', classes);
  if (compiled !== undefined) {
    fs.rmSync(dir, { recursive: true, force: true });
    return compiled;
  }
  const { bootstrapServers, applicationId, input, port } = settings;
  const child = await startChild(
    AZKARRA_LABEL,
    javaCommand,
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
  return { url: `http://127.0.0.1:${port}`, failure: () => child.failure(), cpuSeconds: () => child.cpuSeconds(), stop: () => child.stop() };
}
