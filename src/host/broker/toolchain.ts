/** Finds the Java runtime and Maven the local broker needs. */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface JavaRuntime {
  /** Command that runs it: `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` from PATH. */
  command: string;
  /** Feature release, e.g. 17. */
  major: number;
}

/** The full path of an executable found on PATH, or undefined. */
export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Parses `java -version` output: `openjdk version "17.0.15"` → 17, `java version "1.8.0_292"` → 8. */
export function parseJavaMajor(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

/** The Java runtime, or undefined when there is none that answers `-version`. */
export function findJava(): Promise<JavaRuntime | undefined> {
  const command = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : findOnPath('java');
  if (command === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile(command, ['-version'], { timeout: 15_000 }, (error, stdout, stderr) => {
      const major = error ? undefined : parseJavaMajor(`${stderr}${stdout}`);
      resolve(major === undefined ? undefined : { command, major });
    });
  });
}
