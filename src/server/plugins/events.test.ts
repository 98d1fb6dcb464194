import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { buildServer } from '../app';
import { FakeQueries, FakeRegistry, TIMELINE } from '../testing/fake-instances';

let registry: FakeRegistry;
let app: FastifyInstance;
let base: string;

beforeEach(async () => {
  registry = new FakeRegistry('wc');
  app = await buildServer({ instances: registry, queries: new FakeQueries(), events: { keepaliveMs: 100, queueSize: 5, lingerMs: 200 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(() => app.close());

interface Frame {
  event: string;
  id: string;
  data: unknown;
}

/** Opens an event stream over real HTTP and collects its frames (and comments) as they arrive. */
async function subscribe(path: string, headers: Record<string, string> = {}) {
  const response = await request(`${base}${path}`, { headers });
  const frames: Frame[] = [];
  let comments = 0;
  let buffer = '';
  response.body.setEncoding('utf8');
  response.body.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith(':')) {
        comments += 1;
        continue;
      }
      const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      frames.push({ event: fields.event!, id: fields.id!, data: JSON.parse(fields.data!) as unknown });
    }
  });
  const until = async (condition: () => boolean) => {
    const deadline = Date.now() + 5000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not reached; frames: ${JSON.stringify(frames)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { response, frames, comments: () => comments, until, close: () => response.body.destroy() };
}

it('state: the current state first, then every transition; the stream stays open across stop and restart', async () => {
  const stream = await subscribe('/api/v1/streams/wc/subscribe/state');
  expect(stream.response.statusCode).toBe(200);
  expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  expect(stream.response.headers['cache-control']).toBe('no-cache');
  await stream.until(() => stream.frames.length === 1);
  expect(stream.frames[0]).toEqual({
    event: 'state',
    id: '1',
    data: { state: 'RUNNING', previous: 'REBALANCING', since: '2026-11-22T01:30:00.123Z[UTC]' },
  });
  const instance = registry.get('wc')!;
  instance.moveTo('PENDING_SHUTDOWN', Date.UTC(2026, 10, 22, 2, 0, 0, 0));
  instance.moveTo('NOT_RUNNING', Date.UTC(2026, 10, 22, 2, 0, 1, 0));
  instance.moveTo('STOPPED', Date.UTC(2026, 10, 22, 2, 0, 1, 5));
  instance.moveTo('CREATED', Date.UTC(2026, 10, 22, 2, 0, 2, 0));
  await stream.until(() => stream.frames.length === 5);
  expect(stream.frames.slice(1).map((f) => [f.id, f.data])).toEqual([
    ['2', { state: 'PENDING_SHUTDOWN', previous: 'RUNNING', since: '2026-11-22T02:00:00.000Z[UTC]' }],
    ['3', { state: 'NOT_RUNNING', previous: 'PENDING_SHUTDOWN', since: '2026-11-22T02:00:01.000Z[UTC]' }],
    ['4', { state: 'STOPPED', previous: 'NOT_RUNNING', since: '2026-11-22T02:00:01.005Z[UTC]' }],
    ['5', { state: 'CREATED', previous: 'STOPPED', since: '2026-11-22T02:00:02.000Z[UTC]' }],
  ]);
  stream.close();
});

it('rebalance and restore events in the documented shapes', async () => {
  const rebalance = await subscribe('/api/v1/streams/wc/subscribe/rebalance');
  const restore = await subscribe('/api/v1/streams/wc/subscribe/restore');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const instance = registry.get('wc')!;
  instance.emit('rebalance', { generation: 3, activeTasks: ['0_0', '0_1'], standbyTasks: [] });
  instance.emit('restore', { store: 'counts', taskId: '0_1', topic: 'wc-counts-changelog', partition: 1, startOffset: 0, endOffset: 20, startedAt: 0, restored: 10, total: 20, remaining: 10, done: false });
  await rebalance.until(() => rebalance.frames.length === 1);
  await restore.until(() => restore.frames.length === 1);
  expect(rebalance.frames[0]).toEqual({ event: 'rebalance', id: '1', data: { generation: 3, active_tasks: ['0_0', '0_1'], standby_tasks: [] } });
  expect(restore.frames[0]).toEqual({
    event: 'restore',
    id: '1',
    data: { store: 'counts', topic: 'wc-counts-changelog', partition: 1, restored: 10, total: 20, remaining: 10, done: false },
  });
  rebalance.close();
  restore.close();
});

it('timeline: each entry as it is added or updated, as the timeline route writes it', async () => {
  const stream = await subscribe('/api/v1/streams/wc/subscribe/timeline');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const instance = registry.get('wc')!;
  for (const entry of TIMELINE) instance.emit('timeline', entry);
  await stream.until(() => stream.frames.length === 2);
  expect(stream.frames.map((f) => [f.event, f.id])).toEqual([
    ['timeline', '1'],
    ['timeline', '2'],
  ]);
  expect(stream.frames[0]!.data).toEqual(expect.objectContaining({ id: 1, type: 'rebalance', process_id: 'p1', started_at: '2023-11-14T22:13:20.000Z[UTC]', generation: 4 }));
  expect(stream.frames[1]!.data).toEqual(expect.objectContaining({ id: 2, type: 'restore', task_id: '0_1', restored: 40, estimated_remaining_ms: 3000, ended_at: null }));
  stream.close();
});

it('metrics: the metrics array at once and every metrics.sse.interval.ms; keepalive comments between', async () => {
  const stream = await subscribe('/api/v1/streams/wc/subscribe/metrics');
  await stream.until(() => stream.frames.length >= 3 && stream.comments() >= 1);
  expect(stream.frames[0]!.event).toBe('metrics');
  expect(stream.frames[0]!.data).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'stream-thread-metrics' })]));
  stream.close();
});

it('a client that comes back with Last-Event-ID gets what it missed, and nothing twice; another log\'s id starts afresh', async () => {
  const instance = registry.get('wc')!;
  const first = await subscribe('/api/v1/streams/wc/subscribe/state');
  await first.until(() => first.frames.length === 1);
  const log = first.response.headers['sluice-event-log'] as string;
  instance.moveTo('PENDING_SHUTDOWN', Date.UTC(2026, 10, 22, 2, 0, 0, 0));
  await first.until(() => first.frames.length === 2);
  first.close();
  instance.moveTo('NOT_RUNNING', Date.UTC(2026, 10, 22, 2, 0, 1, 0));
  const back = await subscribe('/api/v1/streams/wc/subscribe/state', { 'last-event-id': first.frames[1]!.id, 'sluice-event-log': log });
  expect(back.response.headers['sluice-event-log']).toBe(log);
  instance.moveTo('STOPPED', Date.UTC(2026, 10, 22, 2, 0, 1, 5));
  await back.until(() => back.frames.length === 2);
  expect(back.frames.map((f) => [f.id, (f.data as { state: string }).state])).toEqual([
    ['3', 'NOT_RUNNING'],
    ['4', 'STOPPED'],
  ]);
  const elsewhere = await subscribe('/api/v1/streams/wc/subscribe/state', { 'last-event-id': '2', 'sluice-event-log': 'an-earlier-process' });
  await elsewhere.until(() => elsewhere.frames.length === 1);
  expect([elsewhere.frames[0]!.id, (elsewhere.frames[0]!.data as { state: string }).state]).toEqual(['4', 'STOPPED']);
  back.close();
  elsewhere.close();
});

it('past the replay buffer, a returning client is told how many events it lost', async () => {
  await app.close();
  app = await buildServer({ instances: registry, queries: new FakeQueries(), events: { keepaliveMs: 100, queueSize: 50, replaySize: 2, lingerMs: 1000 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const instance = registry.get('wc')!;
  const first = await subscribe('/api/v1/streams/wc/subscribe/rebalance');
  const log = first.response.headers['sluice-event-log'] as string;
  instance.emit('rebalance', { generation: 1, activeTasks: [], standbyTasks: [] });
  await first.until(() => first.frames.length === 1);
  first.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const generation of [2, 3, 4, 5]) instance.emit('rebalance', { generation, activeTasks: [], standbyTasks: [] });
  const back = await subscribe('/api/v1/streams/wc/subscribe/rebalance', { 'last-event-id': '1', 'sluice-event-log': log });
  await back.until(() => back.frames.length === 3);
  expect(back.frames.map((f) => [f.event, f.id, f.data])).toEqual([
    ['dropped', '3', { dropped: 2 }],
    ['rebalance', '4', { generation: 4, active_tasks: [], standby_tasks: [] }],
    ['rebalance', '5', { generation: 5, active_tasks: [], standby_tasks: [] }],
  ]);
  back.close();
});

it('a subscriber that disconnects is removed at once, and the log lets go of the instance after its linger', async () => {
  const instance = registry.get('wc')!;
  const stream = await subscribe('/api/v1/streams/wc/subscribe/state');
  await stream.until(() => stream.frames.length === 1);
  expect(instance.listenerCount()).toBe(1);
  stream.close();
  const deadline = Date.now() + 5000;
  while (instance.listenerCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(instance.listenerCount()).toBe(0);
});

it('unknown instance or event type: 404 with the error body before any stream starts', async () => {
  for (const [path, exception] of [
    ['/api/v1/streams/nope/subscribe/state', 'UnknownApplication'],
    ['/api/v1/streams/wc/subscribe/nope', 'UnknownEventType'],
  ]) {
    const response = await request(`${base}${path}`);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await response.body.json()).toEqual(expect.objectContaining({ exception, error_code: 404, path }));
  }
});

it('subscriptions lists the event types', async () => {
  const response = await request(`${base}/api/v1/streams/wc/subscriptions`);
  expect(await response.body.json()).toEqual(['state', 'rebalance', 'restore', 'metrics', 'thread', 'timeline', 'memory']);
});

it('closing the server ends open streams instead of waiting for them', async () => {
  const stream = await subscribe('/api/v1/streams/wc/subscribe/state');
  await stream.until(() => stream.frames.length === 1);
  const ended = new Promise((resolve) => stream.response.body.on('end', resolve));
  await app.close();
  await ended;
});

it('HEAD answers the headers alone and ends, so the connection serves the next request', async () => {
  // A raw connection: an HTTP client takes a HEAD answer as complete at its headers, whether or not it ever ended.
  const socket = net.connect((app.server.address() as AddressInfo).port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  try {
    socket.write('HEAD /api/v1/streams/wc/subscribe/state HTTP/1.1\r\nHost: sluice\r\n\r\n');
    socket.write('GET /api/v1/streams/wc/subscriptions HTTP/1.1\r\nHost: sluice\r\n\r\n');
    const deadline = Date.now() + 2000;
    while (!received.includes('"timeline"]') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const [head, next] = received.split(/(?=HTTP\/1\.1 )/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain('content-type: text/event-stream; charset=utf-8');
    expect(head).toMatch(/\r\n\r\n$/);
    expect(next).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\["state","rebalance","restore","metrics","thread","timeline","memory"\]$/);
    // Nobody is left subscribed.
    expect(registry.get('wc')!.listenerCount()).toBe(0);
  } finally {
    socket.destroy();
  }
});
