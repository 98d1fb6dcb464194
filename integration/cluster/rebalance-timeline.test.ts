/**
 * The rebalance and restore timeline on real processes: three `sluice start` nodes run a stateful application; one is
 * killed (SIGKILL: it sends no LeaveGroup, its members time out) and a fourth joins. The timelines of the survivors
 * show both rebalances with their causes (member left or timed out; member joined), the tasks that moved, and for
 * each task gained the records its stores restored, as the node's own restore metrics count them. `sluice timeline`
 * prints the same, and with --follow the entries as they come. A survivor's cluster timeline (scope=cluster, and
 * `sluice timeline --cluster`) holds the entries of every surviving node.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RebalanceTimelineEntry, Timeline } from '../../src/client';
import { KV_STORE } from './fixtures/cluster-topology';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from './support/sluice-cluster';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const REPO = path.resolve(__dirname, '../..');
const PARTITIONS = 6;
const BATCH = 3_000;
const keyOf = (i: number) => `key-${String(i).padStart(5, '0')}`;

interface Status {
  threads: { active_tasks: { task_id: string }[] }[];
}
interface Offsets {
  consumers: { positions: { committed_offset: number; log_end_offset: number }[] }[];
}
interface MetricGroup {
  name: string;
  metrics: { name: string; tags: Record<string, string>; value: number }[];
}

describe('the timeline of a node that sees one node killed and another join', () => {
  const clients = new KafkaTestClients();
  const applicationId = uniqueName('timeline');
  const input = uniqueName('timeline-in');
  const nodes: SluiceNode[] = [];
  let follower: ChildProcess | undefined;
  let build: SluiceBuild | undefined;
  let workDir: string | undefined;

  afterAll(async () => {
    follower?.kill('SIGKILL');
    await Promise.allSettled(nodes.map((node) => node.stop()));
    await clients.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  const timeline = async (node: SluiceNode) => (await node.get(`/api/v1/streams/${applicationId}/timeline`)).body as Timeline;
  const rebalances = (t: Timeline) => t.entries.filter((e): e is RebalanceTimelineEntry => e.type === 'rebalance');
  /** The node's finished rebalance that a cause of `type` about `server` explains. */
  const rebalanceFor = (t: Timeline, type: string, server: string) =>
    rebalances(t).find((r) => r.ended_at !== null && r.causes.some((c) => c.type === type && c.application_server === server));
  const activeTasks = async (node: SluiceNode) => {
    const status = (await node.get(`/api/v1/streams/${applicationId}/status`)).body as Status;
    return status.threads.flatMap((t) => t.active_tasks.map((task) => task.task_id)).sort();
  };
  /** restore-total per task, summed over its stores: what the node's metrics say its tasks restored. */
  const restoredByTask = async (node: SluiceNode) => {
    const groups = (await node.get(`/api/v1/streams/${applicationId}/metrics/group/stream-state-metrics`)).body as MetricGroup[];
    const byTask = new Map<string, number>();
    for (const metric of groups.flatMap((g) => g.metrics).filter((m) => m.name === 'restore-total')) {
      byTask.set(metric.tags['task-id']!, (byTask.get(metric.tags['task-id']!) ?? 0) + metric.value);
    }
    return byTask;
  };
  const committedAll = async (node: SluiceNode) => {
    const offsets = (await node.get(`/api/v1/streams/${applicationId}/offsets`)).body as Offsets;
    const positions = offsets.consumers.flatMap((consumer) => consumer.positions);
    return positions.length > 0 && positions.every((p) => p.committed_offset === p.log_end_offset);
  };
  const produce = async (from: number) => {
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: Array.from({ length: BATCH }, (_, n) => ({ key: keyOf(from + n), value: `value-${from + n}` })) });
  };
  const stored = async (node: SluiceNode, i: number) => {
    const answer = await node.post(`/api/v1/applications/${applicationId}/stores/${KV_STORE}`, { type: 'key_value', query: { get: { key: keyOf(i) } }, set_options: { retries: 5, retry_backoff_ms: 200 } });
    return (answer.body as { result?: { success?: { records: unknown[] }[] } }).result?.success?.[0]?.records.length === 1;
  };
  const cli = (...args: string[]) => [build!.launcher, ...args, '--url', nodes[0]!.url];
  const cliEnv = () => ({ ...process.env, NODE_PATH: path.join(REPO, 'node_modules') });

  it(
    'lists both rebalances with their causes, the tasks moved and the records restored, as the API and sluice timeline show them',
    async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-timeline-'));
      build = await buildSluice();
      const admin = await clients.admin();
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: input, numPartitions: PARTITIONS }] });
      await produce(0);
      const start = (name: string) =>
        SluiceNode.start({ build: build!, name, bootstrapServers: bootstrapServers().join(','), applicationId, inputTopic: input, workDir: workDir! });
      for (const name of ['node-a', 'node-b', 'node-c']) nodes.push(await start(name));
      const [a, b, c] = nodes as [SluiceNode, SluiceNode, SluiceNode];
      const everyTask = async () => [...(await activeTasks(a)), ...(await activeTasks(b)), ...(await activeTasks(c))];
      await eventually('the six tasks over the three nodes', everyTask, (tasks) => new Set(tasks).size === PARTITIONS && tasks.length === PARTITIONS, 120_000);
      await eventually('each node with tasks', async () => Promise.all(nodes.map(activeTasks)), (held) => held.every((tasks) => tasks.length > 0), 60_000);
      // Records that only the node to be killed holds of its partitions: the survivors that take them restore these.
      await produce(BATCH);
      await eventually('the second batch stored', () => stored(a, 2 * BATCH - 1), (found) => found, 60_000);
      // Committed, so flushed to the changelogs: else a killed node's last records are in no changelog, and nothing is restored.
      await eventually('node-c to have committed all its input', () => committedAll(c), (done) => done, 60_000);
      const killedTasks = await activeTasks(c);

      await c.kill();
      const left = await eventually(
        "the survivors' rebalance after node-c's members timed out, its restores done",
        async () => [rebalanceFor(await timeline(a), 'member_left', c.server), rebalanceFor(await timeline(b), 'member_left', c.server)] as const,
        (found) => found.every((r) => r !== undefined && r.tasks_gained.every((t) => t.role !== 'active' || t.restore_done === true)),
        90_000,
      );
      const [leftOnA, leftOnB] = left as readonly [RebalanceTimelineEntry, RebalanceTimelineEntry];
      expect(leftOnA.generation).toEqual(expect.any(Number));
      expect(leftOnA.causes).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'member_left', application_server: c.server, members: 1, description: expect.stringContaining('left or timed out') })]));
      // The killed node's tasks went to the survivors.
      const gainedActive = (r: RebalanceTimelineEntry) => r.tasks_gained.filter((t) => t.role === 'active');
      expect([...gainedActive(leftOnA), ...gainedActive(leftOnB)].map((t) => t.task_id)).toEqual(expect.arrayContaining(killedTasks));
      // What each gained task restored, as the node's restore metrics count it (over every store of the task).
      const metricsOfA = await restoredByTask(a);
      const restoredOnA = gainedActive(leftOnA).map((t) => [t.task_id, t.restored_records]);
      expect(restoredOnA.length).toBeGreaterThan(0);
      expect(restoredOnA).toEqual(gainedActive(leftOnA).map((t) => [t.task_id, metricsOfA.get(t.task_id)]));
      expect(restoredOnA.reduce((sum, [, n]) => sum + Number(n), 0)).toBeGreaterThan(0);
      // And each restore's entry: ended, every offset read.
      const restoresOnA = (await timeline(a)).entries.filter((e) => e.type === 'restore' && gainedActive(leftOnA).some((t) => t.task_id === e.task_id));
      expect(restoresOnA.length).toBeGreaterThan(0);
      for (const restore of restoresOnA) expect(restore).toEqual(expect.objectContaining({ done: true, remaining: 0, process_id: leftOnA.process_id, application_server: a.server }));

      // sluice timeline --follow on node-a, before node-d joins.
      let followed = '';
      follower = spawn(process.execPath, cli('timeline', applicationId, '--follow', '-o', 'json'), { env: cliEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
      follower.stdout!.on('data', (chunk: Buffer) => (followed += chunk.toString()));
      const followerExit = new Promise<number | null>((resolve) => follower!.on('exit', resolve));
      await eventually('the followed timeline to print what is there', async () => followed, (text) => text.includes('"member_left"'), 30_000);

      const d = await start('node-d');
      nodes.push(d);
      const joined = await eventually(
        "the survivors' rebalance after node-d joined",
        async () => [rebalanceFor(await timeline(a), 'member_joined', d.server), rebalanceFor(await timeline(b), 'member_joined', d.server)] as const,
        (found) => found.every((r) => r !== undefined),
        90_000,
      );
      const [joinedOnA, joinedOnB] = joined as readonly [RebalanceTimelineEntry, RebalanceTimelineEntry];
      expect(joinedOnA.generation).toBeGreaterThan(leftOnA.generation!);
      expect(joinedOnA.causes).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'member_joined', application_server: d.server, members: 1 })]));
      // The new node's tasks came from the survivors.
      const tasksOfD = await eventually('node-d to run tasks', () => activeTasks(d), (tasks) => tasks.length > 0, 60_000);
      const lostActive = [...joinedOnA.tasks_lost, ...joinedOnB.tasks_lost].filter((t) => t.role === 'active').map((t) => t.task_id);
      expect(lostActive).toEqual(expect.arrayContaining(tasksOfD));

      // The follower printed the new rebalance as it came; Ctrl-C ends it cleanly.
      await eventually('the followed timeline to print the join', async () => followed, (text) => text.includes('"member_joined"'), 30_000);
      const lines = followed.trim().split('\n').map((line) => JSON.parse(line) as RebalanceTimelineEntry);
      expect(lines.some((e) => e.type === 'rebalance' && e.id === joinedOnA.id && e.causes.some((cause) => cause.type === 'member_joined'))).toBe(true);
      follower.kill('SIGINT');
      expect(await followerExit).toBe(0);
      follower = undefined;

      // sluice timeline: the table for people, the resource for scripts.
      const table = spawnSync(process.execPath, cli('timeline', applicationId), { env: cliEnv(), encoding: 'utf8' });
      expect(table.status).toBe(0);
      expect(table.stdout).toMatch(/^STARTED\s+TYPE\s+DURATION\s+WHAT\s+TASKS\s+DETAIL\n/);
      expect(table.stdout).toContain(`member left or timed out: ${c.server}`);
      expect(table.stdout).toContain(`member joined: ${d.server}`);
      const asJson = spawnSync(process.execPath, cli('timeline', applicationId, '-o', 'json'), { env: cliEnv(), encoding: 'utf8' });
      expect(asJson.status).toBe(0);
      const printed = JSON.parse(asJson.stdout) as Timeline;
      expect(rebalanceFor(printed, 'member_left', c.server)?.id).toBe(leftOnA.id);
      expect(rebalanceFor(printed, 'member_joined', d.server)?.id).toBe(joinedOnA.id);

      // The cluster's timeline from node-a: every surviving node answered over gRPC, and its entries are merged in.
      const survivors = [a, b, d];
      const processOf = async (node: SluiceNode) => (await timeline(node)).entries[0]!.process_id;
      const survivingProcesses = (await Promise.all(survivors.map(processOf))).sort();
      const merged = (await a.get(`/api/v1/streams/${applicationId}/timeline?scope=cluster`)).body as Timeline;
      expect(merged.success?.map((node) => node.server).sort()).toEqual(survivors.map((node) => node.server).sort());
      expect(merged.failure).toEqual([]);
      expect([...new Set(merged.entries.map((e) => e.process_id))].sort()).toEqual(survivingProcesses);
      expect(rebalanceFor(merged, 'member_left', c.server)).toBeDefined();
      const starts = merged.entries.map((e) => Date.parse(e.started_at.replace(/\[.*\]$/, '')));
      expect(starts).toEqual([...starts].sort((x, y) => x - y));
      const clusterTable = spawnSync(process.execPath, cli('timeline', applicationId, '--cluster'), { env: cliEnv(), encoding: 'utf8' });
      expect(clusterTable.status).toBe(0);
      expect(clusterTable.stdout).toMatch(/^STARTED\s+NODE\s+TYPE\s+DURATION\s+WHAT\s+TASKS\s+DETAIL\n/);
      for (const node of survivors) expect(clusterTable.stdout).toContain(node.server);
    },
    BROKER_TEST_TIMEOUT_MS * 3,
  );
});
