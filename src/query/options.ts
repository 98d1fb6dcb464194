import { InvalidQuery } from '../errors';
import { describeJson } from '../streams/serdes/serde-errors';
import { isJsonObject, matchName } from './names';
import type { QueryOptions } from './types';

export const DEFAULT_OPTIONS: Readonly<QueryOptions> = {
  retries: 0,
  retryBackoffMs: 100,
  queryTimeoutMs: 30_000,
  remoteAccessAllowed: true,
  limit: -1,
  next: undefined,
  allowStale: false,
  maxLag: -1,
};

const OPTION_NAMES = ['retries', 'retry_backoff_ms', 'query_timeout_ms', 'remote_access_allowed', 'limit', 'next', 'allow_stale', 'max_lag'] as const;
type OptionName = (typeof OPTION_NAMES)[number];

/** Node's timers take at most 2^31 - 1 ms; a longer timeout would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

function integer(name: OptionName, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new InvalidQuery(`set_options.${name} must be an integer ${range}, got ${describeJson(value)}`);
  }
  return n;
}

function boolean(name: OptionName, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^\s*(true|false)\s*$/i.test(value)) return value.trim().toLowerCase() === 'true';
  throw new InvalidQuery(`set_options.${name} must be true or false, got ${describeJson(value)}`);
}

/** Reads `set_options`: strings or JSON scalars, snake_case or camelCase names; absent or null means defaults. */
export function parseOptions(raw: unknown): QueryOptions {
  const options: QueryOptions = { ...DEFAULT_OPTIONS };
  if (raw === undefined || raw === null) return options;
  if (!isJsonObject(raw)) throw new InvalidQuery(`set_options must be a JSON object, got ${describeJson(raw)}`);
  const seen = new Map<OptionName, string>();
  for (const [given, value] of Object.entries(raw)) {
    const name = matchName(given, OPTION_NAMES);
    if (name === undefined) throw new InvalidQuery(`unknown option set_options.${given}; options are ${OPTION_NAMES.join(', ')}`);
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new InvalidQuery(`set_options.${name} is given twice (as ${earlier} and ${given})`);
    seen.set(name, given);
    switch (name) {
      case 'retries':
        options.retries = integer(name, value, 0);
        break;
      case 'retry_backoff_ms':
        options.retryBackoffMs = integer(name, value, 0, MAX_TIMEOUT_MS);
        break;
      case 'query_timeout_ms':
        options.queryTimeoutMs = integer(name, value, 1, MAX_TIMEOUT_MS);
        break;
      case 'remote_access_allowed':
        options.remoteAccessAllowed = boolean(name, value);
        break;
      case 'limit':
        options.limit = integer(name, value, -1);
        break;
      case 'next':
        // Checked against the store and the query once they are known (page-token.ts).
        if (typeof value !== 'string') throw new InvalidQuery(`set_options.next must be the string a previous answer gave as next, got ${describeJson(value)}`);
        options.next = value;
        break;
      case 'allow_stale':
        options.allowStale = boolean(name, value);
        break;
      case 'max_lag':
        options.maxLag = integer(name, value, 0);
        break;
    }
  }
  if (seen.has('max_lag') && !options.allowStale) throw new InvalidQuery('set_options.max_lag bounds the lag of stale reads: it needs allow_stale=true');
  return options;
}

/** `set_options` as JSON, for forwarding a query to a peer of the previous version (which knows no `next`). */
export function optionsToJson(options: QueryOptions): Record<string, unknown> {
  return {
    retries: options.retries,
    retry_backoff_ms: options.retryBackoffMs,
    query_timeout_ms: options.queryTimeoutMs,
    remote_access_allowed: options.remoteAccessAllowed,
    limit: options.limit,
    // Only when asked for: a peer of the version before stale reads refuses options it does not know.
    ...(options.allowStale ? { allow_stale: true, ...(options.maxLag >= 0 ? { max_lag: options.maxLag } : {}) } : {}),
  };
}
