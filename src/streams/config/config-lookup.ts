/**
 * Finding a key, as written, in the configuration table: unprefixed (Kafka Streams' keys, Sluice's, and client keys,
 * which Kafka Streams passes to every client that has them) or under one of Kafka Streams' prefixes.
 */
import type { KafkaClientRole } from '../kafka';
import { CLIENT_ROLE_PREFIXES, CONFIG_KEYS, type ConfigKey, type Scope } from './config-keys';

/** Kafka Streams' prefixes (StreamsConfig.*_PREFIX), each with the keys it takes. */
const PREFIXES: readonly (readonly [prefix: string, scope: Scope])[] = [
  ['consumer.', 'consumer'],
  ['main.consumer.', 'consumer'],
  ['restore.consumer.', 'consumer'],
  ['global.consumer.', 'consumer'],
  ['producer.', 'producer'],
  ['admin.', 'admin'],
  ['topic.', 'topic'],
];

/** A key as written: its table entry and the prefix it was written under ('' for none). */
export interface KeyForm {
  readonly entry: ConfigKey;
  readonly prefix: string;
}

const UNPREFIXED: readonly Scope[] = ['streams', 'sluice', 'consumer', 'producer', 'admin'];

const byScope = new Map<Scope, Map<string, ConfigKey>>();
const wildcards: ConfigKey[] = [];
for (const entry of CONFIG_KEYS) {
  if (entry.name.endsWith('*')) {
    wildcards.push(entry);
    continue;
  }
  for (const scope of entry.scopes) {
    let keys = byScope.get(scope);
    if (keys === undefined) byScope.set(scope, (keys = new Map()));
    keys.set(entry.name, entry);
  }
}

function inScopes(name: string, scopes: readonly Scope[]): ConfigKey | undefined {
  for (const scope of scopes) {
    const entry = byScope.get(scope)?.get(name);
    if (entry !== undefined) return entry;
  }
  return undefined;
}

/** The table entry of a key as written, or undefined when no Kafka Streams, client, topic or Sluice key is meant. */
export function lookupConfigKey(key: string): KeyForm | undefined {
  const unprefixed = inScopes(key, UNPREFIXED);
  if (unprefixed !== undefined) return { entry: unprefixed, prefix: '' };
  for (const [prefix, scope] of PREFIXES) {
    if (!key.startsWith(prefix)) continue;
    const entry = byScope.get(scope)?.get(key.slice(prefix.length));
    if (entry !== undefined) return { entry, prefix };
  }
  const wildcard = wildcards.find((w) => key.length > w.name.length - 1 && key.startsWith(w.name.slice(0, -1)));
  return wildcard === undefined ? undefined : { entry: wildcard, prefix: '' };
}

/** A client key as given for one client: the key as written (under the prefix that won) and its value. */
export interface ClientSetting<T> {
  readonly key: string;
  readonly value: T;
}

/**
 * The value of client key `name` for the client `role`, by Kafka Streams' rules: under the strongest of the role's
 * prefixes that is given (`main.consumer.` over `consumer.` over unprefixed), if any is; `given` answers a key as written.
 */
export function clientSetting<T>(role: KafkaClientRole, name: string, given: (key: string) => T | undefined): ClientSetting<T> | undefined {
  const prefixes = CLIENT_ROLE_PREFIXES[role];
  for (let i = prefixes.length - 1; i >= 0; i--) {
    const key = prefixes[i] + name;
    const value = given(key);
    if (value !== undefined) return { key, value };
  }
  return undefined;
}

/** Kafka's PASSWORD-typed keys (`sasl.jaas.config`, `ssl.keystore.password`, ...), under any prefix: secrets to hide. */
export function isSecretConfigKey(key: string): boolean {
  return lookupConfigKey(key)?.entry.type === 'password';
}

/** Every key as it may be written, for suggestions. */
const EVERY_FORM: readonly string[] = [
  ...new Set([
    ...UNPREFIXED.flatMap((scope) => [...(byScope.get(scope)?.keys() ?? [])]),
    ...PREFIXES.flatMap(([prefix, scope]) => [...(byScope.get(scope)?.keys() ?? [])].map((name) => prefix + name)),
  ]),
];

/** Levenshtein distance, stopping early once it exceeds `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, current[j]!);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** The valid key closest to a misspelt one, when one is close enough to be what was meant. */
export function closestConfigKey(key: string): string | undefined {
  // A key of one scope written without its prefix (`retention.ms` for `topic.retention.ms`).
  for (const [prefix, scope] of PREFIXES) if (byScope.get(scope)?.has(key)) return prefix + key;
  // A third of the key's length: a slip or two in a short key, a wrong prefix ("producer." for "consumer.") in a long one.
  let limit = Math.max(2, Math.floor(key.length / 3));
  let closest: string | undefined;
  for (const form of EVERY_FORM) {
    const d = distance(key, form, limit);
    if (d <= limit) {
      closest = form;
      limit = d - 1;
    }
  }
  return closest;
}

const CACHE_KEY = 'statestore.cache.max.bytes';
const DEPRECATED_CACHE_KEY = 'cache.max.bytes.buffering';

/**
 * The record cache's size from an application's configuration: `statestore.cache.max.bytes`, else the deprecated
 * `cache.max.bytes.buffering`, else the default (Kafka Streams' `getTotalCacheSize`).
 */
export function cacheMaxBytes(config: Readonly<Record<string, unknown>>): number {
  const given = config[CACHE_KEY] ?? config[DEPRECATED_CACHE_KEY];
  return Number(given ?? byScope.get('streams')!.get(CACHE_KEY)!.default);
}

const MIN_FREE_KEY = 'state.dir.min.free.bytes';

/** The free space below which persistent stores refuse writes: `state.dir.min.free.bytes`, else its default. */
export function minFreeDiskBytes(config: Readonly<Record<string, unknown>>): number {
  return Number(config[MIN_FREE_KEY] ?? byScope.get('sluice')!.get(MIN_FREE_KEY)!.default);
}
