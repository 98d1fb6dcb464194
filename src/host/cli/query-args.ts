/**
 * `sluice query`'s arguments: clause parameters as `name=value` and `--set option=value`. Names in snake_case or
 * camelCase, as the server takes them. Keys are JSON when they parse as JSON (`key=42` is the number, `key='"42"'`
 * the string), else the text as a string (`key=kafka`); times are epoch ms or an ISO-8601 date.
 */

import { InvalidClientRequest } from '../../errors';
import type { QueryOptions } from '../../client';

const TIME_PARAMS = new Set(['time', 'time_from', 'time_to', 'as_of']);

/** `keyFrom` → `key_from`; snake_case stays. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function split(argument: string, what: string): [string, string] {
  const at = argument.indexOf('=');
  if (at <= 0) throw new InvalidClientRequest(`${what} '${argument}' must be name=value`);
  return [snakeCase(argument.slice(0, at)), argument.slice(at + 1)];
}

function time(name: string, text: string): number {
  if (/^[+-]?\d+$/.test(text.trim())) return Number(text);
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw new InvalidClientRequest(`parameter ${name} must be epoch milliseconds or an ISO-8601 date, got '${text}'`);
  return parsed;
}

function key(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The clause's parameters from `name=value` arguments. */
export function parseParams(args: readonly string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const argument of args) {
    const [name, text] = split(argument, 'parameter');
    if (name in params) throw new InvalidClientRequest(`parameter ${name} is given twice`);
    params[name] = TIME_PARAMS.has(name) ? time(name, text) : key(text);
  }
  return params;
}

function integer(name: string, text: string): number {
  if (!/^[+-]?\d+$/.test(text.trim())) throw new InvalidClientRequest(`option ${name} must be an integer, got '${text}'`);
  return Number(text);
}

const OPTION_NAMES = 'retries, retry_backoff_ms, query_timeout_ms, remote_access_allowed, limit, allow_stale, max_lag';

function boolean(name: string, text: string): boolean {
  if (!/^(true|false)$/i.test(text)) throw new InvalidClientRequest(`option ${name} must be true or false, got '${text}'`);
  return text.toLowerCase() === 'true';
}

/** The query options from `--set name=value` arguments (the contract's set_options names). */
export function parseOptions(args: readonly string[]): QueryOptions {
  const options: QueryOptions = {};
  for (const argument of args) {
    const [name, text] = split(argument, 'option');
    switch (name) {
      case 'retries':
        options.retries = integer(name, text);
        break;
      case 'retry_backoff_ms':
        options.retryBackoffMs = integer(name, text);
        break;
      case 'query_timeout_ms':
        options.queryTimeoutMs = integer(name, text);
        break;
      case 'limit':
        options.limit = integer(name, text);
        break;
      case 'remote_access_allowed':
        options.remoteAccessAllowed = boolean(name, text);
        break;
      case 'allow_stale':
        options.allowStale = boolean(name, text);
        break;
      case 'max_lag':
        options.maxLag = integer(name, text);
        break;
      default:
        throw new InvalidClientRequest(`unknown option ${name}; options are ${OPTION_NAMES}`);
    }
  }
  return options;
}
