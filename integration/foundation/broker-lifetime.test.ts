/**
 * No local broker outlives the process that started it: not when the process stops it, not when it is
 * interrupted (SIGINT, as a Ctrl-C to jest), not when it is killed outright (SIGKILL).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BROKER_TEST_TIMEOUT_MS } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

/** Pids of processes whose command line mentions the broker's directory: the watchdog and Java. */
function processesUsing(dir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', dir], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

function javaProcessesUsing(dir: string): number[] {
  return processesUsing(dir).filter((pid) => {
    try {
      return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).trim() === 'java';
    } catch {
      return false; // gone meanwhile
    }
  });
}

async function gone(dir: string, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (processesUsing(dir).length > 0 || existsSync(dir)) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`After ${timeoutMs} ms still there: processes ${processesUsing(dir).join(',') || 'none'}, dir ${existsSync(dir)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ChildBroker {
  child: ChildProcess;
  dir: string;
  /** The child's exit status. */
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
// A failed test must not leave a child (and so its broker) running: killing the child is what ends the broker.
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Runs integration/support/local-kafka-child.js, which starts a broker and waits, and reads its directory. */
function startChildBroker(...args: string[]): Promise<ChildBroker> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'support', 'local-kafka-child.js'), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0]!;
      if (stdout.includes('\n')) resolve({ child, dir: (JSON.parse(line) as { dir: string }).dir, exited });
    });
    child.once('exit', (code) => reject(new Error(`The child exited (${code}) before its broker was up:\n${stderr}`)));
  });
}

describe('a local broker never outlives its starter', () => {
  it('ends on stop(), which holds a process with nothing else to do until the broker is gone', async () => {
    const { child, dir, exited } = await startChildBroker('--stop');
    expect(javaProcessesUsing(dir)).toHaveLength(1);
    child.stdin!.end('stop\n');
    expect(await exited).toBe(42);
    expect(processesUsing(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it('ends within seconds when its starter is interrupted (SIGINT) or killed (SIGKILL)', async () => {
    const [interrupted, killed] = await Promise.all([startChildBroker(), startChildBroker()]);
    for (const { dir } of [interrupted!, killed!]) expect(javaProcessesUsing(dir)).toHaveLength(1);
    interrupted!.child.kill('SIGINT');
    killed!.child.kill('SIGKILL');
    // The watchdog polls once a second, and ends Java with SIGKILL.
    await Promise.all([gone(interrupted!.dir, 5_000), gone(killed!.dir, 5_000)]);
  });
});
