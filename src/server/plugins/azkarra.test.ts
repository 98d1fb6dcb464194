/** Azkarra's routes beside the contract: their shapes, the one environment, and POST bodies checked. */
import type { FastifyInstance } from 'fastify';
import { buildServer, type ServerOptions } from '../app';
import * as schemas from '../schemas/azkarra';
import { errorBody } from '../schemas/common';
import { FakeQueries, FakeRegistry } from '../testing/fake-instances';
import { expectMatchesSchema } from '../testing/schema-check';

let app: FastifyInstance;
const node = { streamsConfig: () => ({ 'bootstrap.servers': 'broker:9092', 'consumer.sasl.jaas.config': 'secret stuff' }) };

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  await app?.close();
  app = await buildServer({ instances: new FakeRegistry('wc', 'pv'), queries: new FakeQueries(), node, version: '1.2.3', ...options });
}
afterAll(() => app.close());

it('version, info, headless, context and environments in Azkarra shapes, secrets hidden', async () => {
  await start();
  const get = async (url: string, schema: object) => {
    const answer = await app.inject({ url });
    expect([url, answer.statusCode]).toEqual([url, 200]);
    expectMatchesSchema(schema, answer.json());
    return answer.json();
  };
  expect(await get('/version', schemas.version)).toEqual({ azkarraVersion: '1.2.3', sluiceVersion: '1.2.3', commitId: 'unknown', branch: 'unknown' });
  expect((await get('/info', schemas.info)).app).toEqual(expect.objectContaining({ name: 'sluice', version: '1.2.3' }));
  expect(await get('/api/v1', schemas.apiRoot)).toEqual({ headless: false });
  expect(await get('/api/v1/context', schemas.context)).toEqual({
    config: { streams: { 'bootstrap.servers': 'broker:9092', 'consumer.sasl.jaas.config': '[hidden]' } },
  });
  const [environment] = await get('/api/v1/environments', schemas.environments);
  expect(environment).toEqual({
    name: '__default',
    state: 'RUNNING',
    config: { 'bootstrap.servers': 'broker:9092', 'consumer.sasl.jaas.config': '[hidden]' },
    applications: ['wc', 'pv'],
    default: true,
  });
  const created = await app.inject({ method: 'POST', url: '/api/v1/environments', payload: { name: '__default' } });
  expect([created.statusCode, created.json()]).toEqual([200, environment]);
});

it('POST /api/v1/environments: bad bodies 400, another environment 409, headless 403, all with the error body', async () => {
  await start();
  const expectError = async (payload: string | object, status: number, exception: string) => {
    const answer = await app.inject({ method: 'POST', url: '/api/v1/environments', payload, headers: { 'content-type': 'application/json' } });
    expect([JSON.stringify(payload), answer.statusCode]).toEqual([JSON.stringify(payload), status]);
    expectMatchesSchema(errorBody, answer.json());
    expect(answer.json()).toEqual(expect.objectContaining({ exception, path: '/api/v1/environments' }));
  };
  await expectError('{"name": ', 400, 'MalformedJson');
  await expectError({}, 400, 'InvalidRequest');
  await expectError({ name: '' }, 400, 'InvalidRequest');
  await expectError({ name: 7 }, 400, 'InvalidRequest');
  await expectError({ name: 'dev', extra: true }, 400, 'InvalidRequest');
  await expectError({ name: 'dev' }, 409, 'EnvironmentNotCreatable');
  await expectError({ name: '__default', config: { 'num.stream.threads': 2 } }, 409, 'EnvironmentNotCreatable');
  await start({ access: { headless: true } });
  expect((await app.inject({ url: '/api/v1' })).json()).toEqual({ headless: true });
  await expectError({ name: '__default' }, 403, 'Forbidden');
});
