/**
 * The client cannot drift from the server: every route it calls is in the server's own `/openapi.json` with the
 * same method, path parameters, query parameters, body and media type; every answer type of the client equals the
 * JSON schema the route answers with (checked by the compiler), and that schema is the one in the OpenAPI
 * document; every contract route of the document is one the client calls, or a named alias.
 */

import type { FastifyInstance } from 'fastify';
import { clausesOf } from '../query/clauses';
import { buildServer } from '../server/app';
import * as applicationSchemas from '../server/schemas/applications';
import { errorBody } from '../server/schemas/common';
import * as healthSchemas from '../server/schemas/health';
import * as streamSchemas from '../server/schemas/streams';
import { topologies } from '../server/schemas/topologies';
import { topologyDag } from '../server/schemas/topology';
import { FakeQueries, FakeRegistry } from '../server/testing/fake-instances';
import { pathParameters, ROUTES, type JsonAnswers, type JsonBodies, type RouteName, type RouteSpec } from './routes';
import { KeyValueQueries, SessionQueries, VersionedKeyValueQueries, WindowQueries } from './store';
import type { Equal, SchemaType } from './testing/schema-type';
import type { ErrorBody } from './types';

interface Parameter {
  in: string;
  name: string;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

let app: FastifyInstance;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  app = await buildServer({ instances: new FakeRegistry('wc'), queries: new FakeQueries() });
  paths = (JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: typeof paths }).paths;
});

afterAll(() => app.close());

/** The schema each JSON route answers with, from the server's own schema modules. */
const ANSWER_SCHEMAS = {
  instances: streamSchemas.applicationIds,
  deploy: streamSchemas.deployed,
  instance: streamSchemas.instance,
  remove: streamSchemas.action,
  status: streamSchemas.status,
  config: streamSchemas.config,
  offsets: streamSchemas.offsets,
  lagHistory: streamSchemas.lagHistory,
  timeline: streamSchemas.timeline,
  metrics: streamSchemas.metricGroups,
  metricsOfGroup: streamSchemas.metricGroups,
  metricsNamed: streamSchemas.metricGroups,
  restart: streamSchemas.action,
  stop: streamSchemas.action,
  instanceTopology: topologyDag,
  stores: streamSchemas.storeStatus,
  metadata: applicationSchemas.applicationInstance,
  subscriptions: { type: 'array', items: { type: 'string' } },
  applications: streamSchemas.applicationIds,
  application: applicationSchemas.application,
  topology: topologyDag,
  query: applicationSchemas.storeQueryResult,
  queryRecords: applicationSchemas.storeRecords,
  topologies,
  health: healthSchemas.healthReport,
} as const satisfies Record<keyof JsonAnswers, object>;

type Answers = typeof ANSWER_SCHEMAS;

// The compiler's half: each `true` below compiles only if the client's type equals the schema's type.
type SameAnswer = { [N in keyof Answers]: Equal<JsonAnswers[N], SchemaType<Answers[N]>> };
const sameAnswers: SameAnswer = {
  instances: true,
  deploy: true,
  instance: true,
  remove: true,
  status: true,
  config: true,
  offsets: true,
  lagHistory: true,
  timeline: true,
  metrics: true,
  metricsOfGroup: true,
  metricsNamed: true,
  restart: true,
  stop: true,
  instanceTopology: true,
  stores: true,
  metadata: true,
  // Built-in types and the topology's own: any name.
  subscriptions: true,
  applications: true,
  application: true,
  topology: true,
  query: true,
  queryRecords: true,
  topologies: true,
  health: true,
} satisfies SameAnswer;
const subscriptionsWider: SchemaType<Answers['subscriptions']> extends JsonAnswers['subscriptions'] ? true : false = true;
const sameErrorBody: Equal<ErrorBody, SchemaType<typeof errorBody>> = true;
const sameDeployBody: Equal<JsonBodies['deploy'], SchemaType<typeof streamSchemas.deployBody>> = true;
const sameStopBody: Equal<JsonBodies['stop'], SchemaType<typeof streamSchemas.stopBody>> = true;
// The query body's schema is loose (the query engine checks the rest); what the client sends must fit it.
const queryBodyFits: JsonBodies['query'] extends SchemaType<typeof applicationSchemas.storeQueryBody> ? true : false = true;

function operation(name: RouteName): Operation {
  const spec: RouteSpec = ROUTES[name];
  const op = paths[spec.path]?.[spec.method.toLowerCase()];
  if (op === undefined) throw new Error(`${name}: ${spec.method} ${spec.path} is not in /openapi.json`);
  return op;
}

const MEDIA_TYPES = { json: 'application/json', text: 'text/plain', sse: 'text/event-stream' } as const;

describe('every route the client calls is in /openapi.json as the client calls it', () => {
  it.each(Object.keys(ROUTES) as RouteName[])('%s', (name) => {
    const spec: RouteSpec = ROUTES[name];
    const op = operation(name);
    const parameters = op.parameters ?? [];
    const names = (where: string) => parameters.filter((p) => p.in === where).map((p) => p.name).sort();
    expect(names('path')).toEqual(pathParameters(spec.path).sort());
    expect(names('query')).toEqual(expect.arrayContaining([...(spec.query ?? [])]));
    expect(op.requestBody !== undefined).toBe(spec.body === true);
    if (spec.body === true) expect(Object.keys(op.requestBody!.content)).toContain('application/json');
    const success = op.responses['200'] ?? op.responses['201'];
    expect(Object.keys(success?.content ?? {})).toContain(MEDIA_TYPES[spec.answer]);
    for (const status of spec.answeredWith ?? []) expect(op.responses[String(status)]?.content?.['application/json']?.schema).toEqual(success?.content?.['application/json']?.schema);
    expect(op.responses['4XX']?.content?.['application/json']?.schema).toEqual(errorBody);
  });

  it.each(Object.keys(ANSWER_SCHEMAS) as (keyof Answers)[])('%s answers the schema the client types are checked against', (name) => {
    const op = operation(name);
    const success = op.responses['200'] ?? op.responses['201'];
    expect(success?.content?.['application/json']?.schema).toEqual(ANSWER_SCHEMAS[name]);
  });

  it('the request bodies the client sends are the routes’ schemas', () => {
    expect(operation('deploy').requestBody?.content['application/json']?.schema).toEqual(streamSchemas.deployBody);
    expect(operation('stop').requestBody?.content['application/json']?.schema).toEqual(streamSchemas.stopBody);
    expect(operation('query').requestBody?.content['application/json']?.schema).toEqual(applicationSchemas.storeQueryBody);
    expect([sameAnswers, subscriptionsWider, sameErrorBody, sameDeployBody, sameStopBody, queryBodyFits]).toBeDefined();
  });
});

it('every contract route of the document is called by the client, or is an alias of one it calls', () => {
  const ALIASES = [
    // Azkarra's spellings of routes the client calls.
    'get /api/v1/streams/{applicationId}/metrics/group/{group}/metric/{name}',
    'get /api/v1/streams/{applicationId}/metrics/group/{group}/metric/{name}/value',
    'post /api/v1/streams/{applicationId}/stop',
    // Kubernetes probes: for the orchestrator, not for a client.
    'get /health/liveness',
    'get /health/readiness',
  ];
  const called = new Set(Object.values(ROUTES).map((spec: RouteSpec) => `${spec.method.toLowerCase()} ${spec.path}`));
  const contract = Object.entries(paths)
    .filter(([path]) => /^\/(api\/v1\/(streams|applications|topologies)|health)(\/|$)/.test(path))
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
  expect(contract.filter((route) => !called.has(route) && !ALIASES.includes(route))).toEqual([]);
});

it('each store handle has a method for every clause the server takes for its type', () => {
  expect([...KeyValueQueries.CLAUSES].sort()).toEqual(clausesOf('key_value').sort());
  expect([...KeyValueQueries.CLAUSES].sort()).toEqual(clausesOf('timestamped_key_value').sort());
  expect([...WindowQueries.CLAUSES].sort()).toEqual(clausesOf('window').sort());
  expect([...WindowQueries.CLAUSES].sort()).toEqual(clausesOf('timestamped_window').sort());
  expect([...SessionQueries.CLAUSES].sort()).toEqual(clausesOf('session').sort());
  expect([...VersionedKeyValueQueries.CLAUSES].sort()).toEqual(clausesOf('versioned_key_value').sort());
});
