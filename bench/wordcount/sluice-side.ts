/** The Sluice side of the word-count benchmark: sluice-wordcount.js as a child Node process. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startChild, type MeasuredProcess } from '../support/child-process';
import { createMemoryCgroup, heapFlags, inMemoryCgroup, type MemoryCgroup } from '../support/memory-cgroup';
import { mb, SLUICE_NODE_FLAGS } from '../support/program';
import type { CommonSettings, Side } from './side';

/** `env`: the program's environment beside the benchmark's (OTEL_* to trace its records). */
export function sluiceSide(settings: CommonSettings, suffix: string, env?: NodeJS.ProcessEnv): Side {
  const input = `bench-wc-in-${suffix}`;
  const output = `bench-wc-out-${suffix}`;
  return {
    label: 'Sluice',
    input,
    output,
    start: async (bootstrapServers, applicationId) => {
      const cgroup = settings.budgetMiB === undefined ? undefined : createMemoryCgroup(`sluice-bench-wc-${suffix}`, settings.budgetMiB * 1024 * 1024);
      if (typeof cgroup === 'string') throw new Error(cgroup);
      const running = await startSluiceWordCount(
        {
          'application.id': applicationId,
          'bootstrap.servers': bootstrapServers,
          'num.stream.threads': settings.threads,
          'commit.interval.ms': settings.commitIntervalMs,
          'cache.max.bytes.buffering': settings.cacheBytes,
          'processing.guarantee': settings.guarantee,
        },
        input,
        output,
        undefined,
        cgroup,
        env,
      );
      if (cgroup === undefined) return running;
      return {
        ...running,
        stop: () => running.stop().finally(() => cgroup.remove()),
        limits: () => `memory cgroup of ${settings.budgetMiB} MiB (${heapFlags(cgroup).join(' ')}): its peak ${mb(cgroup.peakBytes())}, OOM kills ${cgroup.oomKills()}`,
      };
    },
  };
}

/**
 * Starts sluice-wordcount.js with `config` in a directory of its own, `state.dir` in it; the directory (and so the
 * local state) is deleted when it stops. Each stdout line (its reports) goes to `onStdoutLine` when given.
 */
export function startSluiceWordCount(
  config: Record<string, unknown>,
  input: string,
  output: string,
  onStdoutLine?: (line: string) => void,
  cgroup?: MemoryCgroup,
  env?: NodeJS.ProcessEnv,
): Promise<MeasuredProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-'));
  // Sluice's Node flags, then the benchmark's own command-line Node options, which win (NODE_OPTIONS reaches
  // the child too, but loses to both).
  const program = path.join(__dirname, 'sluice-wordcount.js');
  const nodeOptions = [...SLUICE_NODE_FLAGS, ...heapFlags(cgroup), ...process.execArgv];
  const { command, args } = inMemoryCgroup(process.execPath, [...nodeOptions, program, JSON.stringify({ 'state.dir': path.join(dir, 'state'), ...config }), input, output], cgroup);
  return startChild('Sluice', command, args, dir, { onStdoutLine, env });
}
