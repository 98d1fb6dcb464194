/**
 * Sluice on the hosts of a TestNetwork: `sluice start` in a host's namespace, configured as a pod is (the same
 * HTTP and gRPC ports on every host, application.server from the environment), and the broker made reachable from
 * every host.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { SluiceBuild } from '../../cluster/support/sluice-cluster';
import { launchSluice, SluiceProcess } from '../../support/sluice-process';
import type { NetworkHost, TestNetwork } from './network';

export const HTTP_PORT = 8080;
export const GRPC_PORT = 9090;
const RELAY = path.join(__dirname, 'tcp-relay.js');
const LOOPBACK = new Set(['127.0.0.1', 'localhost']);
/** A relay's standard input stays open while this process lives: it exits when this process is gone. */
const RELAY_STDIO: ['pipe', 'pipe', 'pipe'] = ['pipe', 'pipe', 'pipe'];

function endpoint(address: string): { host: string; port: number } {
  const match = /^(.+):(\d+)$/.exec(address);
  if (!match) throw new Error(`expected host:port, got '${address}'`);
  return { host: match[1]!, port: Number(match[2]) };
}

/** Why the broker cannot be relayed to the hosts, or undefined when it can. */
export function brokerUnreachable(bootstrapServers: readonly string[]): string | undefined {
  const remote = bootstrapServers.filter((address) => !LOOPBACK.has(endpoint(address).host));
  return remote.length === 0 ? undefined : `the broker (${remote.join(', ')}) is not on this machine's loopback, which is what the relays reach`;
}

/** Resolves with the port a relay listens on, once it does. */
function relayPort(relay: ChildProcess, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    relay.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve((JSON.parse(stdout.split('\n')[0]!) as { port: number }).port);
    });
    relay.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    relay.on('exit', (code) => reject(new Error(`relay ${what} exited with ${code}: ${stderr}`)));
    relay.on('error', reject);
  });
}

/**
 * The broker listens on this machine's loopback and advertises that address, which inside a namespace is the
 * namespace's own. So on each host a relay listens where the broker is advertised, and forwards over the host's
 * link to a relay on the bridge, which forwards to the broker: each host reaches the one broker through its own
 * link, and cutting the link cuts it off from the broker as well.
 */
export class BrokerRelays {
  private readonly relays: ChildProcess[] = [];

  static async start(network: TestNetwork, bootstrapServers: readonly string[]): Promise<BrokerRelays> {
    const started = new BrokerRelays();
    try {
      for (const broker of bootstrapServers.map(endpoint)) {
        const target = `${broker.host}:${broker.port}`;
        const bridgePort = await started.relay(spawn(process.execPath, [RELAY, `${network.gateway}:0`, target], { stdio: RELAY_STDIO }), `bridge → ${target}`);
        await Promise.all(
          network.hosts.map((host) =>
            started.relay(network.spawn(host, process.execPath, [RELAY, `127.0.0.1:${broker.port}`, `${network.gateway}:${bridgePort}`], { stdio: RELAY_STDIO }), `${host.name} → bridge`),
          ),
        );
      }
    } catch (error) {
      started.stop();
      throw error;
    }
    return started;
  }

  stop(): void {
    for (const relay of this.relays) if (relay.exitCode === null) relay.kill('SIGKILL');
  }

  private relay(relay: ChildProcess, what: string): Promise<number> {
    this.relays.push(relay);
    return relayPort(relay, what);
  }
}

export interface HostNodeOptions {
  network: TestNetwork;
  host: NetworkHost;
  build: SluiceBuild;
  bootstrapServers: string;
  applicationId: string;
  inputTopic: string;
  workDir: string;
}

/** One `sluice start` on one host. */
export class HostNode extends SluiceProcess {
  static async start(options: HostNodeOptions): Promise<HostNode> {
    const { host, network } = options;
    const server = `${host.address}:${HTTP_PORT}`;
    const { child, logFile } = launchSluice({
      ...options,
      name: host.name,
      // The base manifests' choice: all interfaces, no users (so, explicitly allowed).
      server: { host: '0.0.0.0', allowUnauthenticated: true, port: HTTP_PORT, grpcPort: GRPC_PORT },
      streams: {
        // Longer than a link stays cut in the test: the cut host stays in the group and keeps its partitions.
        'session.timeout.ms': 30_000,
      },
      env: {
        // As the StatefulSet sets them, with the host's address where a pod has its DNS name.
        SLUICE_ADVERTISED_HOST: host.address,
        SLUICE_APPLICATION_SERVER: server,
        SLUICE_BOOTSTRAP_SERVERS: options.bootstrapServers,
      },
      spawn: (command, args, spawnOptions) => network.spawn(host, command, args, spawnOptions),
    });
    return new HostNode(host.name, server, logFile, child).ready();
  }

  /** The last error lines of the node's log (pino levels 50 and 60, and what is not pino's), for failure messages. */
  errors(lines = 20): string {
    return this.readLog()
      .split('\n')
      .filter((line) => line !== '' && (!line.startsWith('{') || /^\{"level":(50|60),/.test(line)))
      .slice(-lines)
      .join('\n');
  }

  protected logExcerpt(): string {
    return this.errors();
  }
}
