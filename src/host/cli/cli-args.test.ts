/** The client commands' argument parsing, connection settings, output forms and help. */

import type { Command } from 'commander';
import { InvalidClientRequest } from '../../errors';
import { program } from '../cli';
import { clientOptions, DEFAULT_URL } from './connection';
import { formatEvent, formatInstances, formatRecords, formatTopology, table } from './output';
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
    expect((await clientOptions({ output: 'table' }, {}, never)).url).toBe(DEFAULT_URL);
    expect((await clientOptions({ output: 'table' }, { SLUICE_URL: 'http://node-1:9000' }, never)).url).toBe('http://node-1:9000');
    expect((await clientOptions({ output: 'table', url: 'http://n:1' }, { SLUICE_URL: 'http://x:2' }, never)).url).toBe('http://n:1');
  });

  it('a token from --token or SLUICE_TOKEN; a user with SLUICE_PASSWORD, else asked for', async () => {
    expect((await clientOptions({ output: 'table' }, { SLUICE_TOKEN: 'sluice_t' }, never)).token).toBe('sluice_t');
    expect((await clientOptions({ output: 'table', token: 'sluice_flag' }, { SLUICE_TOKEN: 'sluice_t' }, never)).token).toBe('sluice_flag');
    const fromEnv = await clientOptions({ output: 'table', user: 'alice' }, { SLUICE_PASSWORD: 'pw', SLUICE_TOKEN: 'sluice_t' }, never);
    expect([fromEnv.username, fromEnv.password, fromEnv.token]).toEqual(['alice', 'pw', undefined]);
    const prompts: string[] = [];
    const asked = await clientOptions({ output: 'table', user: 'alice' }, {}, async (prompt) => (prompts.push(prompt), 'typed'));
    expect([asked.password, prompts]).toEqual(['typed', ['Password for alice']]);
    await expect(clientOptions({ output: 'table', user: 'alice', token: 'sluice_t' }, {}, never)).rejects.toThrow('not both');
  });

  it('no command takes a password on the command line', () => {
    const options = program().commands.flatMap((command: Command) => command.options.map((option) => option.long));
    expect(options.filter((name) => name !== undefined && /pass/i.test(name))).toEqual([]);
  });
});

describe('output', () => {
  it('aligns columns', () => {
    expect(table(['KEY', 'VALUE'], [['kafka', '3'], ['streams', '12']])).toBe('KEY      VALUE\nkafka    3\nstreams  12\n');
  });

  it('prints key-value, window and timestamped records in their columns', () => {
    expect(formatRecords([{ key: 'kafka', value: 3 }])).toBe('KEY    VALUE\nkafka  3\n');
    expect(formatRecords([{ key: { key: 'alice', window_start: 0, window_end: 60000 }, value: 2, timestamp: 59000 }])).toBe(
      'KEY    WINDOW_START  WINDOW_END  VALUE  TIMESTAMP\nalice  0             60000       2      59000\n',
    );
    expect(formatRecords([{ key: 'u1', value: 'eu', timestamp: 10, valid_to: 20 }])).toBe('KEY  VALUE  TIMESTAMP  VALID_TO\nu1   eu     10         20\n');
    expect(formatRecords([])).toBe('(no records)\n');
  });

  it('lists instances with state, health, since and topology', () => {
    const instance = {
      id: 'word-count',
      name: 'io.sluice.examples.WordCount',
      version: '1.0.0',
      description: null,
      since: '2026-11-22T01:30:00.123Z[UTC]',
      state: { state: 'RUNNING' as const, since: '2026-11-22T01:30:00.123Z[UTC]' },
      config: {},
    };
    const health = {
      status: 'UP' as const,
      details: { applications: { name: 'applications' as const, status: 'UP' as const, details: { 'word-count': { status: 'UP' as const, details: { state: 'RUNNING' } } } } },
    };
    expect(formatInstances([instance], health)).toBe(
      'APPLICATION  STATE    HEALTH  SINCE                          TOPOLOGY\n' +
        'word-count   RUNNING  UP      2026-11-22T01:30:00.123Z[UTC]  io.sluice.examples.WordCount 1.0.0\n',
    );
  });

  it("prints the topology as Kafka Streams' describe() does", () => {
    const dag = {
      subTopologies: [
        {
          id: 0,
          nodes: [
            { type: 'SOURCE' as const, name: 'KSTREAM-SOURCE-0000000000', predecessors: [], successors: ['KSTREAM-AGGREGATE-0000000001'], topics: ['lines'] },
            { type: 'PROCESSOR' as const, name: 'KSTREAM-AGGREGATE-0000000001', predecessors: ['KSTREAM-SOURCE-0000000000'], successors: ['KSTREAM-SINK-0000000002'], stores: ['counts'] },
            { type: 'SINK' as const, name: 'KSTREAM-SINK-0000000002', predecessors: ['KSTREAM-AGGREGATE-0000000001'], successors: [], topic: 'words' },
          ],
        },
      ],
      globalStores: [],
    };
    expect(formatTopology(dag)).toBe(
      [
        'Topologies:',
        '   Sub-topology: 0',
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [lines])',
        '      --> KSTREAM-AGGREGATE-0000000001',
        '    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [counts])',
        '      --> KSTREAM-SINK-0000000002',
        '      <-- KSTREAM-SOURCE-0000000000',
        '    Sink: KSTREAM-SINK-0000000002 (topic: words)',
        '      <-- KSTREAM-AGGREGATE-0000000001',
        '',
      ].join('\n'),
    );
  });

  it('prints one event per line', () => {
    const event = { type: 'state', id: '1', data: { state: 'RUNNING', previous: 'REBALANCING' } };
    expect(formatEvent(event, 'table')).toBe('state [1] {"state":"RUNNING","previous":"REBALANCING"}\n');
    expect(JSON.parse(formatEvent(event, 'json'))).toEqual(event);
  });
});

describe('help', () => {
  it.each(['status', 'query', 'restart', 'stop', 'events', 'topology'])('sluice %s --help lists the connection and output options', (name) => {
    const command = program().commands.find((c: Command) => c.name() === name)!;
    const help = command.helpInformation();
    for (const option of ['--url <url>', '--token <token>', '--user <name>', '--ca <file>', '-o, --output <format>']) expect(help).toContain(option);
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
