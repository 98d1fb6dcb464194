/**
 * A restart is an expected close: whatever it interrupts (a start still joining the group, records in flight), it
 * logs no error. Restarts come in quick succession here, each catching the one before in another phase.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { createTopics } from '../../src/streams/kafka';
import { buildSluice, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { SecureNode } from './support/secure-node';

jest.setTimeout(4 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
let build: SluiceBuild;
let workDir: string;
let node: SecureNode | undefined;

beforeAll(async () => {
  build = await buildSluice();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-restarts-'));
}, 10 * 60_000);

afterAll(async () => {
  await node?.stop();
  await clients.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function state(id: string): Promise<string> {
  const response = await request(`${node!.url}/api/v1/streams/${id}`);
  return ((await response.body.json()) as { state: { state: string } }).state.state;
}

async function until(id: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while ((await state(id)) !== wanted) {
    if (Date.now() > deadline) throw new Error(`${id} never reached ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('restarts, one upon another while records flow, log no error and leave no exception on the instance', async () => {
  const input = uniqueName('restarts-in');
  const id = uniqueName('restarts');
  await createTopics(await clients.admin(), [{ name: input, partitions: 2 }]);
  node = await SecureNode.start({ build, name: 'node', workDir, applicationId: id, inputTopic: input, streams: { 'num.stream.threads': 2 } });
  await until(id, 'RUNNING');

  const producer = await clients.producer();
  let producing = true;
  const feeding = (async () => {
    for (let i = 0; producing; i++) {
      await producer.send({ topic: input, messages: Array.from({ length: 50 }, (_, j) => ({ key: `k${(i * 50 + j) % 97}`, value: 'v' })) });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    for (const pauseMs of [1500, 300, 50, 0, 800, 0, 20, 100, 0, 200, 10, 400, 0, 600]) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      expect((await request(`${node.url}/api/v1/streams/${id}/restart`, { method: 'POST' })).statusCode).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await until(id, 'RUNNING');
  } finally {
    producing = false;
    await feeding;
  }
  const stopped = await request(`${node.url}/api/v1/streams/${id}/stop`, { method: 'POST', body: JSON.stringify({ cleanup: true }) });
  expect(stopped.statusCode).toBe(200);
  const instance = (await (await request(`${node.url}/api/v1/streams/${id}`)).body.json()) as Record<string, unknown>;
  expect(instance.exception).toBeUndefined();
  expect(node.log().filter((line) => (line.level ?? 0) >= 50).map((line) => line.text.slice(0, 600))).toEqual([]);
});
