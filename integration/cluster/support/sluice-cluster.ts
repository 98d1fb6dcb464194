/**
 * Real Sluice processes for the cluster tests: the sources and the test topology are compiled once to a temporary
 * directory, and each node is `sluice start` run from there with a configuration of its own (loopback HTTP and
 * gRPC ports, state directory, log file). Nodes can be frozen (SIGSTOP), resumed, killed and stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';

const REPO = path.resolve(__dirname, '../../..');

export interface SluiceBuild {
  /** The temporary directory of the build, to remove once done. */
  dir: string;
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

/**
 * Compiles the sources and the fixtures with the repository's compiler settings. Type errors elsewhere in the
 * tree (work in progress) do not stop the build as long as what the nodes run was emitted.
 */
export async function buildSluice(): Promise<SluiceBuild> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-build-'));
  const root = path.join(dir, 'out');
  const tsconfig = {
    extends: path.join(REPO, 'tsconfig.json'),
    compilerOptions: { outDir: root, rootDir: REPO, declaration: false, sourceMap: false, noEmit: false, incremental: false },
    include: [path.join(REPO, 'src'), path.join(REPO, 'integration/cluster/fixtures')],
    exclude: [path.join(REPO, '**/*.test.ts')],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const compiled = await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], REPO);
  const cli = path.join(root, 'src/host/cli.js');
  const topologyModule = path.join(root, 'integration/cluster/fixtures/cluster-topology.js');
  if (!fs.existsSync(cli) || !fs.existsSync(topologyModule)) {
    throw new Error(`compiling Sluice for the cluster tests failed (exit ${compiled.code}):\n${compiled.output}`);
  }
  if (compiled.code !== 0) process.stderr.write(`cluster tests: the compiler reported errors (ignored, the nodes were emitted):\n${compiled.output}\n`);
  fs.cpSync(path.join(REPO, 'proto'), path.join(root, 'proto'), { recursive: true });
  const launcher = path.join(root, 'sluice.js');
  fs.writeFileSync(
    launcher,
    `'use strict';\nrequire('./src/host/cli.js').main(process.argv).catch((error) => {\n  process.stderr.write(String(error && error.stack || error) + '\\n');\n  process.exit(1);\n});\n`,
  );
  return { dir, root, launcher, topologyModule };
}

/** A port free right now on loopback (bound, then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

async function http(method: 'GET' | 'POST', url: string, body?: unknown, timeoutMs = 60_000): Promise<HttpAnswer> {
  const response = await request(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (e.g. a plain-text answer): kept as text.
  }
  return { status: response.statusCode, body: parsed };
}

export interface NodeOptions {
  build: SluiceBuild;
  name: string;
  bootstrapServers: string;
  applicationId: string;
  inputTopic: string;
  workDir: string;
}

/** One `sluice start` process. */
export class SluiceNode {
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  private constructor(
    readonly name: string,
    /** application.server: `127.0.0.1:<http port>`. */
    readonly server: string,
    readonly grpcPort: number,
    readonly logFile: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve((this.exitCode = code))));
  }

  static async start(options: NodeOptions): Promise<SluiceNode> {
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const dir = path.join(options.workDir, options.name);
    fs.mkdirSync(dir, { recursive: true });
    const config = {
      server: { host: '127.0.0.1', port: httpPort, grpcPort, advertisedHost: '127.0.0.1' },
      log: { level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'warn' },
      streams: {
        'bootstrap.servers': options.bootstrapServers,
        'state.dir': path.join(dir, 'state'),
        'commit.interval.ms': 200,
        // A killed node leaves the group after this; a frozen one is still a member for this long.
        'session.timeout.ms': 10_000,
        'heartbeat.interval.ms': 1000,
      },
      topologies: [{ module: options.build.topologyModule }],
      instances: [{ topology: 'cluster-queries', applicationId: options.applicationId }],
      shutdownTimeoutMs: 10_000,
    };
    const configFile = path.join(dir, 'sluice.json');
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    const logFile = path.join(dir, 'node.log');
    const log = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [options.build.launcher, 'start', '-c', configFile], {
      cwd: dir,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        // The build lives outside the repository: its requires find the repository's packages this way.
        NODE_PATH: path.join(REPO, 'node_modules'),
        SLUICE_IT_INPUT_TOPIC: options.inputTopic,
      },
    });
    fs.closeSync(log);
    const node = new SluiceNode(options.name, `127.0.0.1:${httpPort}`, grpcPort, logFile, child);
    await node.waitForHttp();
    return node;
  }

  get url(): string {
    return `http://${this.server}`;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  get(pathname: string): Promise<HttpAnswer> {
    return http('GET', this.url + pathname);
  }

  post(pathname: string, body: unknown): Promise<HttpAnswer> {
    return http('POST', this.url + pathname, body);
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

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last lines of the node's log, for failure messages. */
  tail(lines = 40): string {
    const text = fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
    return text.split('\n').slice(-lines).join('\n');
  }

  private async waitForHttp(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`node ${this.name} exited with ${this.exitCode}:\n${this.tail()}`);
      try {
        await http('GET', `${this.url}/health`, undefined, 2000);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`node ${this.name} did not answer HTTP within ${timeoutMs} ms:\n${this.tail()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
}

/** Polls until `check` resolves true; rejects with `what` and the last value seen (as `show` puts it) after `timeoutMs`. */
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
