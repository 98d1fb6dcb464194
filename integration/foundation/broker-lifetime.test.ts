/**
 * No local broker outlives the process that started it: not when the process stops it, not when it is
 * interrupted (SIGINT, as a Ctrl-C to jest), not when it is killed outright (SIGKILL).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LocalKafka } from '../../src/host/broker/local-kafka';
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

async function gone(dir: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (processesUsing(dir).length > 0 || existsSync(dir)) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`After ${timeoutMs} ms still there: processes ${processesUsing(dir).join(',') || 'none'}, dir ${existsSync(dir)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

interface ChildBroker {
  child: ChildProcess;
  dir: string;
}

/** Runs integration/support/local-kafka-child.js, which starts a broker and waits, and reads its directory. */
function startChildBroker(): Promise<ChildBroker> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'support', 'local-kafka-child.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0]!;
      if (stdout.includes('\n')) resolve({ child, dir: (JSON.parse(line) as { dir: string }).dir });
    });
    child.once('exit', (code) => reject(new Error(`The child exited (${code}) before its broker was up:\n${stderr}`)));
  });
}

describe('a local broker never outlives its starter', () => {
  it('stops on stop(): processes ended, directory removed', async () => {
    const broker = await LocalKafka.start();
    expect(javaProcessesUsing(broker.dir)).toHaveLength(1);
    await broker.stop();
    expect(processesUsing(broker.dir)).toEqual([]);
    expect(existsSync(broker.dir)).toBe(false);
  });

  it.each(['SIGINT', 'SIGKILL'] as const)('is gone within seconds after its starter gets %s', async (signal) => {
    const { child, dir } = await startChildBroker();
    expect(javaProcessesUsing(dir)).toHaveLength(1);
    child.kill(signal);
    const tookMs = await gone(dir, 10_000);
    expect(tookMs).toBeLessThan(10_000);
  });
});
