/**
 * Static members (group.instance.id, as the Kubernetes StatefulSet gives each pod) on two `sluice start` processes,
 * session.timeout.ms 45 s. A node restarted with the same id (and address, as a pod keeps its name) gets its tasks
 * back and the other node sees no rebalance. A node removed by the documented scale-down procedure, `sluice stop
 * --all --leave-group` on it and then its SIGTERM, has its partitions owned by the survivor within 10 s, not 45. A
 * node stopped without --leave-group keeps its partitions waiting; a --leave-group after that still moves them.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventSubscription } from '../api/support/sse';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const PARTITIONS = 4;
const SESSION_TIMEOUT_MS = 45_000;
const MOVE_LIMIT_MS = 10_000;
const ALL_TASKS = Array.from({ length: PARTITIONS }, (_, p) => `0_${p}`);

interface Status {
  threads: { active_tasks: { task_id: string }[] }[];
}

let build: SluiceBuild | undefined;
const clients = new KafkaTestClients();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-scale-down-'));
const nodes: SluiceNode[] = [];

beforeAll(async () => {
  build = await buildSluice();
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(nodes.map((node) => node.kill()));
  await clients.close();
  fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

/** The CLI as an operator runs it; answers its exit code and output. */
function sluice(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The build lives outside the repository: its requires find the repository's packages this way.
    const env = { ...process.env, NODE_PATH: path.resolve(__dirname, '../../node_modules') };
    const child = spawn(process.execPath, [build!.launcher, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it(
  'a restart with the same id moves nothing; the scale-down procedure moves the removed node’s partitions at once',
  async () => {
    const applicationId = uniqueName('scale-down');
    const input = uniqueName('scale-down-in');
    await createTopics(await clients.admin(), [{ name: input, partitions: PARTITIONS }]);
    const start = (name: string, ports?: { http: number; grpc: number }) =>
      SluiceNode.start({
        build: build!,
        name,
        bootstrapServers: bootstrapServers().join(','),
        applicationId,
        inputTopic: input,
        workDir,
        streams: { 'group.instance.id': name, 'session.timeout.ms': SESSION_TIMEOUT_MS },
        ...(ports ? { ports } : {}),
      }).then((node) => (nodes.push(node), node));
    const tasksOf = async (node: SluiceNode) =>
      ((await node.get(`/api/v1/streams/${applicationId}/status`)).body as Status).threads.flatMap((t) => t.active_tasks.map((task) => task.task_id)).sort();
    const portsOf = (node: SluiceNode) => ({ http: Number(node.server.split(':')[1]), grpc: node.grpcPort });
    const logs = () => nodes.map((node) => `--- ${node.name}\n${node.tail(30)}`).join('\n');

    const a = await start('node-a');
    let b = await start('node-b');
    try {
      const split = await eventually('both nodes running tasks of their own', () => Promise.all([tasksOf(a), tasksOf(b)]), ([x, y]) => x.length > 0 && y.length > 0 && x.length + y.length === PARTITIONS);
      const rebalances = await EventSubscription.open(`${a.url}/api/v1/streams/${applicationId}/subscribe/rebalance`);
      try {
        // Each frame is an assignment this node got: a rebalance of the group.
        const seenBefore = rebalances.frames.length;

        const restartedAt = Date.now();
        const ports = portsOf(b);
        await b.stop();
        b = await start('node-b', ports);
        const back = await eventually('node-b to hold its tasks again', () => tasksOf(b), (tasks) => tasks.length > 0, 60_000);
        expect(Date.now() - restartedAt).toBeLessThan(SESSION_TIMEOUT_MS);
        expect(back).toEqual(split[1]);
        expect(await tasksOf(a)).toEqual(split[0]);
        expect(rebalances.frames.slice(seenBefore)).toEqual([]);
        process.stderr.write(`scale-down: node-b restarted with the same id in ${Date.now() - restartedAt} ms; node-a saw no rebalance\n`);

        const removedAt = Date.now();
        const stopped = await sluice(['stop', '--all', '--leave-group', '--url', b.url]);
        expect(stopped).toEqual({ code: 0, output: `stopped ${applicationId}: STOPPED\n` });
        await b.stop();
        await eventually('node-a to own every partition', () => tasksOf(a), (tasks) => tasks.length === PARTITIONS, MOVE_LIMIT_MS);
        expect(await tasksOf(a)).toEqual(ALL_TASKS);
        const movedInMs = Date.now() - removedAt;
        expect(movedInMs).toBeLessThan(MOVE_LIMIT_MS);
        process.stderr.write(`scale-down: node-b removed, its partitions owned by node-a ${movedInMs} ms after \`sluice stop --all --leave-group\` (session.timeout.ms ${SESSION_TIMEOUT_MS})\n`);

        // Stopped without --leave-group, a node's partitions wait for it; --leave-group afterwards still moves them.
        b = await start('node-b', ports);
        const held = await eventually('node-b to hold tasks again', () => tasksOf(b), (tasks) => tasks.length > 0, 60_000);
        await eventually('node-a to give them up', () => tasksOf(a), (tasks) => tasks.length === PARTITIONS - held.length, 30_000);
        expect(await sluice(['stop', applicationId, '--url', b.url])).toEqual({ code: 0, output: `stopped ${applicationId}: STOPPED\n` });
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        expect((await tasksOf(a)).length).toBe(PARTITIONS - held.length);
        const leftAt = Date.now();
        expect((await sluice(['stop', applicationId, '--leave-group', '--url', b.url])).code).toBe(0);
        await eventually('node-a to own every partition again', () => tasksOf(a), (tasks) => tasks.length === PARTITIONS, MOVE_LIMIT_MS);
        process.stderr.write(`scale-down: a node stopped without --leave-group kept its partitions waiting; --leave-group then moved them in ${Date.now() - leftAt} ms\n`);
      } finally {
        rebalances.close();
      }
    } catch (error) {
      process.stderr.write(`${logs()}\n`);
      throw error;
    }
  },
  BROKER_TEST_TIMEOUT_MS + 180_000,
);
