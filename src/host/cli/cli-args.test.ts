/** The client commands' argument parsing, connection settings and help (their output: output.test.ts). */

import type { Command } from 'commander';
import { InvalidClientRequest } from '../../errors';
import { program } from '../cli';
import { clientOptions, DEFAULT_URL } from './connection';
import { parseOptions, parseParams } from './query-args';

describe('query arguments', () => {
  it('reads keys as JSON when they parse, else as text; times as epoch ms or ISO dates; camelCase names as snake_case', () => {
    expect(parseParams(['key=kafka'])).toEqual({ key: 'kafka' });
    expect(parseParams(['key=42'])).toEqual({ key: 42 });
    expect(parseParams(['key="42"'])).toEqual({ key: '42' });
    expect(parseParams(['key={"user":7}'])).toEqual({ key: { user: 7 } });
    expect(parseParams(['key=a=b'])).toEqual({ key: 'a=b' });
    expect(parseParams(['keyFrom=a', 'key_to=z', 'timeFrom=1000', 'time_to=1970-01-01T00:01:00Z'])).toEqual({
      key_from: 'a',
      key_to: 'z',
      time_from: 1000,
      time_to: 60_000,
    });
  });

  it('refuses what is not name=value, a name given twice, a time that is neither', () => {
    expect(() => parseParams(['kafka'])).toThrow(InvalidClientRequest);
    expect(() => parseParams(['=kafka'])).toThrow(InvalidClientRequest);
    expect(() => parseParams(['key=a', 'key=b'])).toThrow('given twice');
    expect(() => parseParams(['time=yesterday'])).toThrow('epoch milliseconds or an ISO-8601 date');
  });

  it('reads --set options by their contract names', () => {
    expect(parseOptions(['retries=3', 'retry_backoff_ms=50', 'queryTimeoutMs=2000', 'remote_access_allowed=FALSE', 'limit=10'])).toEqual({
      retries: 3,
      retryBackoffMs: 50,
      queryTimeoutMs: 2000,
      remoteAccessAllowed: false,
      limit: 10,
    });
    expect(() => parseOptions(['retries=many'])).toThrow('must be an integer');
    expect(() => parseOptions(['remote_access_allowed=maybe'])).toThrow('true or false');
    expect(() => parseOptions(['timeout=5'])).toThrow('unknown option timeout');
    expect(parseOptions(['allow_stale=true', 'max_lag=100'])).toEqual({ allowStale: true, maxLag: 100 });
    expect(() => parseOptions(['allow_stale=stale'])).toThrow('true or false');
  });
});

describe('connection', () => {
  const never = () => Promise.reject(new Error('no prompt expected'));

  it('takes the URL from --url, else SLUICE_URL, else the default port 8080', async () => {
    expect((await clientOptions({ output: 'table', headers: true }, {}, never)).url).toBe(DEFAULT_URL);
    expect((await clientOptions({ output: 'table', headers: true }, { SLUICE_URL: 'http://node-1:9000' }, never)).url).toBe('http://node-1:9000');
    expect((await clientOptions({ output: 'table', headers: true, url: 'http://n:1' }, { SLUICE_URL: 'http://x:2' }, never)).url).toBe('http://n:1');
  });

  it('a token from --token or SLUICE_TOKEN; a user with SLUICE_PASSWORD, else asked for', async () => {
    expect((await clientOptions({ output: 'table', headers: true }, { SLUICE_TOKEN: 'sluice_t' }, never)).token).toBe('sluice_t');
    expect((await clientOptions({ output: 'table', headers: true, token: 'sluice_flag' }, { SLUICE_TOKEN: 'sluice_t' }, never)).token).toBe('sluice_flag');
    const fromEnv = await clientOptions({ output: 'table', headers: true, user: 'alice' }, { SLUICE_PASSWORD: 'pw', SLUICE_TOKEN: 'sluice_t' }, never);
    expect([fromEnv.username, fromEnv.password, fromEnv.token]).toEqual(['alice', 'pw', undefined]);
    const prompts: string[] = [];
    const asked = await clientOptions({ output: 'table', headers: true, user: 'alice' }, {}, async (prompt) => (prompts.push(prompt), 'typed'));
    expect([asked.password, prompts]).toEqual(['typed', ['Password for alice']]);
    await expect(clientOptions({ output: 'table', headers: true, user: 'alice', token: 'sluice_t' }, {}, never)).rejects.toThrow('not both');
  });

  it('no command takes a password on the command line', () => {
    const options = program().commands.flatMap((command: Command) => command.options.map((option) => option.long));
    expect(options.filter((name) => name !== undefined && /pass/i.test(name))).toEqual([]);
  });
});

describe('help', () => {
  it.each(['status', 'query', 'restart', 'stop', 'deploy', 'delete', 'events', 'topology', 'lag', 'metrics', 'stores', 'topologies', 'config'])('sluice %s --help lists the connection and output options', (name) => {
    const command = program().commands.find((c: Command) => c.name() === name)!;
    const help = command.helpInformation();
    for (const option of ['--url <url>', '--token <token>', '--user <name>', '--ca <file>', '-o, --output <format>', '--no-headers']) expect(help).toContain(option);
  });

  it('sluice query --help lists the clauses per store type, stop --help its --cleanup', () => {
    const commands = program().commands;
    const query = commands.find((c: Command) => c.name() === 'query')!;
    let text = '';
    query.configureOutput({ writeOut: (s) => (text += s) });
    query.outputHelp();
    expect(text).toContain('window, timestamped_window        fetch, fetch_key_range, fetch_time_range, fetch_all, all');
    expect(commands.find((c: Command) => c.name() === 'stop')!.helpInformation()).toContain('--cleanup');
  });
});
