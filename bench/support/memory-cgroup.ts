/**
 * A memory cgroup for a process under measurement, as a Kubernetes pod's `limits.memory` is one: the kernel counts
 * the process' anonymous and page-cache memory against the limit, takes back clean pages under pressure, and kills
 * the process (an OOM kill) when that is not enough. cgroup v2 (`memory.max`) or v1 (`memory.limit_in_bytes`), created
 * under the machine's hierarchy, which takes root; the process joins it as it starts (`wrapCommand`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HEAP_SHARE } from '../../src/streams/runtime/memory-budget';

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

export interface MemoryCgroup {
  readonly limitBytes: number;
  /** `command args` started so that it joins the cgroup before it runs (a shell that writes its pid, then execs). */
  wrapCommand(command: string, args: readonly string[]): { command: string; args: string[] };
  /** The most the cgroup held at once (v1's max_usage_in_bytes, v2's memory.peak), if the kernel tells it. */
  peakBytes(): number | undefined;
  /** Processes of the cgroup the kernel killed for memory. */
  oomKills(): number;
  remove(): void;
}

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** A new cgroup limited to `limitBytes`, or why there can be none here. */
export function createMemoryCgroup(name: string, limitBytes: number): MemoryCgroup | string {
  const v2 = read(path.join(V2_ROOT, 'cgroup.controllers'))?.split(/\s+/).includes('memory') === true;
  const root = v2 ? V2_ROOT : V1_ROOT;
  if (!v2 && !fs.existsSync(path.join(V1_ROOT, 'memory.limit_in_bytes'))) return 'no memory cgroup controller on this machine';
  const dir = path.join(root, name);
  try {
    fs.mkdirSync(dir);
    if (v2) fs.writeFileSync(path.join(dir, 'memory.max'), String(limitBytes));
    else fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
    // Without swap the limit is the memory; v1 counts swap apart.
    if (v2 && fs.existsSync(path.join(dir, 'memory.swap.max'))) fs.writeFileSync(path.join(dir, 'memory.swap.max'), '0');
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `cannot create a memory cgroup at ${dir} (needs root): ${(error as Error).message}`;
  }
  const procs = path.join(dir, 'cgroup.procs');
  const counter = (file: string, key: string): number => Number(/^(\S+) (\d+)$/m.exec((read(path.join(dir, file)) ?? '').split('\n').find((line) => line.startsWith(`${key} `)) ?? '')?.[2] ?? 0);
  return {
    limitBytes,
    wrapCommand: (command, args) => ({ command: '/bin/sh', args: ['-c', 'echo $$ > "$0" && exec "$@"', procs, command, ...args] }),
    peakBytes: () => {
      const text = read(path.join(dir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
      return text === undefined ? undefined : Number(text.trim());
    },
    oomKills: () => (v2 ? counter('memory.events', 'oom_kill') : counter('memory.oom_control', 'oom_kill')),
    remove: () => {
      try {
        fs.rmdirSync(dir);
      } catch {
        // Still holding a process that is exiting: the next run's name differs.
      }
    },
  };
}

/** `command args` as they run: in `cgroup` when there is one. */
export function inMemoryCgroup(command: string, args: readonly string[], cgroup: MemoryCgroup | undefined): { command: string; args: string[] } {
  return cgroup === undefined ? { command, args: [...args] } : cgroup.wrapCommand(command, args);
}

/** V8's heap limited to the memory budget's heap share of the cgroup's limit (after SLUICE_NODE_FLAGS, so it wins). */
export function heapFlags(cgroup: MemoryCgroup | undefined): string[] {
  return cgroup === undefined ? [] : [`--max-old-space-size=${Math.floor((cgroup.limitBytes * HEAP_SHARE) / 1024 / 1024)}`];
}
