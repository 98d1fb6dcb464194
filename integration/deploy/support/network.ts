/**
 * Separate network hosts on this machine: each a network namespace with its own address, linked by a veth pair to
 * a bridge that only these namespaces and this machine share. Addresses come from 198.18.0.0/15, the range set
 * aside for network tests (RFC 2544): nothing outside this machine is ever addressed. Root only.
 *
 * Names carry the pid of the test process, so that leftovers of a run that was killed (namespaces, links, and the
 * processes it started in its namespaces) are recognised and removed by the next run.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as os from 'node:os';
import { findOnPath } from '../../../src/host/broker/toolchain';

export interface NetworkHost {
  readonly name: string;
  readonly namespace: string;
  readonly address: string;
  /** This machine's end of the host's veth pair: down cuts the host off. */
  readonly link: string;
}

const NAMESPACE = /^sluice-it-(\d+)-\d+$/;
const BRIDGE = /^slb(\d+)$/;

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function namespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => name !== '');
}

/** Ends what was started in a namespace of this test, then removes it. */
function removeNamespace(namespace: string): void {
  for (const pid of ip('netns', 'pids', namespace).split('\n').filter((line) => line !== '')) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  ip('netns', 'del', namespace);
}

/** Namespaces and bridges of earlier runs whose test process is gone (veth pairs go with their namespace). */
function removeLeftovers(): void {
  for (const namespace of namespaces()) {
    const match = NAMESPACE.exec(namespace);
    if (match && !alive(Number(match[1]))) removeNamespace(namespace);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    const match = name === undefined ? null : BRIDGE.exec(name);
    if (match && !alive(Number(match[1]))) ip('link', 'del', name!);
  }
}

/** A /24 of 198.18.0.0/16 that no address or route of this machine uses. */
function freeSubnet(): string {
  const used = ip('-4', '-o', 'addr', 'show') + ip('-4', 'route', 'show');
  for (let i = 0; i < 256; i++) {
    const subnet = `198.18.${(process.pid + i) % 256}`;
    if (!used.includes(`${subnet}.`)) return subnet;
  }
  throw new Error('no free /24 in 198.18.0.0/16');
}

export class TestNetwork {
  private constructor(
    /** This machine's address on the bridge. */
    readonly gateway: string,
    readonly hosts: readonly NetworkHost[],
    private readonly bridge: string,
  ) {}

  /** Why hosts cannot be made here, or undefined when they can. */
  static unavailable(): string | undefined {
    if (os.platform() !== 'linux') return 'network namespaces need Linux';
    if (process.getuid?.() !== 0) return 'making network namespaces needs root';
    if (findOnPath('ip') === undefined) return 'the ip command (iproute2) is not on PATH';
    const probe = `sluice-it-${process.pid}-probe`;
    try {
      ip('netns', 'add', probe);
      ip('netns', 'del', probe);
      return undefined;
    } catch (error) {
      return `ip netns add is not allowed here: ${String((error as { stderr?: string }).stderr ?? error).trim()}`;
    }
  }

  static create(names: readonly string[]): TestNetwork {
    removeLeftovers();
    const subnet = freeSubnet();
    const bridge = `slb${process.pid}`;
    const network = new TestNetwork(
      `${subnet}.1`,
      names.map((name, i) => ({ name, namespace: `sluice-it-${process.pid}-${i}`, address: `${subnet}.${10 + i}`, link: `slv${process.pid}h${i}` })),
      bridge,
    );
    try {
      ip('link', 'add', bridge, 'type', 'bridge');
      ip('addr', 'add', `${network.gateway}/24`, 'dev', bridge);
      ip('link', 'set', bridge, 'up');
      for (const host of network.hosts) {
        ip('netns', 'add', host.namespace);
        ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.namespace);
        ip('link', 'set', host.link, 'master', bridge, 'up');
        ip('-n', host.namespace, 'link', 'set', 'lo', 'up');
        ip('-n', host.namespace, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0');
        ip('-n', host.namespace, 'link', 'set', 'eth0', 'up');
      }
    } catch (error) {
      network.destroy();
      throw error;
    }
    return network;
  }

  /** Runs a command on a host: in its namespace, with this process's file system and environment. */
  spawn(host: NetworkHost, command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
    return spawn('ip', ['netns', 'exec', host.namespace, command, ...args], options);
  }

  cut(host: NetworkHost): void {
    ip('link', 'set', host.link, 'down');
  }

  restore(host: NetworkHost): void {
    ip('link', 'set', host.link, 'up');
  }

  /** Removes the namespaces (with anything still running in them, and their links) and the bridge. */
  destroy(): void {
    const failures: string[] = [];
    const attempt = (what: string, action: () => void) => {
      try {
        action();
      } catch (error) {
        failures.push(`${what}: ${String((error as { stderr?: string }).stderr ?? error).trim()}`);
      }
    };
    const existing = namespaces();
    for (const host of this.hosts) if (existing.includes(host.namespace)) attempt(host.namespace, () => removeNamespace(host.namespace));
    if (ip('-o', 'link', 'show').includes(`: ${this.bridge}:`)) attempt(this.bridge, () => ip('link', 'del', this.bridge));
    if (failures.length > 0) throw new Error(`cleaning up the test network: ${failures.join('; ')}`);
  }
}
