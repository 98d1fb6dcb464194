/**
 * Real Sluice processes for the cluster tests: the sources and the test topology are compiled once per content into
 * `.sluice/` (shared by every test file), and each node is `sluice start` run from there with a configuration of its own (loopback HTTP and
 * gRPC ports, state directory, log file; see integration/support/sluice-process.ts). Nodes can be frozen (SIGSTOP),
 * resumed, killed and stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchSluice, SluiceProcess } from '../../support/sluice-process';
import { freePorts } from '../../../src/host/free-ports';

export type { HttpAnswer } from '../../support/sluice-process';

const REPO = path.resolve(__dirname, '../../..');

export interface SluiceBuild {
  /** The compiled tree: `src/`, `integration/cluster/fixtures/`, `proto/`. */
  root: string;
  /** Runs the CLI's main(): `node <launcher> start -c <file>`. */
  launcher: string;
  topologyModule: string;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Where the builds are kept, one per content of what they compile: in the checkout, so that a clean clone starts afresh. */
const BUILDS = path.join(REPO, '.sluice');
const BUILD_PREFIX = 'it-build-';
/** How long a build may take before another test takes its lock over (a run that was killed while compiling). */
const BUILD_LOCK_STALE_MS = 5 * 60_000;
/** A build of other sources unused this long is removed. */
const BUILD_UNUSED_MS = 60 * 60_000;

/** What a build compiles or copies, hashed: the same content is the same build. */
function buildKey(): string {
  const hash = createHash('sha256');
  const add = (file: string): void => {
    hash.update(path.relative(REPO, file));
    hash.update(fs.readFileSync(file));
  };
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else add(file);
    }
  };
  for (const dir of ['src', 'integration/cluster/fixtures', 'proto']) walk(path.join(REPO, dir));
  for (const file of ['tsconfig.json', 'package.json']) add(path.join(REPO, file));
  return hash.digest('hex').slice(0, 16);
}

function buildAt(dir: string): SluiceBuild {
  const root = path.join(dir, 'out');
  return { root, launcher: path.join(root, 'sluice.js'), topologyModule: path.join(root, 'integration/cluster/fixtures/cluster-topology.js') };
}

/**
 * The sources and the fixtures compiled with the repository's compiler settings, once for every test file of a run
 * (and of a run beside it in the same checkout): a compile is about half a minute of a core. Type errors elsewhere in
 * the tree (work in progress) do not stop the build as long as what the nodes run was emitted.
 */
export async function buildSluice(): Promise<SluiceBuild> {
  fs.mkdirSync(BUILDS, { recursive: true });
  const dir = path.join(BUILDS, `${BUILD_PREFIX}${buildKey()}`);
  const done = path.join(dir, 'complete');
  const lock = `${dir}.lock`;
  for (;;) {
    if (fs.existsSync(done)) {
      const now = new Date();
      fs.utimesSync(done, now, now);
      return buildAt(dir);
    }
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another test compiles it: wait for it, or take a lock its run left behind.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > BUILD_LOCK_STALE_MS) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    fs.rmSync(dir, { recursive: true, force: true });
    await compileInto(dir);
    fs.writeFileSync(done, '');
    removeUnusedBuilds(dir);
    return buildAt(dir);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

async function compileInto(dir: string): Promise<void> {
  const { root, launcher, topologyModule } = buildAt(dir);
  fs.mkdirSync(dir, { recursive: true });
  const tsconfig = {
    extends: path.join(REPO, 'tsconfig.json'),
    compilerOptions: { outDir: root, rootDir: REPO, declaration: false, sourceMap: false, noEmit: false, incremental: false },
    include: [path.join(REPO, 'src'), path.join(REPO, 'integration/cluster/fixtures')],
    exclude: [path.join(REPO, '**/*.test.ts')],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const compiled = await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], REPO);
  const cli = path.join(root, 'src/host/cli.js');
  if (!fs.existsSync(cli) || !fs.existsSync(topologyModule)) {
    throw new Error(`compiling Sluice for the cluster tests failed (exit ${compiled.code}):\n${compiled.output}`);
  }
  if (compiled.code !== 0) process.stderr.write(`cluster tests: the compiler reported errors (ignored, the nodes were emitted):\n${compiled.output}\n`);
  fs.cpSync(path.join(REPO, 'proto'), path.join(root, 'proto'), { recursive: true });
  // As in the package: the node reads its version from the package.json above its modules.
  fs.copyFileSync(path.join(REPO, 'package.json'), path.join(root, 'package.json'));
  fs.writeFileSync(
    launcher,
    `'use strict';\nrequire('./src/host/cli.js').main(process.argv).catch((error) => {\n  process.stderr.write(String(error && error.stack || error) + '\\n');\n  process.exit(1);\n});\n`,
  );
}

/** Builds of other sources that no test used for BUILD_UNUSED_MS. */
function removeUnusedBuilds(current: string): void {
  for (const name of fs.readdirSync(BUILDS)) {
    const dir = path.join(BUILDS, name);
    if (!name.startsWith(BUILD_PREFIX) || name.endsWith('.lock') || dir === current) continue;
    const used = fs.statSync(path.join(dir, 'complete'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (Date.now() - used > BUILD_UNUSED_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface NodeOptions {
  build: SluiceBuild;
  name: string;
  bootstrapServers: string;
  applicationId: string;
  inputTopic: string;
  workDir: string;
  /** The configuration's `peers` section: TLS files and the cluster secret. */
  peers?: Record<string, unknown>;
  /** Kafka Streams settings over the defaults below. */
  streams?: Record<string, string | number | boolean>;
  /**
   * The topology the node runs, by alias (`cluster-queries` unless given): of integration/cluster/fixtures/cluster-topology.ts,
   * or of another compiled module (under `build.root`).
   */
  topology?: { module?: string; alias: string };
  /** The HTTP and gRPC ports, e.g. those of the node's previous run (a restarted pod keeps its address); free ones unless given. */
  ports?: { http: number; grpc: number };
  /** Environment variables of the node's process beside the test's own (e.g. OTEL_*). */
  env?: NodeJS.ProcessEnv;
}

/** One `sluice start` process on loopback. */
export class SluiceNode extends SluiceProcess {
  private constructor(name: string, server: string, readonly grpcPort: number, logFile: string, child: ChildProcess) {
    super(name, server, logFile, child);
  }

  static async start(options: NodeOptions): Promise<SluiceNode> {
    const [httpPort, grpcPort] = options.ports ? [options.ports.http, options.ports.grpc] : await freePorts(2);
    const { child, logFile } = launchSluice({
      ...options,
      server: { host: '127.0.0.1', port: httpPort, grpcPort, advertisedHost: '127.0.0.1' },
      streams: {
        'bootstrap.servers': options.bootstrapServers,
        // A killed node leaves the group after this; a frozen one is still a member for this long.
        'session.timeout.ms': 10_000,
        // The nodes start together, and one may have processed the input before the others join: tasks move to them
        // at once, without warming up first (KIP-441), which integration/cluster/warm-up-moves.test.ts tests.
        'acceptable.recovery.lag': Number.MAX_SAFE_INTEGER,
        ...options.streams,
      },
    });
    return new SluiceNode(options.name, `127.0.0.1:${httpPort}`, grpcPort, logFile, child).ready();
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing, as a node stuck in a long pause. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Resumed first: a frozen node acts on SIGTERM only once it runs again. */
  override async stop(graceMs?: number): Promise<void> {
    if (this.running) this.child.kill('SIGCONT');
    await super.stop(graceMs);
  }

  /** The last lines of the node's log, for failure messages. */
  tail(lines = 40): string {
    return this.readLog().split('\n').slice(-lines).join('\n');
  }

  protected logExcerpt(): string {
    return this.tail();
  }
}

/** Polls until `check` resolves true; rejects with `what` and the last value seen (as `show` puts it) after `timeoutMs`. */
/** A `.catch` handler for a wait on several nodes: their logs' tails on stderr, then the error again. */
export function showingLogsOf(nodes: readonly SluiceNode[]): (error: unknown) => never {
  return (error) => {
    for (const n of nodes) process.stderr.write(`--- ${n.name} (${n.server}) ---\n${n.tail()}\n`);
    throw error;
  };
}

export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 90_000,
  show: (value: T) => string = (value) => JSON.stringify(value).slice(0, 2000),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      if (check(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const seen = last === undefined ? `error: ${String(lastError)}` : show(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
