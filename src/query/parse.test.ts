import { SluiceError } from '../errors';
import { DEFAULT_OPTIONS } from './options';
import { MAX_KEY_DEPTH, parseQueryRequest, requestFromPeer, requestToJson, requestToPeer } from './parse';

function invalid(body: unknown): SluiceError {
  try {
    parseQueryRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    const e = error as SluiceError;
    expect(e.exception).toBe('InvalidQuery');
    expect(e.kind).toBe('invalid');
    return e;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be invalid`);
}

describe('parseQueryRequest: every clause of every store type', () => {
  const cases: [string, string, Record<string, unknown>, Record<string, unknown>, Record<string, number>][] = [
    ['key_value', 'get', { key: 'a' }, { key: 'a' }, {}],
    ['key_value', 'range', { key_from: 'a', key_to: 'c' }, { key_from: 'a', key_to: 'c' }, {}],
    ['key_value', 'all', {}, {}, {}],
    ['key_value', 'count', {}, {}, {}],
    ['key_value', 'prefix_scan', { prefix: 'ab' }, { prefix: 'ab' }, {}],
    ['key_value', 'reverse_range', { key_from: 'a', key_to: 'c' }, { key_from: 'a', key_to: 'c' }, {}],
    ['key_value', 'reverse_all', {}, {}, {}],
    ['timestamped_key_value', 'get', { key: 1 }, { key: 1 }, {}],
    ['timestamped_key_value', 'count', {}, {}, {}],
    ['window', 'fetch', { key: 'a', time: 1000 }, { key: 'a' }, { time: 1000 }],
    [
      'window',
      'fetch_key_range',
      { key_from: 'a', key_to: 'b', time_from: 0, time_to: 10 },
      { key_from: 'a', key_to: 'b' },
      { time_from: 0, time_to: 10 },
    ],
    ['window', 'fetch_time_range', { key: 'a', time_from: 5, time_to: 5 }, { key: 'a' }, { time_from: 5, time_to: 5 }],
    ['window', 'fetch_all', { time_from: 0, time_to: 99 }, {}, { time_from: 0, time_to: 99 }],
    ['window', 'all', {}, {}, {}],
    ['timestamped_window', 'fetch', { key: 'a', time: '1000' }, { key: 'a' }, { time: 1000 }],
    ['session', 'fetch', { key: 'a' }, { key: 'a' }, {}],
    ['session', 'fetch_key_range', { key_from: 'a', key_to: 'z' }, { key_from: 'a', key_to: 'z' }, {}],
  ];

  it.each(cases)('%s %s', (type, clause, params, keys, times) => {
    const request = parseQueryRequest({ type, query: { [clause]: params } });
    expect(request).toEqual({ type, clause, keys, times, options: DEFAULT_OPTIONS, positions: [] });
  });

  it('takes type and clause case-insensitively, camelCase parameters, and times as numeric strings', () => {
    const request = parseQueryRequest({
      type: 'WINDOW',
      query: { FETCH_KEY_RANGE: { keyFrom: 'a', KeyTo: 'b', timeFrom: '10', time_to: ' 20 ' } },
    });
    expect(request).toMatchObject({ type: 'window', clause: 'fetch_key_range', keys: { key_from: 'a', key_to: 'b' }, times: { time_from: 10, time_to: 20 } });
    expect(parseQueryRequest({ type: 'Key_Value', query: { Get: { key: 'x' } } }).clause).toBe('get');
  });

  it('takes a clause without parameters as {} or null', () => {
    expect(parseQueryRequest({ type: 'key_value', query: { all: null } }).clause).toBe('all');
    expect(parseQueryRequest({ type: 'key_value', query: { count: {} } }).clause).toBe('count');
  });

  it('keeps keys as the JSON they were given, for the store serde to decode', () => {
    const request = parseQueryRequest({ type: 'key_value', query: { get: { key: { id: [1, 2] } } } });
    expect(request.keys.key).toEqual({ id: [1, 2] });
  });
});

describe('keys nested deeper than any key', () => {
  /** `levels` arrays and objects, one in the other, around a string. */
  const nested = (levels: number): unknown => Array.from({ length: levels }).reduce<unknown>((inner, _, i) => (i % 2 === 0 ? [inner] : { k: inner }), 'x');
  const deepText = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it(`takes ${MAX_KEY_DEPTH} levels, and any width`, () => {
    expect(parseQueryRequest({ type: 'key_value', query: { get: { key: nested(MAX_KEY_DEPTH) } } }).keys.key).toEqual(nested(MAX_KEY_DEPTH));
    const wide = Array.from({ length: 10_000 }, (_, i) => ({ i, tags: [i] }));
    expect(parseQueryRequest({ type: 'key_value', query: { range: { key_from: wide, key_to: 'z' } } }).keys.key_from).toBe(wide);
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    ['key_value', 'get', {}, 'key'],
    ['key_value', 'range', { key_to: 'z' }, 'key_from'],
    ['key_value', 'reverse_range', { key_from: 'a' }, 'key_to'],
    ['key_value', 'prefix_scan', {}, 'prefix'],
    ['window', 'fetch_time_range', { time_from: 0, time_to: 1 }, 'key'],
    ['session', 'fetch_key_range', { key_from: 'a' }, 'key_to'],
  ])(`refuses a %s %s (with %j) whose %s nests ${MAX_KEY_DEPTH + 1} levels, or 20 000, naming it`, (type, clause, others, param) => {
    for (const key of [nested(MAX_KEY_DEPTH + 1), JSON.parse(deepText(20_000))]) {
      expect(invalid({ type, query: { [clause]: { ...others, [param]: key } } }).message).toContain(`parameter '${param}' nests more than ${MAX_KEY_DEPTH} levels`);
    }
  });

  it('refuses one from a peer too', () => {
    const peer = { ...requestToPeer(parseQueryRequest({ type: 'key_value', query: { get: { key: 'a' } } }), 'app', 'kv', 1000), keysJson: { key: deepText(20_000) } };
    expect(() => requestFromPeer(peer, () => 6)).toThrow(`parameter 'key' nests more than ${MAX_KEY_DEPTH} levels`);
  });
});

describe('parseQueryRequest: set_options', () => {
  it('fills the defaults', () => {
    expect(parseQueryRequest({ type: 'key_value', query: { all: {} }, set_options: {} }).options).toEqual({
      retries: 0,
      retryBackoffMs: 100,
      queryTimeoutMs: 30000,
      remoteAccessAllowed: true,
      limit: -1,
      allowStale: false,
      maxLag: -1,
    });
  });

  it('takes strings (the contract) and JSON scalars, snake_case and camelCase', () => {
    const fromStrings = parseQueryRequest({
      type: 'key_value',
      query: { all: {} },
      set_options: { retries: '3', retry_backoff_ms: '50', query_timeout_ms: '2000', remote_access_allowed: 'FALSE', limit: '10' },
    });
    const fromScalars = parseQueryRequest({
      type: 'key_value',
      query: { all: {} },
      setOptions: { retries: 3, retryBackoffMs: 50, queryTimeoutMs: 2000, remoteAccessAllowed: false, limit: 10 },
    });
    const expected = { retries: 3, retryBackoffMs: 50, queryTimeoutMs: 2000, remoteAccessAllowed: false, limit: 10, allowStale: false, maxLag: -1 };
    expect(fromStrings.options).toEqual(expected);
    expect(fromScalars.options).toEqual(expected);
  });

  it('takes next, the continuation token, as a string (checked once the store is known)', () => {
    expect(parseQueryRequest({ type: 'key_value', query: { all: {} }, set_options: { next: 'abc.def' } }).options.next).toBe('abc.def');
  });

  it.each([
    [{ next: 5 }, 'set_options.next must be the string a previous answer gave as next, got number 5'],
    [{ retries: -1 }, 'set_options.retries must be an integer >= 0'],
    [{ retries: 'many' }, 'set_options.retries must be an integer >= 0, got the string "many"'],
    [{ retry_backoff_ms: 1.5 }, 'set_options.retry_backoff_ms must be an integer in [0, 2147483647]'],
    [{ query_timeout_ms: 0 }, 'set_options.query_timeout_ms must be an integer in [1, 2147483647]'],
    [{ remote_access_allowed: 'yes' }, 'set_options.remote_access_allowed must be true or false'],
    [{ limit: -2 }, 'set_options.limit must be an integer >= -1'],
    [{ timeout: 5 }, 'unknown option set_options.timeout'],
    [{ retries: 1, Retries: 2 }, 'set_options.retries is given twice'],
  ])('refuses %j', (options, message) => {
    expect(invalid({ type: 'key_value', query: { all: {} }, set_options: options }).message).toContain(message);
  });

  it('refuses set_options that is not an object', () => {
    expect(invalid({ type: 'key_value', query: { all: {} }, set_options: 'fast' }).message).toContain('set_options must be a JSON object');
  });
});

describe('parseQueryRequest: invalid queries are 400 InvalidQuery with a clear message', () => {
  it.each<[string, unknown, string]>([
    ['a body that is not an object', [1, 2], 'the body must be a JSON object'],
    ['a null body', null, 'the body must be a JSON object'],
    ['an unknown field', { type: 'key_value', query: { all: {} }, limit: 3 }, "unknown field 'limit'"],
    ['no type', { query: { all: {} } }, "'type' is required"],
    ['a type that is not a string', { type: 3, query: { all: {} } }, "'type' is required: one of key_value"],
    ['an unknown type', { type: 'table', query: { all: {} } }, "unknown store type 'table'"],
    ['no query', { type: 'key_value' }, "'query' is required"],
    ['a query that is not an object', { type: 'key_value', query: 'all' }, "'query' is required"],
    ['no clause', { type: 'key_value', query: {} }, 'the query must have exactly one clause, it has none'],
    ['several clauses', { type: 'key_value', query: { get: { key: 'a' }, all: {} } }, 'exactly one clause, it has 2 (get, all)'],
    ['an unknown clause', { type: 'key_value', query: { scan: {} } }, "unknown clause 'scan'; clauses of key_value stores are get, range, all, count"],
    ['a clause not allowed for the type', { type: 'key_value', query: { fetch: { key: 'a', time: 1 } } }, "clause 'fetch' does not apply to key_value stores"],
    ['count on a window store', { type: 'window', query: { count: {} } }, "clause 'count' does not apply to window stores"],
    ['all on a session store', { type: 'session', query: { all: {} } }, "clause 'all' does not apply to session stores"],
    ['a missing parameter', { type: 'key_value', query: { range: { key_from: 'a' } } }, "clause 'range' needs parameter 'key_to'"],
    ['missing parameters', { type: 'window', query: { fetch: {} } }, "clause 'fetch' needs parameters 'key', 'time'"],
    ['an unknown parameter', { type: 'key_value', query: { get: { key: 'a', time: 1 } } }, "clause 'get' has no parameter 'time'; its parameters are key"],
    ['a parameter on a clause without any', { type: 'key_value', query: { all: { limit: 1 } } }, "clause 'all' has no parameter 'limit'; it takes none"],
    ['a parameter given twice', { type: 'key_value', query: { range: { key_from: 'a', keyFrom: 'b', key_to: 'c' } } }, "parameter 'key_from' is given twice (as key_from and keyFrom)"],
    ['a null key', { type: 'key_value', query: { get: { key: null } } }, "parameter 'key' of clause 'get' must not be null"],
    ['parameters that are not an object', { type: 'key_value', query: { get: 'a' } }, "the parameters of clause 'get' must be a JSON object"],
    ['a time that is not a number', { type: 'window', query: { fetch: { key: 'a', time: 'yesterday' } } }, "parameter 'time' must be a time in epoch milliseconds"],
    ['a fractional time', { type: 'window', query: { fetch: { key: 'a', time: 1.5 } } }, "parameter 'time' must be a time in epoch milliseconds"],
    [
      'time_to < time_from',
      { type: 'window', query: { fetch_key_range: { key_from: 'a', key_to: 'b', time_from: 10, time_to: 9 } } },
      'time_to (9) is before time_from (10)',
    ],
    ['time_to < time_from in fetch_all', { type: 'window', query: { fetch_all: { time_from: '10', time_to: '0' } } }, 'time_to (0) is before time_from (10)'],
  ])('%s', (_name, body, message) => {
    const error = invalid(body);
    expect(error.message).toContain(message);
    expect(error.message.startsWith('Invalid query: ')).toBe(true);
  });
});

describe('requestToJson', () => {
  it('gives back a body that parses to the same request, with the options given', () => {
    const request = parseQueryRequest({ type: 'window', query: { fetchKeyRange: { keyFrom: 'a', keyTo: 'b', timeFrom: '1', timeTo: 2 } } });
    const options = { ...request.options, remoteAccessAllowed: false, queryTimeoutMs: 1234 };
    expect(parseQueryRequest(JSON.parse(requestToJson(request, options)))).toEqual({ ...request, options });
  });
});

describe('requestToPeer and requestFromPeer', () => {
  const all = (options: object) => parseQueryRequest({ type: 'key_value', query: { all: {} }, set_options: options });

  it('carry the partitions a stale-allowed query reads in place of a node that did not answer', () => {
    const request = { ...all({ allow_stale: true }), standInPartitions: [2, 5] };
    const back = requestFromPeer(requestToPeer(request, 'app', 'kv', 1000), () => 6);
    expect(back.standInPartitions).toEqual([2, 5]);
    expect(back.options.allowStale).toBe(true);
    expect(requestFromPeer(requestToPeer(all({}), 'app', 'kv', 1000), () => undefined).standInPartitions).toBeUndefined();
  });

  it.each<[string, { allowStale: boolean; standInPartitions: number[] }, string]>([
    ['without allow_stale', { allowStale: false, standInPartitions: [1] }, 'stand_in_partitions needs allow_stale'],
    ['of partitions the store does not have', { allowStale: true, standInPartitions: [-1, 6, 7] }, "stand_in_partitions names partitions store 'kv' does not have (it has 6): -1, 6, 7"],
    ['listing partitions twice', { allowStale: true, standInPartitions: [0, 5, 0, 5, 5] }, 'stand_in_partitions names partitions more than once: 0, 5'],
    ['listing partition 0 two thousand times', { allowStale: true, standInPartitions: Array<number>(2000).fill(0) }, 'stand_in_partitions names partitions more than once: 0'],
    ['of 100 000 partitions', { allowStale: true, standInPartitions: Array.from({ length: 100_000 }, (_, i) => i) }, '(it has 6): 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ...'],
  ])('refuses stand-in partitions %s: InvalidQuery naming them', (_name, fields, message) => {
    const peer = { ...requestToPeer(all({ allow_stale: true }), 'app', 'kv', 1000), ...fields };
    expect(() => requestFromPeer(peer, () => 6)).toThrow(expect.objectContaining({ exception: 'InvalidQuery', message: expect.stringContaining(message) }));
  });

  it("refuses stand-in partitions while the store's partitions are not known (rebalancing): not available", () => {
    const peer = { ...requestToPeer(all({ allow_stale: true }), 'app', 'kv', 1000), standInPartitions: [1] };
    expect(() => requestFromPeer(peer, () => undefined)).toThrow(expect.objectContaining({ exception: 'InvalidStateStore', kind: 'unavailable' }));
  });
});
