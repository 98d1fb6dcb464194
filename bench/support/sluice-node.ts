/**
 * A `sluice start` node as the benchmarks run it, exactly as `npm start` does: its configuration written to a
 * directory of its own, the process started there by startChild (output in side.log, RSS from /proc, the directory
 * deleted when it stops), ready once /health/readiness answers 200.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from 'undici';
import { startChild, type MeasuredProcess } from './child-process';
import { heapFlags, inMemoryCgroup, type MemoryCgroup } from './memory-cgroup';
import { SLUICE_NODE_FLAGS, sleep } from './program';

/** The repository's launcher, from dist/bench/support. */
const BIN = path.resolve(__dirname, '../../../bin/sluice.js');
const READY_POLL_MS = 250;

/** The configuration file's content; `server.host` and `server.port` say where its API listens. */
export interface SluiceNodeConfig {
  server: { host: string; port: number; [key: string]: unknown };
  [section: string]: unknown;
}

export interface SluiceNode extends MeasuredProcess {
  readonly label: string;
  /** Where the HTTP API listens: `host:port`. */
  readonly server: string;
  readonly url: string;
}

/**
 * Starts the node in `dir` (created if needed); `env` reaches the process beside the benchmark's own. In `cgroup`, it
 * runs within that memory limit, as in a pod, with V8's heap limited to the share the node's memory budget gives it.
 */
export async function startSluiceNode(label: string, dir: string, config: SluiceNodeConfig, env?: NodeJS.ProcessEnv, cgroup?: MemoryCgroup): Promise<SluiceNode> {
  fs.mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, 'sluice.json');
  fs.writeFileSync(configFile, JSON.stringify(config));
  const { command, args } = inMemoryCgroup(process.execPath, [...SLUICE_NODE_FLAGS, ...heapFlags(cgroup), BIN, 'start', '--config', configFile], cgroup);
  const child = await startChild(label, command, args, dir, { env });
  const server = `${config.server.host}:${config.server.port}`;
  return { ...child, label, server, url: `http://${server}` };
}

/** Waits until the node answers /health/readiness with 200; throws if it exits first or is not ready in time. */
export async function waitReady(node: SluiceNode, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = node.failure();
    if (failure !== undefined) throw new Error(failure);
    try {
      const response = await request(`${node.url}/health/readiness`);
      await response.body.dump();
      if (response.statusCode === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${node.label} not ready within ${timeoutMs / 1000} s`);
    await sleep(READY_POLL_MS);
  }
}
