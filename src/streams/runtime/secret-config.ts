/**
 * The one rule for which configuration values are secrets, as Kafka's `Password` type marks them: shown as
 * `[hidden]` wherever a configuration is shown (the config resource, the instance description, logs, error bodies).
 */

import type { ConfigValue } from './streams-config';

export const HIDDEN_VALUE = '[hidden]';

/**
 * Passwords and passphrases (`ssl.key.password`, `sasl.password`, ...), private keys (`ssl.keystore.key` as PEM),
 * JAAS configurations (which embed credentials), secrets, tokens, credentials and API keys; a suffix rule, so that
 * every client prefix (`consumer.`, `producer.`, `admin.`, `restore.consumer.`, `main.consumer.`) is covered.
 */
const SECRET_KEY =
  /(^|[._-])(password|passphrase|secret|token|credentials?|api[._-]?key|private[._-]?key)$|(^|\.)(sasl\.jaas\.config|ssl\.keystore\.key|basic\.auth\.user\.info)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A copy of a configuration with every secret value replaced by `[hidden]`, keys in their order. */
export function withSecretsHidden(values: Readonly<Record<string, ConfigValue>>): Record<string, ConfigValue> {
  const result: Record<string, ConfigValue> = {};
  for (const [key, value] of Object.entries(values)) result[key] = isSecretKey(key) ? HIDDEN_VALUE : value;
  return result;
}
