/**
 * A `sluice start` node process for the integration tests that run real Sluice (cluster, deploy): its configuration
 * file and log under a directory of its own, its HTTP API, waiting until it answers, stopping it.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from 'undici';

const REPO = path.resolve(__dirname, '../..');

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

export interface LaunchOptions {
  /** From buildSluice (cluster/support/sluice-cluster.ts): the compiled CLI and the test topology's module. */
  build: { launcher: string; topologyModule: string };
  /**
   * The topology the node runs, by alias (`cluster-queries` unless given), from the test topologies' module or from
   * another compiled module of topologies.
   */
  topology?: { module?: string; alias: string };
  /** The node's directory under `workDir`. */
  name: string;
  workDir: string;
  applicationId: string;
  inputTopic: string;
  /** The configuration's `server` section. */
  server: Record<string, unknown>;
  /** Streams settings of this kind of node, beside those every test node has. */
  streams: Record<string, unknown>;
  /** The configuration's `peers` section (cluster secret, TLS), when the node has one. */
  peers?: Record<string, unknown>;
  /** Environment variables beside those every test node has. */
  env?: NodeJS.ProcessEnv;
  /** Starts the process; child_process.spawn unless given (e.g. to start it in a network namespace). */
  spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
}

/** Writes the node's configuration to `<workDir>/<name>/sluice.json` and starts `sluice start` on it, logging to node.log there. */
export function launchSluice(options: LaunchOptions): { child: ChildProcess; logFile: string } {
  const dir = path.join(options.workDir, options.name);
  fs.mkdirSync(dir, { recursive: true });
  const config = {
    server: options.server,
    ...(options.peers === undefined ? {} : { peers: options.peers }),
    log: { level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'warn' },
    streams: { 'state.dir': path.join(dir, 'state'), 'commit.interval.ms': 200, 'heartbeat.interval.ms': 1000, ...options.streams },
    topologies: [{ module: options.topology?.module ?? options.build.topologyModule }],
    instances: [{ topology: options.topology?.alias ?? 'cluster-queries', applicationId: options.applicationId }],
    shutdownTimeoutMs: 10_000,
  };
  const configFile = path.join(dir, 'sluice.json');
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  const logFile = path.join(dir, 'node.log');
  const log = fs.openSync(logFile, 'a');
  const child = (options.spawn ?? spawn)(process.execPath, [options.build.launcher, 'start', '--config', configFile], {
    cwd: dir,
    stdio: ['ignore', log, log],
    env: {
      ...process.env,
      ...options.env,
      // The build lives outside the repository: its requires find the repository's packages this way.
      NODE_PATH: path.join(REPO, 'node_modules'),
      SLUICE_IT_INPUT_TOPIC: options.inputTopic,
    },
  });
  fs.closeSync(log);
  return { child, logFile };
}

/** One started `sluice start` process and its HTTP API. */
export abstract class SluiceProcess {
  protected readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  protected constructor(
    readonly name: string,
    /** application.server, where the HTTP API listens: `host:port`. */
    readonly server: string,
    readonly logFile: string,
    protected readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve((this.exitCode = code))));
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

  /** SIGTERM (graceful: commit, leave the group), then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** What a failure to start shows of the node's log. */
  protected abstract logExcerpt(): string;

  /** The node's log so far ('' before it is created). */
  protected readLog(): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
  }

  /** Resolves with this node once it answers /health; rejects if it exits first or does not answer within `timeoutMs`. */
  protected async ready(timeoutMs = 60_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`node ${this.name} exited with ${this.exitCode}:\n${this.logExcerpt()}`);
      try {
        await http('GET', `${this.url}/health`, undefined, 2000);
        return this;
      } catch {
        if (Date.now() > deadline) throw new Error(`node ${this.name} did not answer on ${this.server} within ${timeoutMs} ms:\n${this.logExcerpt()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
}
