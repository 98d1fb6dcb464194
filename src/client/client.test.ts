/**
 * The client against the real fastify application (in-memory instances, a loopback port): what it sends, what it
 * answers, its exceptions carrying the error body, events as async iterators; and the inputs it refuses before
 * sending anything.
 */

import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../server/app';
import { FakeQueries, FakeRegistry } from '../server/testing/fake-instances';
import { InvalidClientRequest, ServerUnreachable } from '../errors';
import { SluiceApiError, SluiceClient, type SluiceEvent } from './index';

let app: FastifyInstance;
let registry: FakeRegistry;
let queries: FakeQueries;
let url: string;
let client: SluiceClient;

beforeAll(async () => {
  registry = new FakeRegistry('wc');
  queries = new FakeQueries();
  app = await buildServer({
    instances: registry,
    queries,
    access: { users: { alice: { password: 'alice-secret', role: 'operator' } }, allowPlaintextPasswords: true },
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  client = new SluiceClient({ url, username: 'alice', password: 'alice-secret' });
});

afterAll(async () => {
  await client.close();
  await app.close();
});

async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('against a node', () => {
  it('answers a key-value get with its value, having sent the contract body', async () => {
    const result = await client.store('wc', 'counts').keyValue<string, number>().get('kafka');
    expect(result.value).toBe(3);
    expect(result.records).toEqual([{ key: 'kafka', value: 3 }]);
    expect(result.status).toBe('SUCCESS');
    expect(result.complete).toBe(true);
    expect(queries.calls.at(-1)).toEqual({ applicationId: 'wc', store: 'counts', body: { type: 'key_value', query: { get: { key: 'kafka' } } } });
  });

  it('sends every clause with its parameters, times as epoch ms and the options as set_options', async () => {
    const store = client.store('wc', 'windows', { limit: 5, remoteAccessAllowed: false });
    await store.window<string, number>().fetch('k', new Date(1000));
    expect(queries.calls.at(-1)?.body).toEqual({ type: 'window', set_options: { limit: 5, remote_access_allowed: false }, query: { fetch: { key: 'k', time: 1000 } } });
    await store.withOptions({ retries: 2 }).timestampedWindow().fetchKeyRange('a', 'z', 0, 60_000);
    expect(queries.calls.at(-1)?.body).toEqual({
      type: 'timestamped_window',
      set_options: { limit: 5, remote_access_allowed: false, retries: 2 },
      query: { fetch_key_range: { key_from: 'a', key_to: 'z', time_from: 0, time_to: 60_000 } },
    });
    await client.store('wc', 's').session().fetchKeyRange('a', 'b');
    expect(queries.calls.at(-1)?.body).toEqual({ type: 'session', query: { fetch_key_range: { key_from: 'a', key_to: 'b' } } });
    await client.store('wc', 'c').timestampedKeyValue().prefixScan('ka');
    expect(queries.calls.at(-1)?.body).toEqual({ type: 'timestamped_key_value', query: { prefix_scan: { prefix: 'ka' } } });
  });

  it('answers the node resources', async () => {
    expect(await client.instances()).toEqual(['wc']);
    expect((await client.instance('wc')).state.state).toBe('RUNNING');
    expect((await client.status('wc')).threads.map((t) => t.name)).toEqual(['wc-StreamThread-1']);
    expect((await client.topology('wc')).subTopologies[0]?.nodes.map((n) => n.type)).toEqual(['SOURCE', 'PROCESSOR', 'SINK']);
    expect((await client.health()).details.applications.details.wc?.status).toBe('UP');
    expect(await client.topologies()).toEqual([expect.objectContaining({ name: 'io.sluice.examples.WordCount', aliases: ['word-count', 'WordCount'] })]);
    const timeline = await client.timeline('wc');
    expect(timeline.entries.map((e) => [e.type, e.process_id])).toEqual([
      ['rebalance', 'p1'],
      ['restore', 'p1'],
    ]);
  });

  it('throws the error body as a SluiceApiError of the catalogue', async () => {
    const error = (await refusal(() => client.instance('nope'))) as SluiceApiError;
    expect(error).toBeInstanceOf(SluiceApiError);
    expect(error.is('UnknownApplication')).toBe(true);
    expect([error.status, error.code]).toEqual([404, 'SLUICE_UNKNOWN_APPLICATION']);
    expect(error.body).toEqual({ error_code: 404, exception: 'UnknownApplication', message: "No application 'nope' in this process", path: '/api/v1/streams/nope' });
  });

  it('a wrong password is a 401 whose message names no credential', async () => {
    const wrong = new SluiceClient({ url, username: 'alice', password: 'not-her-password' });
    const error = (await refusal(() => wrong.instances())) as SluiceApiError;
    await wrong.close();
    expect([error.status, error.exception]).toEqual([401, 'Unauthorized']);
    expect(`${error.message} ${inspect(error)}`).not.toContain('not-her-password');
  });

  it('streams events: the current state first, then each transition, until closed', async () => {
    const subscription = client.events('wc', 'state');
    const seen: SluiceEvent[] = [];
    for await (const event of subscription) {
      seen.push(event);
      if (seen.length === 1) registry.get('wc')!.moveTo('REBALANCING');
      if (seen.length === 2) subscription.close();
    }
    expect(seen.map((e) => [e.type, (e.data as { state: string }).state])).toEqual([
      ['state', 'RUNNING'],
      ['state', 'REBALANCING'],
    ]);
    registry.get('wc')!.moveTo('RUNNING');
  });

  it('an unknown event type throws its 404 at the first iteration; an aborted signal ends the stream', async () => {
    const error = (await refusal(async () => {
      for await (const event of client.events('wc', 'nope')) expect(event).toBeUndefined();
    })) as SluiceApiError;
    expect([error.status, error.exception]).toEqual([404, 'UnknownEventType']);
    const controller = new AbortController();
    const states: string[] = [];
    for await (const event of client.events('wc', 'state', { signal: controller.signal })) {
      states.push((event.data as { state: string }).state);
      controller.abort();
    }
    expect(states).toEqual(['RUNNING']);
  });

  it('a subscription that ends leaves no listener on the caller\'s signal, which outlives it', async () => {
    const controller = new AbortController();
    // Ended by breaking out, by close() before and during the iteration, and by a 404 at the first iteration.
    for (let i = 0; i < 3; i++) {
      for await (const event of client.events('wc', 'state', { signal: controller.signal })) if (event.type === 'state') break;
    }
    client.events('wc', 'state', { signal: controller.signal }).close();
    const closing = client.events('wc', 'state', { signal: controller.signal });
    for await (const event of closing) if (event.type === 'state') closing.close();
    await refusal(async () => {
      for await (const event of client.events('wc', 'nope', { signal: controller.signal })) expect(event).toBeUndefined();
    });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops with cleanup and restarts', async () => {
    expect(await client.stop('wc', { cleanup: true })).toEqual({ id: 'wc', state: 'STOPPED' });
    expect((await client.restart('wc')).id).toBe('wc');
  });

  it('stops leaving the group', async () => {
    await client.stop('wc', { leaveGroup: true });
    expect(registry.stops.at(-1)!.options).toEqual({ cleanup: false, leaveGroup: true });
  });

  it('a node that does not answer is ServerUnreachable', async () => {
    const nowhere = new SluiceClient({ url: 'http://127.0.0.1:1' });
    const error = await refusal(() => nowhere.health());
    await nowhere.close();
    expect(error).toBeInstanceOf(ServerUnreachable);
  });
});

describe('refused before sending', () => {
  // Nothing listens there: a request sent would be ServerUnreachable, not InvalidClientRequest.
  const offline = new SluiceClient({ url: 'http://127.0.0.1:1', token: 'sluice_secret-token' });
  afterAll(() => offline.close());

  it.each([
    ['a URL that is not one', { url: 'localhost 8080' }],
    ['another scheme', { url: 'ftp://localhost' }],
    ['credentials in the URL', { url: 'http://alice:pw@localhost:8080' }],
    ['a token and a user', { url: 'http://localhost', token: 't', username: 'alice', password: 'pw' }],
    ['a user without a password', { url: 'http://localhost', username: 'alice' }],
    ['TLS options on http', { url: 'http://localhost', tls: { rejectUnauthorized: false } }],
  ])('%s', (_what, options) => {
    expect(() => new SluiceClient(options)).toThrow(InvalidClientRequest);
  });

  it.each<[string, () => unknown]>([
    ['an invalid application id', () => offline.instance('../etc')],
    ['an empty store name', () => offline.store('wc', '')],
    ['an unknown clause', () => offline.store('wc', 'c').query('key_value', 'fetch', { key: 'k', time: 1 })],
    ['an unknown type', () => offline.store('wc', 'c').query('table', 'get', { key: 'k' })],
    ['a missing parameter', () => offline.store('wc', 'c').query('key_value', 'range', { key_from: 'a' })],
    ['an extra parameter', () => offline.store('wc', 'c').query('key_value', 'get', { key: 'a', time: 1 })],
    ['an undefined key', () => offline.store('wc', 'c').keyValue<string | undefined, number>().get(undefined)],
    ['a time that is no integer', () => offline.store('wc', 'w').window().fetch('k', 1.5)],
    ['an invalid Date', () => offline.store('wc', 'w').window().fetch('k', new Date('nope'))],
    ['time_to before time_from', () => offline.store('wc', 'w').window().fetchAll(2000, 1000)],
    ['a negative retries option', () => offline.store('wc', 'c', { retries: -1 })],
    ['a zero timeout', () => offline.store('wc', 'c').withOptions({ queryTimeoutMs: 0 })],
    ['an unknown option', () => offline.store('wc', 'c', { retry: 1 } as object)],
  ])('%s', async (_what, run) => {
    expect(await refusal(run)).toBeInstanceOf(InvalidClientRequest);
  });

  it('keeps its credentials out of what a logger would print', () => {
    const basic = new SluiceClient({ url: 'http://localhost:8080', username: 'alice', password: 'alice-secret' });
    for (const shown of [inspect(offline, { showHidden: true, depth: 5 }), JSON.stringify(offline), inspect(basic, { showHidden: true, depth: 5 }), JSON.stringify(basic)]) {
      expect(shown).not.toMatch(/sluice_secret-token|alice-secret|YWxpY2U6YWxpY2Utc2VjcmV0/);
    }
    void basic.close();
  });
});
