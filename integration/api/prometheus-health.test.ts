/**
 * The process-wide Prometheus endpoint as a scraper sees it, and health: 200 while every instance runs, 503 once
 * one is in ERROR.
 */
import { request } from 'undici';
import { parsePrometheusStrictly } from '../../src/streams/metrics/testing/strict-prometheus';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { poisonableDefinition, TestNode } from './support/node';

jest.setTimeout(2 * BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const topics = { healthy: uniqueName('api-ok-in'), failing: uniqueName('api-bad-in'), out: uniqueName('api-out') };
const ids = { healthy: uniqueName('api-ok'), failing: uniqueName('api-bad') };
let node: TestNode;

beforeAll(async () => {
  await createTopics(await clients.admin(), [
    { name: topics.healthy, partitions: 2 },
    { name: topics.failing, partitions: 1 },
    { name: topics.out, partitions: 1 },
  ]);
  node = await TestNode.start({
    topologies: [poisonableDefinition('healthy', topics.healthy, topics.out), poisonableDefinition('failing', topics.failing, topics.out)],
    instances: [
      { topology: 'healthy', applicationId: ids.healthy },
      { topology: 'failing', applicationId: ids.failing },
    ],
  });
  await node.waitForState(ids.healthy, 'RUNNING');
  await node.waitForState(ids.failing, 'RUNNING');
}, 2 * BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await node?.stop();
  await clients.close();
});

it('a Prometheus-style scrape of /prometheus: strict text with process metrics and every instance', async () => {
  const producer = await clients.producer();
  await producer.send({ topic: topics.healthy, messages: [{ value: 'a' }, { value: 'b' }] });
  const response = await request(`${node.url}/prometheus`, {
    headers: {
      accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1',
      'user-agent': 'Prometheus/2.53.0',
      'x-prometheus-scrape-timeout-seconds': '10',
    },
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  const families = parsePrometheusStrictly(await response.body.text());
  for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
    expect([name, families.has(name)]).toEqual([name, true]);
  }
  const alive = families.get('streams_alive_stream_threads')!;
  expect(alive.type).toBe('gauge');
  expect(alive.samples.map((s) => s.labels.application_id).sort()).toEqual([ids.healthy, ids.failing].sort());
  expect([...families.keys()].some((name) => name.startsWith('streams_') && families.get(name)!.type === 'counter')).toBe(true);
});

it('/health is 200 while all run and 503 once an instance is in ERROR', async () => {
  const up = await node.get('/health');
  expect(up.status).toBe(200);
  expect(up.json()).toEqual({
    status: 'UP',
    details: {
      applications: {
        name: 'applications',
        status: 'UP',
        details: {
          [ids.healthy]: { status: 'UP', details: { state: 'RUNNING' } },
          [ids.failing]: { status: 'UP', details: { state: 'RUNNING' } },
        },
      },
    },
  });
  expect((await node.get('/health/liveness')).status).toBe(200);
  expect((await node.get('/health/readiness')).status).toBe(200);

  const producer = await clients.producer();
  await producer.send({ topic: topics.failing, messages: [{ value: 'poison' }] });
  await node.waitForState(ids.failing, 'ERROR');

  const down = await node.get('/health');
  expect(down.status).toBe(503);
  expect(down.json()).toEqual({
    status: 'DOWN',
    details: {
      applications: {
        name: 'applications',
        status: 'DOWN',
        details: {
          [ids.healthy]: { status: 'UP', details: { state: 'RUNNING' } },
          [ids.failing]: { status: 'DOWN', details: { state: 'ERROR' } },
        },
      },
    },
  });
  expect((await node.get('/health/liveness')).status).toBe(503);
  const failed = (await node.get(`/api/v1/streams/${ids.failing}`)).json() as { exception?: string };
  expect(failed.exception).toContain('poison record');
  // The healthy instance is untouched.
  await waitFor(async () => (await node.state(ids.healthy)) === 'RUNNING', 'the healthy instance to keep running');
});
