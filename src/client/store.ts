/**
 * Interactive queries of one store: `client.store(app, store).keyValue<string, number>().get('kafka')`. One handle
 * per store type, one method per clause of that type (src/query/clauses.ts, the server's own table), and a generic
 * `query(type, clause, params)` for callers that learn the clause at run time (the CLI). Every input is checked
 * before anything is sent, with the same rules as the server's.
 */

import { InvalidClientRequest } from '../errors';
import { clauseSpec, clausesOf, STORE_TYPES } from '../query/clauses';
import type { Transport } from './transport';
import type { ClauseName, FailurePart, QueryStatus, SetOptions, StoreQueryRequest, StoreQueryResult, StoreRecord, StoreType, SuccessPart } from './types';

/** `set_options`, in camelCase; absent keys take the server's defaults (retries 0, backoff 100, timeout 30 000, remote true, limit -1). */
export interface QueryOptions {
  retries?: number;
  retryBackoffMs?: number;
  queryTimeoutMs?: number;
  remoteAccessAllowed?: boolean;
  /** The most records of each part; -1 for no limit. */
  limit?: number;
  /** The `next` of the previous page's raw result, for the page after it. */
  next?: string;
  /** A keyed query may be answered by a standby replica when its active is unreachable or restoring (KIP-535). */
  allowStale?: boolean;
  /** With allowStale: the most records a standby may be behind its changelog to answer. */
  maxLag?: number;
}

export interface KeyValueRecord<K, V> {
  key: K;
  value: V;
}

export interface TimestampedKeyValueRecord<K, V> extends KeyValueRecord<K, V> {
  /** Epoch ms. */
  timestamp: number;
}

/** A versioned store's record: the version's value, from `timestamp`, until `valid_to` (absent: the latest version). */
export interface VersionedKeyValueRecord<K, V> extends TimestampedKeyValueRecord<K, V> {
  valid_to?: number;
}

/** The key of a window or session store's record: the record's key and its window, in epoch ms. */
export interface WindowedKey<K> {
  key: K;
  window_start: number;
  window_end: number;
}

export type WindowRecord<K, V> = KeyValueRecord<WindowedKey<K>, V>;
export type TimestampedWindowRecord<K, V> = TimestampedKeyValueRecord<WindowedKey<K>, V>;
export type SessionRecord<K, V> = KeyValueRecord<WindowedKey<K>, V>;

/** A time parameter: epoch ms, or a Date. */
export type Time = number | Date;

/** Node's timers take at most 2^31 - 1 ms; the server refuses longer timeouts and backoffs. */
const MAX_TIMER_MS = 2_147_483_647;

function integerOption(name: string, value: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidClientRequest(`option ${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`}, got ${value}`);
  }
  return value;
}

/** The options as the contract's `set_options`, checked. */
export function setOptions(options: QueryOptions): SetOptions {
  const known = new Set(['retries', 'retryBackoffMs', 'queryTimeoutMs', 'remoteAccessAllowed', 'limit', 'next', 'allowStale', 'maxLag']);
  for (const name of Object.keys(options)) {
    if (!known.has(name)) throw new InvalidClientRequest(`unknown query option ${name}; options are ${[...known].join(', ')}`);
  }
  if (options.remoteAccessAllowed !== undefined && typeof options.remoteAccessAllowed !== 'boolean') {
    throw new InvalidClientRequest(`option remoteAccessAllowed must be true or false, got ${String(options.remoteAccessAllowed)}`);
  }
  if (options.next !== undefined && typeof options.next !== 'string') throw new InvalidClientRequest(`option next must be the string a result gave as next`);
  if (options.allowStale !== undefined && typeof options.allowStale !== 'boolean') {
    throw new InvalidClientRequest(`option allowStale must be true or false, got ${String(options.allowStale)}`);
  }
  const entries: [keyof SetOptions, number | boolean | string | undefined][] = [
    ['retries', integerOption('retries', options.retries, 0)],
    ['retry_backoff_ms', integerOption('retryBackoffMs', options.retryBackoffMs, 0, MAX_TIMER_MS)],
    ['query_timeout_ms', integerOption('queryTimeoutMs', options.queryTimeoutMs, 1, MAX_TIMER_MS)],
    ['remote_access_allowed', options.remoteAccessAllowed],
    ['limit', integerOption('limit', options.limit, -1)],
    ['next', options.next],
    ['allow_stale', options.allowStale],
    ['max_lag', integerOption('maxLag', options.maxLag, 0)],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as SetOptions;
}

function jsonKey(name: string, value: unknown): unknown {
  const kind = typeof value;
  if (value === undefined || value === null || kind === 'function' || kind === 'symbol' || kind === 'bigint') {
    throw new InvalidClientRequest(`parameter ${name} must be a key as JSON (a string, number, boolean, array or object), got ${value === null ? 'null' : kind}`);
  }
  if (kind === 'number' && !Number.isFinite(value as number)) throw new InvalidClientRequest(`parameter ${name} must be a finite number, got ${String(value)}`);
  return value;
}

function epochMs(name: string, value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms)) {
    throw new InvalidClientRequest(`parameter ${name} must be a time: epoch milliseconds as an integer, or a valid Date; got ${String(value)}`);
  }
  return ms;
}

const TIME_PARAMS = new Set(['time', 'time_from', 'time_to', 'as_of']);

/** The store query body for a type, a clause and its parameters (snake_case), checked as the server would. */
export function storeQueryRequest(type: string, clause: string, params: Readonly<Record<string, unknown>>, options: QueryOptions = {}): StoreQueryRequest {
  const storeType = type.toLowerCase() as StoreType;
  if (!STORE_TYPES.includes(storeType)) throw new InvalidClientRequest(`unknown store type '${type}'; types are ${STORE_TYPES.join(', ')}`);
  const clauseName = clause.toLowerCase() as ClauseName;
  const spec = clauseSpec(storeType, clauseName);
  if (spec === undefined) throw new InvalidClientRequest(`a ${storeType} store has no clause '${clause}'; its clauses are ${clausesOf(storeType).join(', ')}`);
  for (const name of Object.keys(params)) {
    if (!(spec.params as readonly string[]).includes(name)) {
      const expected = spec.params.length === 0 ? 'none' : spec.params.join(', ');
      throw new InvalidClientRequest(`${clauseName} takes no parameter '${name}'; its parameters: ${expected}`);
    }
  }
  const checked: Record<string, unknown> = {};
  for (const name of spec.params) {
    if (!(name in params) && spec.optional?.includes(name)) continue;
    if (!(name in params)) throw new InvalidClientRequest(`${clauseName} needs the parameter ${name} (parameters: ${spec.params.join(', ')})`);
    checked[name] = TIME_PARAMS.has(name) ? epochMs(name, params[name]) : jsonKey(name, params[name]);
  }
  const from = checked.time_from as number | undefined;
  const to = checked.time_to as number | undefined;
  if (from !== undefined && to !== undefined && to < from) throw new InvalidClientRequest(`time_to (${to}) is before time_from (${from})`);
  const set = setOptions(options);
  return { type: storeType, ...(Object.keys(set).length === 0 ? {} : { set_options: set }), query: { [clauseName]: checked } };
}

/** A query's answer: the raw result, and its records gathered from every successful part. */
export class QueryResult<R extends { value: unknown } = StoreRecord> {
  constructor(readonly raw: StoreQueryResult<R>) {}

  get status(): QueryStatus {
    return this.raw.status;
  }

  /** Whether every part answered (status SUCCESS). */
  get complete(): boolean {
    return this.raw.status === 'SUCCESS';
  }

  get timedOut(): boolean {
    return this.raw.timeout;
  }

  get success(): SuccessPart<R>[] {
    return this.raw.result.success;
  }

  get failure(): FailurePart[] {
    return this.raw.result.failure;
  }

  /** The records of every successful part, in the parts' order. */
  get records(): R[] {
    return this.raw.result.success.flatMap((part) => part.records);
  }

  /** The first record's value (a `get`'s or a `fetch`'s answer); undefined when there is none. */
  get value(): R['value'] | undefined {
    return this.records[0]?.value;
  }
}

/** `count`: one record per server that answered; the value is their sum, the store's approximate size. */
export class CountResult extends QueryResult<KeyValueRecord<'count', number>> {
  override get value(): number | undefined {
    const records = this.records;
    return records.length === 0 ? undefined : records.reduce((sum, record) => sum + record.value, 0);
  }
}

type Run = <R extends { value: unknown }>(type: StoreType, clause: ClauseName, params: Record<string, unknown>) => Promise<QueryResult<R>>;

export class KeyValueQueries<K, V, R extends KeyValueRecord<K, V>> {
  /** The clauses these methods cover, for the test that keeps them in step with the server's table. */
  static readonly CLAUSES = ['get', 'range', 'all', 'count', 'prefix_scan', 'reverse_range', 'reverse_all'] as const;

  constructor(
    private readonly type: 'key_value' | 'timestamped_key_value',
    private readonly run: Run,
  ) {}

  get(key: K): Promise<QueryResult<R>> {
    return this.run(this.type, 'get', { key });
  }

  /** Keys from `from` to `to`, both included, in the order of their serialized bytes. */
  range(from: K, to: K): Promise<QueryResult<R>> {
    return this.run(this.type, 'range', { key_from: from, key_to: to });
  }

  reverseRange(from: K, to: K): Promise<QueryResult<R>> {
    return this.run(this.type, 'reverse_range', { key_from: from, key_to: to });
  }

  all(): Promise<QueryResult<R>> {
    return this.run(this.type, 'all', {});
  }

  reverseAll(): Promise<QueryResult<R>> {
    return this.run(this.type, 'reverse_all', {});
  }

  /** Keys whose serialized form starts with the prefix's. */
  prefixScan(prefix: K): Promise<QueryResult<R>> {
    return this.run(this.type, 'prefix_scan', { prefix });
  }

  async count(): Promise<CountResult> {
    return new CountResult((await this.run<KeyValueRecord<'count', number>>(this.type, 'count', {})).raw);
  }
}

export class WindowQueries<K, V, R extends KeyValueRecord<WindowedKey<K>, V>> {
  static readonly CLAUSES = ['fetch', 'fetch_key_range', 'fetch_time_range', 'fetch_all', 'all'] as const;

  constructor(
    private readonly type: 'window' | 'timestamped_window',
    private readonly run: Run,
  ) {}

  /** The key's window that starts at `time`. */
  fetch(key: K, time: Time): Promise<QueryResult<R>> {
    return this.run(this.type, 'fetch', { key, time });
  }

  /** The key's windows that start from `from` to `to`. */
  fetchTimeRange(key: K, from: Time, to: Time): Promise<QueryResult<R>> {
    return this.run(this.type, 'fetch_time_range', { key, time_from: from, time_to: to });
  }

  fetchKeyRange(keyFrom: K, keyTo: K, timeFrom: Time, timeTo: Time): Promise<QueryResult<R>> {
    return this.run(this.type, 'fetch_key_range', { key_from: keyFrom, key_to: keyTo, time_from: timeFrom, time_to: timeTo });
  }

  fetchAll(timeFrom: Time, timeTo: Time): Promise<QueryResult<R>> {
    return this.run(this.type, 'fetch_all', { time_from: timeFrom, time_to: timeTo });
  }

  all(): Promise<QueryResult<R>> {
    return this.run(this.type, 'all', {});
  }
}

export class SessionQueries<K, V> {
  static readonly CLAUSES = ['fetch', 'fetch_key_range'] as const;

  constructor(private readonly run: Run) {}

  /** Every session of the key. */
  fetch(key: K): Promise<QueryResult<SessionRecord<K, V>>> {
    return this.run('session', 'fetch', { key });
  }

  fetchKeyRange(from: K, to: K): Promise<QueryResult<SessionRecord<K, V>>> {
    return this.run('session', 'fetch_key_range', { key_from: from, key_to: to });
  }
}

/** Queries of a versioned key-value store. */
export class VersionedKeyValueQueries<K, V> {
  static readonly CLAUSES = ['get'] as const;

  constructor(private readonly run: Run) {}

  /** The latest version of the key, or with `asOf` the version valid at that time. */
  get(key: K, asOf?: Time): Promise<QueryResult<VersionedKeyValueRecord<K, V>>> {
    return this.run('versioned_key_value', 'get', asOf === undefined ? { key } : { key, as_of: asOf });
  }
}

/** One store of one application, with the query options its queries send. */
export class StoreRef {
  constructor(
    private readonly transport: Transport,
    readonly applicationId: string,
    readonly store: string,
    readonly options: Readonly<QueryOptions> = {},
  ) {
    setOptions(options);
  }

  /** The same store with these options over the current ones. */
  withOptions(options: QueryOptions): StoreRef {
    return new StoreRef(this.transport, this.applicationId, this.store, { ...this.options, ...options });
  }

  keyValue<K = unknown, V = unknown>(): KeyValueQueries<K, V, KeyValueRecord<K, V>> {
    return new KeyValueQueries('key_value', this.runner());
  }

  timestampedKeyValue<K = unknown, V = unknown>(): KeyValueQueries<K, V, TimestampedKeyValueRecord<K, V>> {
    return new KeyValueQueries('timestamped_key_value', this.runner());
  }

  window<K = unknown, V = unknown>(): WindowQueries<K, V, WindowRecord<K, V>> {
    return new WindowQueries('window', this.runner());
  }

  timestampedWindow<K = unknown, V = unknown>(): WindowQueries<K, V, TimestampedWindowRecord<K, V>> {
    return new WindowQueries('timestamped_window', this.runner());
  }

  session<K = unknown, V = unknown>(): SessionQueries<K, V> {
    return new SessionQueries(this.runner());
  }

  versionedKeyValue<K = unknown, V = unknown>(): VersionedKeyValueQueries<K, V> {
    return new VersionedKeyValueQueries(this.runner());
  }

  /** Any clause of any type, its parameters by their snake_case names: for callers that learn them at run time. */
  query(type: string, clause: string, params: Readonly<Record<string, unknown>> = {}, signal?: AbortSignal): Promise<QueryResult<StoreRecord>> {
    return this.send(storeQueryRequest(type, clause, params, this.options), signal);
  }

  private runner(): Run {
    // The records are as the store's serdes give them: R is the caller's statement of those types, not checked here.
    return <R extends { value: unknown }>(type: StoreType, clause: ClauseName, params: Record<string, unknown>) =>
      this.send(storeQueryRequest(type, clause, params, this.options)) as unknown as Promise<QueryResult<R>>;
  }

  private async send(body: StoreQueryRequest, signal?: AbortSignal): Promise<QueryResult<StoreRecord>> {
    const raw = await this.transport.json<StoreQueryResult>('query', { params: { applicationId: this.applicationId, name: this.store }, body, signal });
    return new QueryResult(raw);
  }
}
