import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pino from 'pino';
import { buildServer, type ServerOptions } from './app';
import { hashPassword } from './auth/password-hash';
import * as applicationSchemas from './schemas/applications';
import { errorBody } from './schemas/common';
import * as healthSchemas from './schemas/health';
import * as streamSchemas from './schemas/streams';
import { topologies as topologiesSchema } from './schemas/topologies';
import { topologyDag } from './schemas/topology';
import type { TimelineEntryJson } from '../cluster';
import { unreadableEntry } from './representations/timeline';
import { ZONED_TIMESTAMP_PATTERN } from './representations/timestamp';
import { FakeInstance, FakeQueries, FakeRegistry } from './testing/fake-instances';
import { expectMatchesSchema } from './testing/schema-check';
import { parsePrometheusStrictly } from '../streams/metrics/testing/strict-prometheus';

let registry: FakeRegistry;
let queries: FakeQueries;
let app: FastifyInstance;

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  await app?.close();
  registry = new FakeRegistry('wc');
  queries = new FakeQueries();
  app = await buildServer({ instances: registry, queries, ...options });
}

beforeEach(() => start());
afterAll(() => app.close());

async function call(method: InjectOptions['method'], url: string, payload?: string | object, headers?: Record<string, string>) {
  const response = await app.inject({ method, url, payload, headers });
  const json = () => JSON.parse(response.body) as unknown;
  return { status: response.statusCode, headers: response.headers, body: response.body, json };
}

/** Asserts the documented error body. */
async function expectError(method: InjectOptions['method'], url: string, status: number, exception: string, payload?: string | object) {
  const response = await call(method, url, payload);
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = response.json();
  expectMatchesSchema(errorBody, body);
  expect(body).toEqual(expect.objectContaining({ error_code: status, exception, path: url.split('?')[0] }));
  return response;
}

const I = '/api/v1/streams/wc';

/** Every JSON route with its response schema: for a running and a stopped instance they must all match. */
const JSON_ROUTES: [string, string, object][] = [
  ['GET', '/api/v1/streams', streamSchemas.applicationIds],
  ['GET', I, streamSchemas.instance],
  ['GET', `${I}/status`, streamSchemas.status],
  ['GET', `${I}/config`, streamSchemas.config],
  ['GET', `${I}/offsets`, streamSchemas.offsets],
  ['GET', `${I}/offsets/history?range=24h`, streamSchemas.lagHistory],
  ['GET', `${I}/timeline`, streamSchemas.timeline],
  ['GET', `${I}/timeline?scope=cluster`, streamSchemas.timeline],
  ['GET', `${I}/metrics`, streamSchemas.metricGroups],
  ['GET', `${I}/topology`, topologyDag],
  ['GET', `${I}/stores`, streamSchemas.storeStatus],
  ['GET', `${I}/metadata`, applicationSchemas.applicationInstance],
  ['GET', `${I}/subscriptions`, { type: 'array', items: { type: 'string' } }],
  ['GET', '/api/v1/applications', streamSchemas.applicationIds],
  ['GET', '/api/v1/applications/wc', applicationSchemas.application],
  ['GET', '/api/v1/applications/wc/topology', topologyDag],
  ['GET', '/api/v1/topologies', topologiesSchema],
  ['GET', '/health', healthSchemas.healthReport],
  ['GET', '/health/liveness', healthSchemas.probe],
  ['GET', '/health/readiness', healthSchemas.probe],
];

describe('shapes', () => {
  it.each(JSON_ROUTES)('%s %s matches its schema while running', async (method, url, schema) => {
    const response = await call(method as InjectOptions['method'], url);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expectMatchesSchema(schema, response.json());
  });

  it.each(JSON_ROUTES)('%s %s matches its schema once stopped', async (method, url, schema) => {
    registry.get('wc')!.moveTo('STOPPED');
    const response = await call(method as InjectOptions['method'], url);
    expect(response.status).toBe(200);
    expectMatchesSchema(schema, response.json());
  });

  it.each(JSON_ROUTES.filter(([, url]) => url.includes('/wc')))('%s %s is a 404 for an unknown instance', async (method, url) => {
    await expectError(method as InjectOptions['method'], url.replace('/wc', '/nope'), 404, 'UnknownApplication');
  });

  it('shows the instance with the contract fields, endpoint and timestamps in the zoned form', async () => {
    const body = (await call('GET', I)).json() as Record<string, unknown>;
    expect(body).toEqual(
      expect.objectContaining({
        id: 'wc',
        name: 'io.sluice.examples.WordCount',
        version: '1.0.0',
        description: 'Counts words',
        since: '2026-11-22T01:30:00.123Z[UTC]',
        state: { state: 'RUNNING', since: '2026-11-22T01:30:00.123Z[UTC]' },
        endpoint: { address: 'localhost', port: 8080 },
      }),
    );
    expect(body).not.toHaveProperty('exception');
    expect(String(body.since)).toMatch(new RegExp(ZONED_TIMESTAMP_PATTERN));
  });

  it('shows the last fatal error as one message', async () => {
    registry.get('wc')!.lastError = new Error('processor boom');
    registry.get('wc')!.moveTo('ERROR');
    expect((await call('GET', I)).json()).toEqual(expect.objectContaining({ exception: 'processor boom', state: expect.objectContaining({ state: 'ERROR' }) }));
  });

  it('once stopped: STOPPED, no consumers, no threads, no metrics, an empty application record', async () => {
    registry.get('wc')!.moveTo('STOPPED');
    expect((await call('GET', I)).json()).toEqual(expect.objectContaining({ state: expect.objectContaining({ state: 'STOPPED' }) }));
    expect((await call('GET', `${I}/offsets`)).json()).toEqual({ group: 'wc', consumers: [] });
    expect((await call('GET', `${I}/status`)).json()).toEqual({ id: 'wc', state: 'STOPPED', threads: [] });
    expect((await call('GET', `${I}/metrics`)).json()).toEqual([]);
    expect((await call('GET', '/api/v1/applications/wc')).json()).toEqual({ id: 'wc', instances: [] });
  });

  it("answers the lag the node sampled since it was ready, per topic and for the group", async () => {
    await app.ready();
    const history = (await call('GET', `${I}/offsets/history?range=15m`)).json();
    expect(history).toEqual({
      group: 'wc',
      range: '15m',
      step_ms: 10_000,
      total: [{ time: expect.any(Number), lag: 2, time_lag_ms: null }],
      topics: [{ topic: 'lines', points: [{ time: expect.any(Number), lag: 2, time_lag_ms: null }] }],
    });
  });

  it("answers the node's timeline in snake_case, each entry naming its node; none while stopped", async () => {
    const timeline = (await call('GET', `${I}/timeline`)).json();
    expect(timeline).toEqual({
      application_id: 'wc',
      entries: [
        {
          id: 1,
          type: 'rebalance',
          process_id: 'p1',
          application_server: 'localhost:8080',
          started_at: '2023-11-14T22:13:20.000Z[UTC]',
          ended_at: '2023-11-14T22:13:20.250Z[UTC]',
          duration_ms: 250,
          generation: 4,
          causes: [{ type: 'member_left', description: 'member left or timed out: other:8080 (p2), 1 thread(s)', process_id: 'p2', application_server: 'other:8080', members: 1 }],
          tasks_gained: [{ task_id: '0_1', role: 'active', restored_records: 40, restore_done: false }],
          tasks_lost: [],
        },
        {
          id: 2,
          type: 'restore',
          process_id: 'p1',
          application_server: 'localhost:8080',
          task_id: '0_1',
          store: 'counts',
          topic: 'wc-counts-changelog',
          partition: 1,
          start_offset: 0,
          end_offset: 100,
          restored: 40,
          remaining: 60,
          rate: 20,
          estimated_remaining_ms: 3000,
          done: false,
          started_at: '2023-11-14T22:13:20.300Z[UTC]',
          ended_at: null,
          duration_ms: 2000,
        },
      ],
    });
    registry.get('wc')!.moveTo('STOPPED');
    expect((await call('GET', `${I}/timeline`)).json()).toEqual({ application_id: 'wc', entries: [] });
  });

  it("answers the cluster's timeline with scope=cluster: the entries of the nodes that answered, and the others named with why", async () => {
    const local = (await call('GET', `${I}/timeline`)).json() as { entries: unknown[] };
    const timeline = (await call('GET', `${I}/timeline?scope=cluster`)).json();
    expect(timeline).toEqual({
      application_id: 'wc',
      entries: local.entries,
      success: [{ server: 'localhost:8080', process_id: 'p1', remote: false, total: 2 }],
      failure: [
        {
          server: 'other:8080',
          process_id: 'p2',
          remote: true,
          errors: [{ message: 'the node published no gRPC endpoint (grpc.endpoint), so it cannot be asked' }],
        },
      ],
    });
    await expectError('GET', `${I}/timeline?scope=everywhere`, 400, 'InvalidRequest');
  });

  it("reads a peer's timeline entry only if it matches the API's schema", async () => {
    const [rebalance] = ((await call('GET', `${I}/timeline`)).json() as { entries: TimelineEntryJson[] }).entries;
    expect(unreadableEntry(rebalance!)).toBeUndefined();
    const newer = { ...rebalance!, causes: [{ type: 'cosmic_ray', description: 'a cause of a newer version' }] } as TimelineEntryJson;
    expect(unreadableEntry(newer)).toMatch(/^\/causes\/0\/type must be equal to one of the allowed values/);
  });

  it('answers offsets, status, stores and the application record in snake_case / contract names', async () => {
    const offsets = (await call('GET', `${I}/offsets`)).json();
    expect(offsets).toEqual({
      group: 'wc',
      consumers: [
        {
          client_id: 'wc-StreamThread-1-consumer',
          stream_thread: 'wc-StreamThread-1',
          positions: [
            {
              topic: 'lines',
              partition: 0,
              consumed_offset: 9,
              consumed_timestamp: 1_700_000_000_000,
              committed_offset: 10,
              committed_timestamp: 1_700_000_000_500,
              log_end_offset: 12,
              log_start_offset: 0,
              lag: 2,
            },
          ],
        },
      ],
    });
    const application = (await call('GET', '/api/v1/applications/wc')).json();
    expect(application).toEqual({
      id: 'wc',
      instances: [
        {
          id: 'wc',
          endpoint: { address: 'localhost', port: 8080 },
          isLocal: true,
          metadata: { stores: ['counts'], assignments: [{ name: 'lines', partitions: [0, 2] }], standbyStateStores: [], standbyAssignments: [] },
        },
        {
          id: null,
          endpoint: { address: 'other', port: 8080 },
          isLocal: false,
          metadata: { stores: ['counts'], assignments: [{ name: 'lines', partitions: [1] }], standbyStateStores: [], standbyAssignments: [] },
        },
      ],
    });
    expect((await call('GET', `${I}/metadata`)).json()).toEqual((application as { instances: unknown[] }).instances[0]);
    expect((await call('GET', `${I}/stores`)).json()).toEqual([
      expect.objectContaining({
        store: 'counts',
        changelog: 'wc-counts-changelog',
        current_offset: 5,
        last_restoration: expect.objectContaining({ total_restored: 5, duration_ms: 12 }),
      }),
    ]);
  });
});

describe('config', () => {
  it('sorts keys and hides secrets', async () => {
    const response = await call('GET', `${I}/config`);
    const body = response.json() as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(Object.keys(body).sort());
    expect(body['producer.ssl.key.password']).toBe('[hidden]');
    expect(body['consumer.sasl.jaas.config']).toBe('[hidden]');
    expect(body['bootstrap.servers']).toBe('localhost:9092');
    expect(body['num.stream.threads']).toBe(1);
    expect(body['stats.enable']).toBe(false);
    expect(body['consumer.ssl.keystore.key']).toBe('[hidden]');
    expect(response.body).not.toMatch(/secret-1|secret-2/);
    // The instance resource repeats the config, hidden the same way.
    expect((await call('GET', I)).body).not.toMatch(/secret-1|secret-2/);
  });
});

describe('metrics', () => {
  type Groups = { name: string; metrics: { name: string; value: number; tags: Record<string, string> }[] }[];
  const names = (groups: Groups) => groups.flatMap((g) => g.metrics.map((m) => `${g.name}/${m.name}`));

  it('serves numbers only, groups and metrics sorted; NaN and text metrics are left out', async () => {
    const groups = (await call('GET', `${I}/metrics`)).json() as Groups;
    expect(names(groups)).toEqual([
      'stream-metrics/alive-stream-threads',
      'stream-thread-metrics/commit-total',
      'stream-thread-metrics/process-rate',
      'stream-thread-metrics/process-total',
    ]);
  });

  it.each(['?filter_empty', '?filter_empty=true', '?filter_empty=1'])('filter_empty (%s) also drops zero', async (query) => {
    const groups = (await call('GET', `${I}/metrics${query}`)).json() as Groups;
    expect(names(groups)).not.toContain('stream-thread-metrics/commit-total');
    expect(names(groups)).toContain('stream-thread-metrics/process-rate');
  });

  it('narrows by group, and by group and name under both spellings', async () => {
    expect(names((await call('GET', `${I}/metrics/group/stream-metrics`)).json() as Groups)).toEqual(['stream-metrics/alive-stream-threads']);
    for (const segment of ['name', 'metric']) {
      const groups = (await call('GET', `${I}/metrics/group/stream-thread-metrics/${segment}/process-rate`)).json() as Groups;
      expect(groups).toEqual([
        {
          name: 'stream-thread-metrics',
          metrics: [{ name: 'process-rate', description: 'Records per second', tags: { 'thread-id': 'wc-StreamThread-1' }, value: 501.46875 }],
        },
      ]);
    }
  });

  it('is a 404 when a narrowing matches nothing', async () => {
    await expectError('GET', `${I}/metrics/group/nope`, 404, 'UnknownMetric');
    await expectError('GET', `${I}/metrics/group/stream-metrics/name/nope`, 404, 'UnknownMetric');
    await expectError('GET', `${I}/metrics/group/stream-metrics/name/nope/value`, 404, 'UnknownMetric');
  });

  it.each([
    ['stream-thread-metrics', 'process-rate', '501.46875'],
    ['stream-thread-metrics', 'commit-total', '0'],
    ['stream-thread-metrics', 'poll-latency-avg', 'NaN'],
    ['stream-metrics', 'version', '0.1.0'],
  ])('/value of %s %s is the text %s', async (group, name, text) => {
    for (const segment of ['name', 'metric']) {
      const response = await call('GET', `${I}/metrics/group/${group}/${segment}/${name}/value`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toBe(text);
    }
  });

  it('format=prometheus is strict text exposition, narrowed like the JSON', async () => {
    const response = await call('GET', `${I}/metrics?format=prometheus`);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusStrictly(response.body);
    expect(families.get('streams_process_total')).toEqual({
      help: 'Records processed',
      type: 'counter',
      samples: [{ name: 'streams_process_total', labels: { group: 'stream-thread-metrics', application_id: 'wc', thread_id: 'wc-StreamThread-1' }, value: 42 }],
    });
    expect(families.get('streams_version_info')?.samples[0]?.labels.value).toBe('0.1.0');
    expect(families.get('streams_poll_latency_avg')?.samples[0]?.value).toBeNaN();
    const narrowed = parsePrometheusStrictly((await call('GET', `${I}/metrics/group/stream-metrics?format=prometheus`)).body);
    expect([...narrowed.keys()].sort()).toEqual(['streams_alive_stream_threads', 'streams_version_info']);
    const filtered = parsePrometheusStrictly((await call('GET', `${I}/metrics?format=prometheus&filter_empty`)).body);
    expect(filtered.has('streams_commit_total')).toBe(false);
    expect(filtered.has('streams_poll_latency_avg')).toBe(false);
  });

  it('refuses an unknown format', async () => {
    await expectError('GET', `${I}/metrics?format=xml`, 400, 'InvalidRequest');
  });

  it('/prometheus has Node process metrics and every running instance, strictly parseable', async () => {
    registry.instances.set('other', new FakeInstance('other'));
    const response = await call('GET', '/prometheus');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusStrictly(response.body);
    expect(families.has('process_cpu_user_seconds_total')).toBe(true);
    expect(families.has('nodejs_heap_size_used_bytes')).toBe(true);
    const apps = families.get('streams_process_total')!.samples.map((s) => s.labels.application_id);
    expect(apps.sort()).toEqual(['other', 'wc']);
  });
});

describe('errors', () => {
  it('unknown route: 404 RouteNotFound', async () => {
    await expectError('GET', '/api/v1/nothing', 404, 'RouteNotFound');
    await expectError('GET', '/api/v2/streams', 404, 'RouteNotFound');
  });

  it('wrong method on a known path: 405 with Allow', async () => {
    const response = await expectError('PUT', `${I}/stop`, 405, 'MethodNotAllowed');
    expect(response.headers.allow).toBe('DELETE, POST');
    expect((await expectError('PATCH', '/api/v1/streams', 405, 'MethodNotAllowed')).headers.allow).toBe('GET, HEAD, POST');
    expect((await expectError('POST', '/health', 405, 'MethodNotAllowed')).headers.allow).toBe('GET, HEAD');
    expect((await expectError('DELETE', `${I}/metrics/group/g/metric/n`, 405, 'MethodNotAllowed')).headers.allow).toBe('GET, HEAD');
  });

  it('malformed JSON: 400 MalformedJson, whatever the content type', async () => {
    await expectError('DELETE', `${I}/stop`, 400, 'MalformedJson', '{"cleanup": tru');
    const response = await app.inject({ method: 'POST', url: '/api/v1/streams', payload: '{', headers: { 'content-type': 'text/plain' } });
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).exception).toBe('MalformedJson');
  });

  it('wrong types and unknown keys: 400 InvalidRequest naming the field', async () => {
    const wrongType = await expectError('DELETE', `${I}/stop`, 400, 'InvalidRequest', { cleanup: 'yes' });
    expect(wrongType.json()).toEqual(expect.objectContaining({ message: 'body/cleanup must be boolean' }));
    await expectError('DELETE', `${I}/stop`, 400, 'InvalidRequest', { clean: true });
    await expectError('GET', `${I}/offsets/history?range=7d`, 400, 'InvalidRequest');
    await expectError('GET', `${I}/offsets/history?since=0`, 400, 'InvalidRequest');
    await expectError('POST', '/api/v1/streams', 400, 'InvalidRequest', { version: 'latest' });
    await expectError('POST', '/api/v1/streams', 400, 'InvalidRequest', { type: 'word-count', config: { 'num.stream.threads': [1] } });
    await expectError('POST', '/api/v1/applications/wc/stores/counts', 400, 'InvalidRequest', { type: 7, query: { all: {} } });
  });

  it('a fault is a 500 whose body repeats the correlation id of the log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    await start({ logger: pino({ level: 'error' }, sink) });
    registry.topologies = () => {
      throw new TypeError('cannot read properties of undefined');
    };
    const response = await expectError('GET', '/api/v1/topologies', 500, 'InternalError');
    const id = /correlation id (\S+)$/.exec((response.json() as { message: string }).message)?.[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body).not.toContain('cannot read properties');
    const logged = lines.map((line) => JSON.parse(line) as { correlationId?: string; err?: { message: string } });
    expect(logged).toContainEqual(expect.objectContaining({ correlationId: id, err: expect.objectContaining({ message: 'cannot read properties of undefined' }) }));
  });

  it('a body that is too large: 413', async () => {
    await start({ bodyLimit: 100 });
    await expectError('POST', '/api/v1/streams', 413, 'PayloadTooLarge', { type: 'x'.repeat(200) });
  });
});

describe('lifecycle routes', () => {
  it('restart answers the id and the state at that moment', async () => {
    const response = await call('POST', `${I}/restart`);
    expect(response.status).toBe(200);
    expectMatchesSchema(streamSchemas.action, response.json());
    expect(response.json()).toEqual({ id: 'wc', state: 'PENDING_SHUTDOWN' });
  });

  it('stop: DELETE or POST, cleanup and leaveGroup optional and false by default, an empty body counts as {}', async () => {
    expect((await call('DELETE', `${I}/stop`)).json()).toEqual({ id: 'wc', state: 'STOPPED' });
    expect((await call('POST', `${I}/stop`, { cleanup: true })).json()).toEqual({ id: 'wc', state: 'STOPPED' });
    expect((await call('DELETE', `${I}/stop`, '', { 'content-type': 'application/json' })).status).toBe(200);
    expect((await call('POST', `${I}/stop`, { leaveGroup: true })).status).toBe(200);
    expect(registry.stops.map((s) => s.options)).toEqual([
      { cleanup: false, leaveGroup: false },
      { cleanup: true, leaveGroup: false },
      { cleanup: false, leaveGroup: false },
      { cleanup: false, leaveGroup: true },
    ]);
  });

  it('restart and stop of an unknown instance: 404', async () => {
    await expectError('POST', '/api/v1/streams/nope/restart', 404, 'UnknownApplication');
    await expectError('DELETE', '/api/v1/streams/nope/stop', 404, 'UnknownApplication');
    await expectError('DELETE', '/api/v1/streams/nope', 404, 'UnknownApplication');
  });

  it('deploy answers 201 with the id; unknown topology 404, existing id 409', async () => {
    const response = await call('POST', '/api/v1/streams', { type: 'word-count', name: 'wc-2' });
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({ id: 'wc-2' });
    expect((await call('GET', '/api/v1/streams')).json()).toEqual(['wc', 'wc-2']);
    await expectError('POST', '/api/v1/streams', 404, 'UnknownTopology', { type: 'nope' });
    await expectError('POST', '/api/v1/streams', 409, 'ApplicationExists', { type: 'word-count', config: { 'application.id': 'wc' } });
  });

  it('DELETE of an instance forgets it', async () => {
    expect((await call('DELETE', I)).json()).toEqual({ id: 'wc', state: 'STOPPED' });
    expect((await call('GET', '/api/v1/streams')).json()).toEqual([]);
  });
});

describe('store queries', () => {
  const query = { type: 'key_value', query: { get: { key: 'kafka' } } };

  it('hands the body to the query engine and answers its result', async () => {
    const response = await call('POST', '/api/v1/applications/wc/stores/counts', query);
    expect(response.status).toBe(200);
    expectMatchesSchema(applicationSchemas.storeQueryResult, response.json());
    expect(queries.calls).toEqual([{ applicationId: 'wc', store: 'counts', body: query }]);
    const records = await call('POST', '/api/v1/applications/wc/stores/counts/records', query);
    expectMatchesSchema(applicationSchemas.storeRecords, records.json());
    expect(records.json()).toEqual([{ key: 'kafka', value: 3 }]);
  });

  it('unknown application 404; stopped instance 503', async () => {
    await expectError('POST', '/api/v1/applications/nope/stores/counts', 404, 'UnknownApplication', query);
    registry.get('wc')!.moveTo('STOPPED');
    await expectError('POST', '/api/v1/applications/wc/stores/counts', 503, 'NoLocalInstance', query);
  });
});

describe('health', () => {
  it('is UP and 200 while running, 503 DOWN with an instance in ERROR', async () => {
    const up = await call('GET', '/health');
    expect(up.status).toBe(200);
    expect(up.json()).toEqual({
      status: 'UP',
      details: { applications: { name: 'applications', status: 'UP', details: { wc: { status: 'UP', details: { state: 'RUNNING' } } } } },
    });
    registry.get('wc')!.moveTo('ERROR');
    const down = await call('GET', '/health');
    expect(down.status).toBe(503);
    expectMatchesSchema(healthSchemas.healthReport, down.json());
    expect((down.json() as { status: string }).status).toBe('DOWN');
    expect((await call('GET', '/health/liveness')).status).toBe(503);
  });

  it('readiness waits for RUNNING since the last start; liveness stays up', async () => {
    const instance = registry.get('wc')!;
    instance.reachedRunning = false;
    instance.moveTo('REBALANCING');
    expect((await call('GET', '/health/readiness')).status).toBe(503);
    expect((await call('GET', '/health/liveness')).json()).toEqual({ status: 'UP' });
    instance.reachedRunning = true;
    expect((await call('GET', '/health/readiness')).json()).toEqual({ status: 'UP' });
  });
});

describe('access', () => {
  it('headless: changing routes are 403, reading ones answer', async () => {
    await start({ access: { headless: true } });
    await expectError('POST', `${I}/restart`, 403, 'Forbidden');
    await expectError('DELETE', `${I}/stop`, 403, 'Forbidden');
    await expectError('POST', '/api/v1/streams', 403, 'Forbidden', { type: 'word-count' });
    expect((await call('GET', I)).status).toBe(200);
  });

  it('with users: 401 without or with wrong credentials, probes stay open', async () => {
    await start({ access: { users: { admin: { password: await hashPassword('s3cret', { N: 1024, r: 8, p: 1 }), role: 'operator' } } } });
    const missing = await expectError('GET', '/api/v1/streams', 401, 'Unauthorized');
    expect(missing.headers['www-authenticate']).toContain('Basic');
    const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });
    expect((await call('GET', '/api/v1/streams', undefined, basic('admin:wrong'))).status).toBe(401);
    expect((await call('GET', '/api/v1/streams', undefined, basic('admin:s3cret'))).status).toBe(200);
    expect((await call('GET', '/health')).status).toBe(200);
    expect((await call('GET', '/health/readiness')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('lists every route with its responses, from the same schemas', async () => {
    const document = (await call('GET', '/openapi.json')).json() as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const P = '/api/v1/streams/{applicationId}';
    for (const expected of [
      'GET /api/v1/streams',
      'POST /api/v1/streams',
      `GET ${P}`,
      `DELETE ${P}`,
      `GET ${P}/status`,
      `GET ${P}/config`,
      `GET ${P}/offsets`,
      `GET ${P}/offsets/history`,
      `GET ${P}/timeline`,
      `GET ${P}/metrics`,
      `GET ${P}/metrics/group/{group}`,
      `GET ${P}/metrics/group/{group}/name/{name}`,
      `GET ${P}/metrics/group/{group}/metric/{name}`,
      `GET ${P}/metrics/group/{group}/name/{name}/value`,
      `GET ${P}/metrics/group/{group}/metric/{name}/value`,
      `POST ${P}/restart`,
      `DELETE ${P}/stop`,
      `POST ${P}/stop`,
      `GET ${P}/subscribe/{eventType}`,
      `GET ${P}/subscriptions`,
      `GET ${P}/topology`,
      `GET ${P}/stores`,
      `GET ${P}/metadata`,
      'GET /api/v1/applications',
      'GET /api/v1/applications/{applicationId}',
      'GET /api/v1/applications/{applicationId}/topology',
      'POST /api/v1/applications/{applicationId}/stores/{name}',
      'POST /api/v1/applications/{applicationId}/stores/{name}/records',
      'GET /api/v1/topologies',
      'GET /health',
      'GET /health/liveness',
      'GET /health/readiness',
      'GET /prometheus',
      'GET /openapi.json',
    ]) {
      expect(operations).toContain(expected);
    }
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect([path, method, Object.keys(operation.responses).length > 0]).toEqual([path, method, true]);
      }
    }
    expect(document.paths[`${P}/stop`]!.delete!.responses['4XX'] ?? document.paths[`${P}/stop`]!.delete!.responses['4xx']).toBeDefined();
  });
});
