import { InvalidQuery, InvalidStateStore } from '../errors';
import { describeJson } from '../streams/serdes/serde-errors';
import { CLAUSE_NAMES, clauseSpec, clausesOf, requiredParams, STORE_TYPES } from './clauses';
import { isJsonObject, matchName } from './names';
import { DEFAULT_OPTIONS, optionsToJson, parseOptions } from './options';
import type { PeerQuery } from './peers';
import type { KeyParam, ParamName, QueryOptions, QueryRequest, TimeParam } from './types';

const FIELDS = ['type', 'query', 'set_options'] as const;
const TIME_PARAMS: readonly ParamName[] = ['time', 'time_from', 'time_to', 'as_of'];
/**
 * The most levels of arrays and objects a key may nest: far beyond any real key, and far below what the recursive
 * walks of a key (JSON.stringify in the page token's fingerprint, in serdes, in a peer call) survive.
 */
export const MAX_KEY_DEPTH = 100;

function isTimeParam(name: ParamName): name is TimeParam {
  return TIME_PARAMS.includes(name);
}

/** Epoch ms: an integer, as a JSON number or a string of digits. */
function epochMs(name: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new InvalidQuery(`parameter '${name}' must be a time in epoch milliseconds (an integer, or a string of digits), got ${describeJson(value)}`);
  }
  return n;
}

/** A key, once refused if it nests too deep; walked level by level here, so that no deep key reaches a recursive walk. */
function checkedKey(name: KeyParam, value: unknown): unknown {
  let level = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const nested = level.filter((node): node is object => typeof node === 'object' && node !== null);
    if (nested.length > 0 && depth >= MAX_KEY_DEPTH) throw new InvalidQuery(`parameter '${name}' nests more than ${MAX_KEY_DEPTH} levels of arrays and objects`);
    level = nested.flatMap((node) => Object.values(node));
  }
  return value;
}

/**
 * Checks the shape of a query body (compatibility file, section 5) without looking at the store: the type, the one
 * clause and that it applies to the type, the clause's parameters (snake_case or camelCase), times, `set_options`.
 * Everything wrong is an InvalidQuery (400) that says what and where.
 */
export function parseQueryRequest(body: unknown): QueryRequest {
  if (!isJsonObject(body)) throw new InvalidQuery(`the body must be a JSON object {"type", "query", "set_options"}, got ${describeJson(body)}`);
  const fields: Partial<Record<(typeof FIELDS)[number], unknown>> = {};
  for (const [given, value] of Object.entries(body)) {
    const field = matchName(given, FIELDS);
    if (field === undefined) throw new InvalidQuery(`unknown field '${given}'; a query has ${FIELDS.join(', ')}`);
    if (field in fields) throw new InvalidQuery(`field '${field}' is given twice`);
    fields[field] = value;
  }

  const rawType = fields.type;
  if (typeof rawType !== 'string') {
    throw new InvalidQuery(`'type' is required: one of ${STORE_TYPES.join(', ')}${rawType === undefined ? '' : `, got ${describeJson(rawType)}`}`);
  }
  const type = matchName(rawType, STORE_TYPES);
  if (type === undefined) throw new InvalidQuery(`unknown store type '${rawType}'; types are ${STORE_TYPES.join(', ')}`);

  const query = fields.query;
  if (!isJsonObject(query)) {
    throw new InvalidQuery(`'query' is required: an object with one clause, e.g. {"get": {"key": ...}}${query === undefined ? '' : `, got ${describeJson(query)}`}`);
  }
  const clauses = Object.keys(query);
  if (clauses.length !== 1) {
    const found = clauses.length === 0 ? 'none' : `${clauses.length} (${clauses.join(', ')})`;
    throw new InvalidQuery(`the query must have exactly one clause, it has ${found}`);
  }
  const rawClause = clauses[0]!;
  const clause = matchName(rawClause, CLAUSE_NAMES);
  if (clause === undefined) throw new InvalidQuery(`unknown clause '${rawClause}'; clauses of ${type} stores are ${clausesOf(type).join(', ')}`);
  const spec = clauseSpec(type, clause);
  if (spec === undefined) {
    throw new InvalidQuery(`clause '${clause}' does not apply to ${type} stores; their clauses are ${clausesOf(type).join(', ')}`);
  }

  const rawParams = query[rawClause];
  if (rawParams !== undefined && rawParams !== null && !isJsonObject(rawParams)) {
    throw new InvalidQuery(`the parameters of clause '${clause}' must be a JSON object, got ${describeJson(rawParams)}`);
  }
  const keys: QueryRequest['keys'] = {};
  const times: QueryRequest['times'] = {};
  const seen = new Map<ParamName, string>();
  for (const [given, value] of Object.entries(rawParams ?? {})) {
    const name = matchName(given, spec.params);
    if (name === undefined) {
      const expected = spec.params.length === 0 ? 'it takes none' : `its parameters are ${spec.params.join(', ')}`;
      throw new InvalidQuery(`clause '${clause}' has no parameter '${given}'; ${expected}`);
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new InvalidQuery(`parameter '${name}' is given twice (as ${earlier} and ${given})`);
    seen.set(name, given);
    if (value === null) throw new InvalidQuery(`parameter '${name}' of clause '${clause}' must not be null`);
    if (isTimeParam(name)) times[name] = epochMs(name, value);
    else keys[name as KeyParam] = checkedKey(name as KeyParam, value);
  }
  const missing = requiredParams(spec).filter((name) => !seen.has(name));
  if (missing.length > 0) {
    throw new InvalidQuery(`clause '${clause}' needs parameter${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}`);
  }
  if (times.time_from !== undefined && times.time_to !== undefined && times.time_to < times.time_from) {
    throw new InvalidQuery(`time_to (${times.time_to}) is before time_from (${times.time_from})`);
  }

  return { type, clause, keys, times, options: parseOptions(fields.set_options), positions: [] };
}

/** The request as a JSON body again, with other options: what a peer is sent. */
export function requestToJson(request: QueryRequest, options: QueryOptions): string {
  return JSON.stringify({
    type: request.type,
    query: { [request.clause]: { ...request.keys, ...request.times } },
    set_options: optionsToJson(options),
  });
}

/** The request in the fields of a peer call (proto/sluice.proto's PeerQuery), keys as JSON text. */
export function requestToPeer(request: QueryRequest, applicationId: string, store: string, timeoutMs: number): PeerQuery {
  const keysJson: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.keys)) keysJson[name] = JSON.stringify(value);
  const { retries, retryBackoffMs, limit } = request.options;
  return {
    applicationId,
    store,
    type: request.type,
    clause: request.clause,
    keysJson,
    times: { ...request.times },
    retries,
    retryBackoffMs,
    limit,
    timeoutMs,
    positions: request.positions,
    allowStale: request.options.allowStale,
    maxLag: request.options.maxLag,
    ...(request.standInPartitions === undefined ? {} : { standInPartitions: request.standInPartitions }),
  };
}

/** Partitions named at most in a refusal of stand_in_partitions. */
const NAMED_PARTITIONS = 10;

function partitionList(partitions: ReadonlySet<number>): string {
  const named = [...partitions].sort((a, b) => a - b).slice(0, NAMED_PARTITIONS);
  return `${named.join(', ')}${partitions.size > NAMED_PARTITIONS ? ', ...' : ''}`;
}

/**
 * The partitions a stand-in query reads: each once, and only partitions the store has, so never more than it has
 * (a partition listed twice would be read twice). What is wrong is an InvalidQuery naming the partitions; with the
 * store's partitions not known yet (rebalancing), an InvalidStateStore.
 */
function standInPartitions(listed: readonly number[], allowStale: boolean, store: string, storePartitions: () => number | undefined): number[] {
  if (!allowStale) throw new InvalidQuery('stand_in_partitions needs allow_stale');
  const partitionCount = storePartitions();
  if (partitionCount === undefined) throw new InvalidStateStore(`the partitions of store '${store}' are not known yet (rebalancing)`);
  const seen = new Set<number>();
  const twice = new Set<number>();
  const unknown = new Set<number>();
  // Each set holds at most partitionCount entries, or one more than are named, however long the list.
  for (const partition of listed) {
    if (!Number.isSafeInteger(partition) || partition < 0 || partition >= partitionCount) unknown.add(partition);
    else if (seen.has(partition)) twice.add(partition);
    else seen.add(partition);
    if (unknown.size > NAMED_PARTITIONS) break;
  }
  if (unknown.size > 0) {
    throw new InvalidQuery(`stand_in_partitions names partitions store '${store}' does not have (it has ${partitionCount}): ${partitionList(unknown)}`);
  }
  if (twice.size > 0) throw new InvalidQuery(`stand_in_partitions names partitions more than once: ${partitionList(twice)}`);
  return [...listed];
}

/**
 * A request from a peer's fields. The calling node validated it; this checks again, cheaply, what crosses the
 * network: known type and clause that go together, exactly the clause's parameters, keys that are JSON, integer
 * times and options in range, stand-in partitions that the store has (as many as `storePartitions` says, asked only
 * of a stand-in query), each once. What is wrong is an InvalidQuery.
 */
export function requestFromPeer(query: PeerQuery, storePartitions: () => number | undefined): QueryRequest {
  const type = STORE_TYPES.find((t) => t === query.type);
  if (type === undefined) throw new InvalidQuery(`unknown store type '${query.type}'`);
  const clause = CLAUSE_NAMES.find((c) => c === query.clause);
  const spec = clause === undefined ? undefined : clauseSpec(type, clause);
  if (clause === undefined || spec === undefined) throw new InvalidQuery(`clause '${query.clause}' does not apply to ${type} stores`);
  const keys: QueryRequest['keys'] = {};
  const times: QueryRequest['times'] = {};
  for (const [name, json] of Object.entries(query.keysJson)) {
    if (!spec.params.includes(name as ParamName) || isTimeParam(name as ParamName)) throw new InvalidQuery(`clause '${clause}' has no key parameter '${name}'`);
    let key: unknown;
    try {
      key = JSON.parse(json);
    } catch {
      throw new InvalidQuery(`parameter '${name}' is not JSON`);
    }
    keys[name as KeyParam] = checkedKey(name as KeyParam, key);
  }
  for (const [name, time] of Object.entries(query.times)) {
    if (!spec.params.includes(name as ParamName) || !isTimeParam(name as ParamName)) throw new InvalidQuery(`clause '${clause}' has no time parameter '${name}'`);
    times[name as TimeParam] = epochMs(name, time);
  }
  const missing = requiredParams(spec).filter((name) => !(name in keys) && !(name in times));
  if (missing.length > 0) throw new InvalidQuery(`clause '${clause}' needs ${missing.join(', ')}`);
  const integer = (name: string, n: number, min: number) => {
    if (!Number.isSafeInteger(n) || n < min) throw new InvalidQuery(`${name} must be an integer >= ${min}, got ${n}`);
    return n;
  };
  const options: QueryOptions = {
    ...DEFAULT_OPTIONS,
    retries: integer('retries', query.retries, 0),
    retryBackoffMs: integer('retry_backoff_ms', query.retryBackoffMs, 0),
    queryTimeoutMs: integer('timeout_ms', query.timeoutMs, 1),
    limit: integer('limit', query.limit, -1),
    // A peer reads its own partitions only: a query fans out once.
    remoteAccessAllowed: false,
    allowStale: query.allowStale === true,
    maxLag: integer('max_lag', query.maxLag ?? -1, -1),
  };
  const standIn = query.standInPartitions ?? [];
  return {
    type,
    clause,
    keys,
    times,
    options,
    positions: query.positions,
    ...(standIn.length > 0 ? { standInPartitions: standInPartitions(standIn, options.allowStale, query.store, storePartitions) } : {}),
  };
}
