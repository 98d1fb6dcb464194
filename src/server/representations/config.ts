import type { ConfigValue } from '../../streams/runtime/streams-config';

export const HIDDEN_VALUE = '[hidden]';

/**
 * Keys whose values are secrets: passwords (`ssl.key.password`, `sasl.password`, ...), JAAS configurations (which
 * embed credentials), secrets, tokens, credentials and API keys, under any client prefix.
 */
const SECRET_KEY = /(^|[._-])(password|secret|token|credentials?|api[._-]?key)$|(^|\.)sasl\.jaas\.config$|(^|\.)basic\.auth\.user\.info$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** The configuration resource: a flat object, keys sorted, secrets shown as `[hidden]`. */
export function visibleConfig(values: Readonly<Record<string, ConfigValue>>): Record<string, ConfigValue> {
  const result: Record<string, ConfigValue> = {};
  for (const key of Object.keys(values).sort()) result[key] = isSecretKey(key) ? HIDDEN_VALUE : values[key];
  return result;
}
