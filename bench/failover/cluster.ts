/**
 * The failover benchmark's nodes: three `sluice start` processes of the query benchmark's topology (every input
 * record kept in the key-value store `values`, bench/queries/topology.ts), each with its own HTTP and gRPC port and
 * state directory on loopback. A node can be killed, or stopped and started again on the same directory and ports.
 */
import * as path from 'node:path';
import { SluiceClient } from '../../src/client';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import { keyOf } from '../support/keyed-input';
import { BENCH_STORE } from '../queries/topology';
import { until } from '../support/program';
import { freePorts } from '../../src/host/free-ports';
import { startSluiceNode, waitReady, type SluiceNode, type SluiceNodeConfig } from '../support/sluice-node';

export const STORE = BENCH_STORE;
export const PARTITIONS = 6;

const READY_WITHIN_MS = 120_000;
/** A queried node that does not answer within this is a failed query, not a hung benchmark. */
const CLIENT_TIMEOUT_MS = 30_000;

export interface ClusterSettings {
  applicationId: string;
  input: string;
  bootstrapServers: string;
  workDir: string;
  standbys: number;
  sessionTimeoutMs: number;
  /** Each node joins as a static member named after itself (group.instance.id). */
  staticMembership: boolean;
}

export class ClusterNode {
  private running: SluiceNode;
  readonly client: SluiceClient;

  constructor(
    readonly label: string,
    private readonly dir: string,
    private readonly config: SluiceNodeConfig,
    private readonly env: NodeJS.ProcessEnv,
    first: SluiceNode,
  ) {
    this.running = first;
    this.client = new SluiceClient({ url: first.url, timeoutMs: CLIENT_TIMEOUT_MS });
  }

  /** host:port of its HTTP API, as the application record and query parts name it. */
  get server(): string {
    return this.running.server;
  }

  get process(): SluiceNode {
    return this.running;
  }

  /** Sends the signal and waits until the process has gone; its state directory stays. */
  end(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    return this.running.end(signal);
  }

  /** Starts it again on the same directory, ports and configuration. */
  async startAgain(): Promise<void> {
    this.running = await startSluiceNode(this.label, this.dir, this.config, this.env);
    await waitReady(this.running, READY_WITHIN_MS);
  }

  /** Waits until its instance is RUNNING (ready means the API answers; RUNNING, that its tasks process). */
  async waitRunning(applicationId: string, timeoutMs = READY_WITHIN_MS): Promise<void> {
    await until(`${this.label} RUNNING`, () => this.checked(() => this.client.status(applicationId)), (s) => s.state === 'RUNNING', timeoutMs);
  }

  /** Throws at once if the process has exited: no use polling a dead node. */
  async checked<T>(probe: () => Promise<T>): Promise<T> {
    const failure = this.running.failure();
    if (failure !== undefined) throw new Error(failure);
    return probe();
  }

  async stop(): Promise<void> {
    await this.client.close();
    await this.running.stop();
  }
}

export async function startCluster(settings: ClusterSettings, count: number): Promise<ClusterNode[]> {
  const nodes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const label = `node-${String.fromCharCode(97 + i)}`;
      const dir = path.join(settings.workDir, settings.applicationId, label);
      const [port, grpcPort] = await freePorts(2);
      const config: SluiceNodeConfig = {
        server: { host: '127.0.0.1', port, grpcPort, advertisedHost: '127.0.0.1' },
        log: { level: 'warn' },
        streams: {
          'bootstrap.servers': settings.bootstrapServers,
          'state.dir': path.join(dir, 'state'),
          'commit.interval.ms': 1000,
          // The nodes start together: the store spreads over them at once, not after warm-ups and a probing rebalance.
          'acceptable.recovery.lag': Number.MAX_SAFE_INTEGER,
          'num.standby.replicas': settings.standbys,
          'session.timeout.ms': settings.sessionTimeoutMs,
          // Kafka's rule of thumb: a third of the session timeout at most.
          'heartbeat.interval.ms': Math.min(3000, Math.floor(settings.sessionTimeoutMs / 4)),
          ...(settings.staticMembership ? { 'group.instance.id': label } : {}),
        },
        // Compiled, beside this benchmark in dist/.
        topologies: [{ module: path.join(__dirname, '..', 'queries', 'topology.js') }],
        instances: [{ topology: 'query-bench', applicationId: settings.applicationId }],
      };
      const env = { SLUICE_BENCH_INPUT_TOPIC: settings.input };
      return new ClusterNode(label, dir, config, env, await startSluiceNode(label, dir, config, env));
    }),
  );
  try {
    await Promise.all(nodes.map((node) => waitReady(node.process, READY_WITHIN_MS)));
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  return nodes;
}

/**
 * Waits until the store holds every key on `nodes.length` nodes, all RUNNING, and every standby has read its
 * changelog's end (`/status` lag 0), so that a failover starts from caught-up replicas.
 */
export async function waitLoaded(nodes: readonly ClusterNode[], settings: ClusterSettings, keys: number, timeoutMs: number): Promise<void> {
  const { applicationId, standbys } = settings;
  const first = nodes[0]!;
  await until(
    `${keys} keys on ${nodes.length} nodes`,
    () => first.checked(() => first.client.query(applicationId, STORE, { type: 'key_value', query: { count: {} } })),
    (answer) =>
      answer.status === 'SUCCESS' &&
      answer.result.success.length === nodes.length &&
      answer.result.success.reduce((n, part) => n + Number(part.records[0]?.value ?? 0), 0) === keys,
    timeoutMs,
  );
  for (const node of nodes) {
    await until(
      `${node.label} RUNNING with its standbys caught up`,
      () => node.checked(() => node.client.status(applicationId)),
      (status) => {
        const standbyTasks = status.threads.flatMap((thread) => thread.standby_tasks);
        return status.state === 'RUNNING' && (standbys === 0 || (standbyTasks.length > 0 && standbyTasks.every((task) => task.lag === 0)));
      },
      timeoutMs,
    );
  }
}

/** The input partitions each node holds as active, by node server, from the application record. */
export async function activePartitions(node: ClusterNode, settings: ClusterSettings): Promise<Map<string, number[]>> {
  const record = await node.client.application(settings.applicationId);
  const byServer = new Map<string, number[]>();
  for (const instance of record.instances) {
    if (instance.endpoint === undefined) continue;
    const partitions = instance.metadata.assignments.find((a) => a.name === settings.input)?.partitions ?? [];
    byServer.set(`${instance.endpoint.address}:${instance.endpoint.port}`, [...partitions].sort((a, b) => a - b));
  }
  return byServer;
}

/** `sample` keys of the partitions, about as many of each, the first of each partition in key order. */
export function keysOf(partitions: readonly number[], keys: number, sample: number): number[] {
  const quota = Math.ceil(sample / partitions.length);
  const taken = new Map(partitions.map((p) => [p, 0]));
  const chosen: number[] = [];
  for (let i = 0; i < keys && chosen.length < sample; i++) {
    const partition = partitionForKey(Buffer.from(keyOf(i)), PARTITIONS);
    const n = taken.get(partition);
    if (n === undefined || n >= quota) continue;
    taken.set(partition, n + 1);
    chosen.push(i);
  }
  return chosen;
}
