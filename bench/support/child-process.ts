/**
 * What a benchmark measures runs as a child process of it (Sluice and Kafka Streams alike), so that its RSS is its
 * own and the harness' polling takes nothing from its CPU.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';

const STOP_MS = 10_000;

/** A process under measurement. */
export interface MeasuredProcess {
  /** Its process id, for what a benchmark reads of it from /proc beyond RSS and CPU. */
  readonly pid: number;
  /** Resident set size in bytes, or undefined when it cannot be read. */
  rss(): number | undefined;
  /** CPU time it has used so far (user and system, all its threads) in seconds, or undefined when it cannot be read. */
  cpuSeconds(): number | undefined;
  /** Why it stopped by itself, or undefined while it runs. */
  failure(): string | undefined;
  /** Sends `signal` and waits until the process has ended; its directory stays (a node started again there finds its state). */
  end(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Ends it (SIGTERM, SIGKILL after STOP_MS) and deletes its directory. */
  stop(): Promise<void>;
}

export interface ChildOptions {
  /** Gets each line of its stdout as it comes (the lines go to the log too). */
  onStdoutLine?: (line: string) => void;
  /** Environment variables beside the benchmark's own. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `command args` with its output in `<dir>/side.log` (appended to: a process started again in `dir` adds to
 * it); `dir` is deleted when it stops. Stopping is a SIGTERM
 * (both sides then close, and a Node profile asked for by --cpu-prof gets written), and a SIGKILL after STOP_MS.
 */
export async function startChild(
  label: string,
  command: string,
  args: readonly string[],
  dir: string,
  { onStdoutLine, env }: ChildOptions = {},
): Promise<MeasuredProcess> {
  const logFile = path.join(dir, 'side.log');
  const output = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', onStdoutLine ? 'pipe' : output, output], env: { ...process.env, ...env } });
  fs.closeSync(output);
  if (onStdoutLine) {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      fs.appendFileSync(logFile, `${line}\n`);
      onStdoutLine(line);
    });
  }
  let exit: string | undefined;
  // 'close', not 'exit': the last stdout lines are read (and logged) before `dir` goes.
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      exit = code === null ? `signal ${signal}` : `code ${code}`;
      resolve();
    }),
  );
  const spawnError = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawnError) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw spawnError;
  }
  const end = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    if (exit === undefined) child.kill(signal);
    await exited;
  };
  const logTail = (): string => fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
  return {
    pid: child.pid!,
    rss: () => procRss(child.pid!),
    cpuSeconds: () => procCpuSeconds(child.pid!),
    failure: () => (exit === undefined ? undefined : `${label} exited with ${exit}:\n${logTail()}`),
    end,
    stop: async () => {
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await end('SIGTERM');
      clearTimeout(killer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** VmRSS of a process in bytes; undefined once it is gone, or where there is no /proc. */
function procRss(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc's CPU times (Linux's USER_HZ, 100 on every architecture Node runs on). */
const USER_HZ = 100;

/** utime + stime of a process (every thread of it) in seconds; undefined once it is gone, or where there is no /proc. */
function procCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}
