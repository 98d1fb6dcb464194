/**
 * A restart or a stop closes the runtime on purpose, whatever it is doing: one that is still starting (here, against
 * a broker that does not answer, as during a broker outage or a slow start) is cut short without an error in the
 * log and without an error shown on the instance.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { StreamsBuilder } from '../streams/kstream/streams-builder';
import { SluiceHost } from './host';
import { streamsInstanceFactory } from './instances/runtime';
import { testServerConfig } from './testing/server-config';

const copy = {
  name: 'io.sluice.test.Copy',
  version: '1',
  aliases: ['copy'],
  build: () => {
    const builder = new StreamsBuilder();
    builder.stream('in').to('out');
    return builder.build();
  },
};

it('restart and stop while the instance is starting log no error and leave no exception', async () => {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk)) as { level: number; msg: string }), done()) });
  const logger = pino({ level: 'debug' }, sink);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-restart-'));
  const host = await SluiceHost.start({
    config: {
      server: testServerConfig(),
      log: { level: 'debug' },
      // Nothing listens on port 1: the start keeps trying to reach the broker.
      streams: { 'bootstrap.servers': '127.0.0.1:1', 'state.dir': stateDir },
      topologies: [],
      instances: [{ topology: 'copy' }],
      shutdownTimeoutMs: 5000,
    },
    topologies: [copy],
    logger,
    createRuntime: streamsInstanceFactory(logger.child({ component: 'streams' })),
  });
  try {
    const state = async () => ((await (await request(`${host.url}/api/v1/streams/copy`)).body.json()) as { state: { state: string } }).state.state;
    expect(await state()).toBe('REBALANCING');
    expect((await request(`${host.url}/api/v1/streams/copy/restart`, { method: 'POST' })).statusCode).toBe(200);
    const stopped = await request(`${host.url}/api/v1/streams/copy/stop`, { method: 'POST' });
    expect(await stopped.body.json()).toEqual({ id: 'copy', state: 'STOPPED' });
    const instance = (await (await request(`${host.url}/api/v1/streams/copy`)).body.json()) as Record<string, unknown>;
    expect(instance.exception).toBeUndefined();
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.msg === 'state transition').length).toBeGreaterThan(0);
  } finally {
    await host.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
