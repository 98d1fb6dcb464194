/**
 * A `sluice start` process for the security tests (the cluster tests' build and topology, one node on its own), and
 * raw HTTP over a socket: what an HTTP client would tidy up (dot segments, a HEAD that never ends, a request that
 * never finishes) is sent and read as it is.
 */
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { freePort } from '../../../src/host/free-ports';
import type { SluiceBuild } from '../../cluster/support/sluice-cluster';
import { launchSluice, SluiceProcess } from '../../support/sluice-process';
import { bootstrapServers } from '../../support/kafka';

export interface SecureNodeOptions {
  build: SluiceBuild;
  name: string;
  workDir: string;
  applicationId: string;
  inputTopic: string;
  /** The configuration's `server` section, without the port (a free one is taken). */
  server?: Record<string, unknown>;
  streams?: Record<string, unknown>;
  /** https when the server section has `tls`: the test's undici dispatcher must trust its CA. */
  scheme?: 'http' | 'https';
}

export class SecureNode extends SluiceProcess {
  private constructor(
    name: string,
    server: string,
    readonly port: number,
    readonly dir: string,
    logFile: string,
    child: ChildProcess,
    private readonly scheme: 'http' | 'https',
  ) {
    super(name, server, logFile, child);
  }

  override get url(): string {
    return `${this.scheme}://${this.server}`;
  }

  /** Starts the node, logging at info, and resolves once it answers on loopback. */
  static async start(options: SecureNodeOptions): Promise<SecureNode> {
    const port = await freePort();
    const { child, logFile } = launchSluice({
      ...options,
      server: { port, ...options.server },
      streams: { 'bootstrap.servers': bootstrapServers().join(','), ...options.streams },
      env: { SLUICE_LOG_LEVEL: 'info' },
    });
    const node = new SecureNode(options.name, `127.0.0.1:${port}`, port, path.join(options.workDir, options.name), logFile, child, options.scheme ?? 'http');
    return node.ready();
  }

  /** `<workDir>/<name>/state`, the node's state.dir. */
  get stateDir(): string {
    return path.join(this.dir, 'state');
  }

  /** The node's log so far, parsed where it is pino's JSON. */
  log(): { level?: number; msg?: string; text: string }[] {
    return this.readLog()
      .split('\n')
      .filter((line) => line !== '')
      .map((text) => {
        try {
          return { ...(JSON.parse(text) as { level?: number; msg?: string }), text };
        } catch {
          return { text };
        }
      });
  }

  protected logExcerpt(): string {
    return this.readLog().split('\n').slice(-40).join('\n');
  }
}

export interface RawAnswer {
  /** Everything the server sent. */
  text: string;
  elapsedMs: number;
  /** Whether the server closed the connection (else the wait ran out). */
  closed: boolean;
}

/** Writes `request` to a new connection and reads until the server closes it, `until` holds, or `waitMs` passes. */
export function rawExchange(port: number, request: string, options: { waitMs?: number; until?: (text: string) => boolean } = {}): Promise<RawAnswer> {
  const waitMs = options.waitMs ?? 10_000;
  return new Promise((resolve) => {
    const started = Date.now();
    let text = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, elapsedMs: Date.now() - started, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (options.until?.(text)) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

/** The status and JSON body of the first response in `text`. */
export function firstResponse(text: string): { status: number; headers: string; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  const end = text.indexOf('\r\n\r\n');
  const headers = text.slice(0, end).toLowerCase();
  const length = Number(/content-length: (\d+)/.exec(headers)?.[1] ?? text.length);
  return { status, headers, body: JSON.parse(text.slice(end + 4, end + 4 + length)) as Record<string, unknown> };
}
