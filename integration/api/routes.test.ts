/**
 * Every route over real HTTP answers the documented shape, checked against the route's own response schema, for a
 * running, a stopped and an unknown instance; bad input gets the documented 4xx with the error body, never a 500.
 */
import { WORD_COUNT_STORE } from '../../examples/word-count';
import * as applicationSchemas from '../../src/server/schemas/applications';
import { errorBody } from '../../src/server/schemas/common';
import * as healthSchemas from '../../src/server/schemas/health';
import * as streamSchemas from '../../src/server/schemas/streams';
import { topologies as topologiesSchema } from '../../src/server/schemas/topologies';
import { topologyDag } from '../../src/server/schemas/topology';
import { ZONED_TIMESTAMP_PATTERN } from '../../src/server/representations/timestamp';
import { expectMatchesSchema } from '../../src/server/testing/schema-check';
import { parsePrometheusStrictly } from '../../src/streams/metrics/testing/strict-prometheus';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';
import { TestNode, wordCountDefinition } from './support/node';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
const input = uniqueName('api-routes-in');
const output = uniqueName('api-routes-out');
const id = uniqueName('api-routes');
let node: TestNode;

beforeAll(async () => {
  await createTopics(await clients.admin(), [
    { name: input, partitions: 3 },
    { name: output, partitions: 3 },
  ]);
  node = await TestNode.start({ topologies: [wordCountDefinition(input, output)], instances: [{ topology: 'word-count', applicationId: id }] });
  await node.waitForState(id, 'RUNNING');
  const producer = await clients.producer();
  await producer.send({ topic: input, messages: [{ value: 'kafka streams' }, { value: 'kafka sluice' }, { value: 'hello kafka' }] });
}, BROKER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await node?.stop();
  await clients.close();
});

const query = { type: 'key_value', query: { get: { key: 'kafka' } } };

/** The JSON routes and their schemas; a narrowed metrics route only while the instance has metrics (running). */
function jsonRoutes(app: string, running = true): [string, object][] {
  const I = `/api/v1/streams/${app}`;
  const narrowed: [string, object][] = running ? [[`${I}/metrics/group/stream-metrics`, streamSchemas.metricGroups]] : [];
  return [
    ...narrowed,
    ['/api/v1/streams', streamSchemas.applicationIds],
    [I, streamSchemas.instance],
    [`${I}/status`, streamSchemas.status],
    [`${I}/config`, streamSchemas.config],
    [`${I}/offsets`, streamSchemas.offsets],
    [`${I}/metrics`, streamSchemas.metricGroups],
    [`${I}/metrics?filter_empty`, streamSchemas.metricGroups],
    [`${I}/topology`, topologyDag],
    [`${I}/stores`, streamSchemas.storeStatus],
    [`${I}/metadata`, applicationSchemas.applicationInstance],
    [`${I}/subscriptions`, { type: 'array', items: { type: 'string' } }],
    ['/api/v1/applications', streamSchemas.applicationIds],
    [`/api/v1/applications/${app}`, applicationSchemas.application],
    [`/api/v1/applications/${app}/topology`, topologyDag],
    ['/api/v1/topologies', topologiesSchema],
    ['/health', healthSchemas.healthReport],
    ['/health/liveness', healthSchemas.probe],
    ['/health/readiness', healthSchemas.probe],
    ['/openapi.json', { type: 'object', required: ['openapi', 'paths'] }],
  ];
}

async function expectShapes(app: string, running: boolean): Promise<void> {
  for (const [path, schema] of jsonRoutes(app, running)) {
    const answer = await node.get(path);
    expect([path, answer.status]).toEqual([path, 200]);
    expect([path, answer.headers['content-type']]).toEqual([path, 'application/json; charset=utf-8']);
    expectMatchesSchema(schema, answer.json());
  }
}

async function expectError(method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH', path: string, status: number, exception: string, body?: string | object) {
  const answer = await node.call(method, path, body);
  expect([method, path, answer.status]).toEqual([method, path, status]);
  const error = answer.json();
  expectMatchesSchema(errorBody, error);
  expect(error).toEqual(expect.objectContaining({ error_code: status, exception, path: path.split('?')[0] }));
  return answer;
}

it('a running instance: every route in its documented shape, timestamps zoned, text routes as text', async () => {
  await expectShapes(id, true);
  const instance = (await node.get(`/api/v1/streams/${id}`)).json() as { since: string; state: { since: string; state: string } };
  expect(instance.state.state).toBe('RUNNING');
  expect(instance.since).toMatch(new RegExp(ZONED_TIMESTAMP_PATTERN));
  expect(instance.state.since).toMatch(/Z\[UTC\]$/);

  const groups = (await node.get(`/api/v1/streams/${id}/metrics`)).json() as { name: string }[];
  expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(['stream-metrics', 'stream-thread-metrics']));
  const value = await node.get(`/api/v1/streams/${id}/metrics/group/stream-metrics/name/alive-stream-threads/value`);
  expect([value.status, value.headers['content-type'], value.text]).toEqual([200, 'text/plain; charset=utf-8', '1']);
  const version = await node.get(`/api/v1/streams/${id}/metrics/group/stream-metrics/metric/version/value`);
  expect(version.text).toMatch(/^\d+\.\d+\.\d+/);
  const prometheus = await node.get(`/api/v1/streams/${id}/metrics?format=prometheus`);
  expect(prometheus.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(parsePrometheusStrictly(prometheus.text).get('streams_alive_stream_threads')?.samples[0]?.labels.application_id).toBe(id);

  await waitFor(async () => {
    const answer = await node.call('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}/records`, query);
    return answer.status === 200 && (answer.json() as { value: number }[])[0]?.value === 3;
  }, 'kafka counted 3 times');
  const result = await node.call('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}`, query);
  expectMatchesSchema(applicationSchemas.storeQueryResult, result.json());
  const records = await node.call('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}/records`, query);
  expectMatchesSchema(applicationSchemas.storeRecords, records.json());
  expect(records.json()).toEqual([expect.objectContaining({ key: 'kafka', value: 3 })]);
});

it('bad input: malformed JSON, wrong types, unknown keys, wrong methods and routes are 4xx with the error body', async () => {
  const I = `/api/v1/streams/${id}`;
  await expectError('DELETE', `${I}/stop`, 400, 'MalformedJson', '{"cleanup": ');
  await expectError('POST', '/api/v1/streams', 400, 'MalformedJson', 'not json');
  await expectError('DELETE', `${I}/stop`, 400, 'InvalidRequest', { cleanup: 'true' });
  await expectError('DELETE', `${I}/stop`, 400, 'InvalidRequest', { cleanup: false, force: true });
  await expectError('POST', '/api/v1/streams', 400, 'InvalidRequest', { type: 12 });
  await expectError('POST', '/api/v1/streams', 404, 'UnknownTopology', { type: 'no-such-topology' });
  await expectError('POST', '/api/v1/streams', 400, 'ConfigException', { type: 'word-count', name: 'x', config: { 'num.stream.threads': 'many' } });
  await expectError('GET', `${I}/metrics?format=yaml`, 400, 'InvalidRequest');
  await expectError('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}`, 400, 'InvalidQuery', { type: 'key_value', query: {} });
  await expectError('POST', `/api/v1/applications/${id}/stores/no-such-store`, 404, 'UnknownStore', query);
  await expectError('GET', `${I}/subscribe/no-such-event`, 404, 'UnknownEventType');
  await expectError('GET', `${I}/metrics/group/no-such-group`, 404, 'UnknownMetric');
  await expectError('GET', '/api/v1/nothing-here', 404, 'RouteNotFound');
  const wrongMethod = await expectError('PUT', `${I}/restart`, 405, 'MethodNotAllowed');
  expect(wrongMethod.headers.allow).toBe('POST');
  expect((await expectError('PATCH', I, 405, 'MethodNotAllowed')).headers.allow).toBe('DELETE, GET, HEAD');
  // Nothing above changed the instance.
  expect(await node.state(id)).toBe('RUNNING');
});

it('an unknown instance: 404 with the error body on every instance route', async () => {
  const paths = jsonRoutes('no-such-app')
    .map(([path]) => path)
    .filter((path) => path.includes('no-such-app'));
  for (const path of paths) await expectError('GET', path, 404, 'UnknownApplication');
  await expectError('POST', '/api/v1/streams/no-such-app/restart', 404, 'UnknownApplication');
  await expectError('DELETE', '/api/v1/streams/no-such-app/stop', 404, 'UnknownApplication', { cleanup: true });
  await expectError('DELETE', '/api/v1/streams/no-such-app', 404, 'UnknownApplication');
  await expectError('GET', '/api/v1/streams/no-such-app/subscribe/state', 404, 'UnknownApplication');
  await expectError('POST', `/api/v1/applications/no-such-app/stores/${WORD_COUNT_STORE}`, 404, 'UnknownApplication', query);
});

it('a stopped instance: still listed, every route in its documented shape, queries 503', async () => {
  const stopped = await node.call('DELETE', `/api/v1/streams/${id}/stop`);
  expect([stopped.status, stopped.json()]).toEqual([200, { id, state: 'STOPPED' }]);
  await expectShapes(id, false);
  expect((await node.get('/api/v1/streams')).json()).toEqual([id]);
  expect((await node.get(`/api/v1/streams/${id}/metrics`)).json()).toEqual([]);
  // Narrowing finds nothing in an instance without metrics: the documented 404.
  await expectError('GET', `/api/v1/streams/${id}/metrics/group/stream-metrics`, 404, 'UnknownMetric');
  expect((await node.get(`/api/v1/streams/${id}/offsets`)).json()).toEqual({ group: id, consumers: [] });
  await expectError('POST', `/api/v1/applications/${id}/stores/${WORD_COUNT_STORE}`, 503, 'NoLocalInstance', query);
});
